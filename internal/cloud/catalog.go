package cloud

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/utils"
)

// CatalogRegion is one served region of the Keystone service catalog.
type CatalogRegion struct {
	Name     string
	Services []CatalogService
}

// CatalogService is one service of a region, with its endpoints in that region.
type CatalogService struct {
	Type, Name string
	Endpoints  []CatalogEndpoint
}

// CatalogEndpoint is one interface (public, internal, admin) of a service.
type CatalogEndpoint struct {
	Interface, URL string
}

// requiredService is a service every served region must have; any of types will do.
type requiredService struct {
	label string
	types []string
}

// requiredServices are checked in every served region (identity is global).
var requiredServices = []requiredService{
	{label: "compute", types: []string{"compute"}},
	{label: "network", types: []string{"network"}},
	{label: "image", types: []string{"image"}},
	{label: "load-balancer", types: []string{"load-balancer"}},
	{label: "block-storage (block-storage, volumev3 or volume)", types: []string{"block-storage", "volumev3", "volume"}},
}

// endpointInRegion reports whether a catalog endpoint belongs to region (by name or ID).
func endpointInRegion(ep tokens.Endpoint, region string) bool {
	return ep.Region == region || ep.RegionID == region
}

// catalogRegionNames lists the catalog's regions, sorted.
func catalogRegionNames(cat *tokens.ServiceCatalog) []string {
	var names []string

	for _, entry := range cat.Entries {
		for _, ep := range entry.Endpoints {
			if name := cmp.Or(ep.Region, ep.RegionID); name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}

	slices.Sort(names)

	return names
}

// checkRegion verifies that region is in the catalog and has an endpoint with the given
// interface for every required service.
func checkRegion(cat *tokens.ServiceCatalog, region string, availability gophercloud.Availability) *RegionError {
	known := catalogRegionNames(cat)
	inCatalog := false

	for _, entry := range cat.Entries {
		for _, ep := range entry.Endpoints {
			if endpointInRegion(ep, region) {
				inCatalog = true
			}
		}
	}

	if !inCatalog {
		return &RegionError{Region: region, Known: known, Interface: string(availability)}
	}

	var missing []string

	for _, req := range requiredServices {
		if !hasEndpoint(cat, region, availability, req.types) {
			missing = append(missing, req.label)
		}
	}

	if len(missing) > 0 {
		return &RegionError{Region: region, MissingServices: missing, Interface: string(availability)}
	}

	return nil
}

func hasEndpoint(cat *tokens.ServiceCatalog, region string, availability gophercloud.Availability, types []string) bool {
	for _, entry := range cat.Entries {
		if !slices.Contains(types, entry.Type) {
			continue
		}

		for _, ep := range entry.Endpoints {
			if endpointInRegion(ep, region) && gophercloud.Availability(ep.Interface) == availability {
				return true
			}
		}
	}

	return false
}

// buildCatalog keeps the served regions (in the order given) with their services sorted by
// type and name and their endpoints sorted by interface.
func buildCatalog(cat *tokens.ServiceCatalog, regions []string) []CatalogRegion {
	out := make([]CatalogRegion, 0, len(regions))

	for _, region := range regions {
		cr := CatalogRegion{Name: region}

		for _, entry := range cat.Entries {
			var endpoints []CatalogEndpoint

			for _, ep := range entry.Endpoints {
				if endpointInRegion(ep, region) {
					endpoints = append(endpoints, CatalogEndpoint{Interface: ep.Interface, URL: ep.URL})
				}
			}

			if len(endpoints) == 0 {
				continue
			}

			slices.SortFunc(endpoints, func(a, b CatalogEndpoint) int {
				return cmp.Or(cmp.Compare(a.Interface, b.Interface), cmp.Compare(a.URL, b.URL))
			})

			cr.Services = append(cr.Services, CatalogService{Type: entry.Type, Name: entry.Name, Endpoints: endpoints})
		}

		slices.SortFunc(cr.Services, func(a, b CatalogService) int {
			return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
		})

		out = append(out, cr)
	}

	return out
}

// serviceMatcher names the catalog service type a request URL belongs to, for logging.
type serviceMatcher struct {
	prefixes []servicePrefix // longest first
}

type servicePrefix struct {
	prefix  string // scheme://host[:port]/path without trailing slash, lower-case scheme and host
	service string
	region  string // "" for the auth URL (Keystone is global)
}

// newServiceMatcher indexes every catalog endpoint URL (and its unversioned base, which
// version discovery requests) plus the auth URL's base as "identity".
func newServiceMatcher(authURL string, cat *tokens.ServiceCatalog) *serviceMatcher {
	m := &serviceMatcher{}
	seen := map[string]bool{}

	add := func(raw, service, region string) {
		p, ok := urlPrefix(raw)
		if !ok || seen[p] {
			return
		}

		seen[p] = true
		m.prefixes = append(m.prefixes, servicePrefix{prefix: p, service: service, region: region})
	}

	if cat != nil {
		// Exact endpoints first so that they win over another service's base on a tie.
		for _, entry := range cat.Entries {
			for _, ep := range entry.Endpoints {
				add(ep.URL, entry.Type, ep.Region)
			}
		}

		for _, entry := range cat.Entries {
			for _, ep := range entry.Endpoints {
				if base, err := utils.BaseEndpoint(ep.URL); err == nil {
					add(base, entry.Type, ep.Region)
				}
			}
		}
	}

	add(authURL, "identity", "")

	if base, err := utils.BaseEndpoint(authURL); err == nil {
		add(base, "identity", "")
	}

	slices.SortStableFunc(m.prefixes, func(a, b servicePrefix) int {
		return cmp.Compare(len(b.prefix), len(a.prefix))
	})

	return m
}

// match returns the service type of u, or "unknown".
func (m *serviceMatcher) match(u *url.URL) string {
	service, _ := m.matchRegion(u)

	return service
}

// matchRegion returns the service type of u, or "unknown", and the catalog region of the
// endpoint ("" for Keystone and for unknown URLs).
func (m *serviceMatcher) matchRegion(u *url.URL) (service, region string) {
	if m == nil || u == nil {
		return "unknown", ""
	}

	key := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/")

	for _, p := range m.prefixes {
		if key == p.prefix || strings.HasPrefix(key, p.prefix+"/") {
			return p.service, p.region
		}
	}

	return "unknown", ""
}

func urlPrefix(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}

	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/"), true
}
