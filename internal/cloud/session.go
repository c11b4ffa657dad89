package cloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
)

// Microversions the provider is written against. Every Nova call uses 2.88, which carries
// what the provider relies on: remote consoles (2.6), the image ID in a create-image answer
// (2.45), a server's flavor by name (2.47), hypervisors identified by their resource provider's
// UUID (2.53, the pinned servers' Placement preflight), the keypair and user data of a rebuild
// (2.54, 2.57), extra specs in the flavor list (2.61) and a create's compute host (2.74,
// pinned servers).
const (
	ComputeMicroversion      = "2.88"
	LoadBalancerMicroversion = "2.22" // PROXYV2 pools
)

// Session is one authenticated credential scope. Its token is shared by every caller of the
// scope and renewed by gophercloud (ahead of expiry, and once on a 401). Service clients are
// cached per region and service; each call returns a copy, so a caller may change its copy
// (e.g. the microversion) without racing other callers.
type Session struct {
	client    *Client
	kind      scopeKind
	projectID string
	provider  *gophercloud.ProviderClient
	// domainID and roles are what the manager scope's token says: the managed domain's ID and
	// the service user's roles on it. An identity scope's token names its project and the
	// project's domain, kept in projectName, domainID and domainName (identityByToken).
	projectName string
	domainID    string
	domainName  string
	roles       []string

	services OnceCache[serviceKey, *gophercloud.ServiceClient]
}

type serviceKey struct {
	region  string
	service string
}

// ProjectID is the project of the scope; "" for the Manager scope.
func (s *Session) ProjectID() string {
	if s.kind == scopeManager {
		return ""
	}

	return s.projectID
}

// String names the scope without its token.
func (s *Session) String() string {
	return fmt.Sprintf("cloud.Session{scope:%s project:%q}", s.kind, s.projectID)
}

// GoString keeps %#v from printing the token.
func (s *Session) GoString() string {
	return s.String()
}

// Keystone is the Keystone v3 client (global). It uses the catalog's identity endpoint of the
// configured interface, or the auth URL when the catalog has none.
func (s *Session) Keystone() (*gophercloud.ServiceClient, error) {
	return s.service("", "identity", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		sc, err := openstack.NewIdentityV3(s.provider, gophercloud.EndpointOpts{Availability: eo.Availability})

		var notFound *gophercloud.ErrEndpointNotFound
		if errors.As(err, &notFound) {
			return openstack.NewIdentityV3(s.provider, gophercloud.EndpointOpts{})
		}

		return sc, err
	})
}

// Compute is the Nova client of region ("" = default), pinned to ComputeMicroversion.
func (s *Session) Compute(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "compute", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return pinned(openstack.NewComputeV2(s.provider, eo))(ComputeMicroversion)
	})
}

// Network is the Neutron client of region ("" = default).
func (s *Session) Network(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "network", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return openstack.NewNetworkV2(s.provider, eo)
	})
}

// Image is the Glance client of region ("" = default).
func (s *Session) Image(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "image", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return openstack.NewImageV2(s.provider, eo)
	})
}

// LoadBalancer is the Octavia client of region ("" = default), pinned to
// LoadBalancerMicroversion (sent as "OpenStack-API-Version: load-balancer 2.22").
func (s *Session) LoadBalancer(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "load-balancer", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return pinned(openstack.NewLoadBalancerV2(s.provider, eo))(LoadBalancerMicroversion)
	})
}

// BlockStorage is the Cinder v3 client of region ("" = default); the catalog type may be
// block-storage, volumev3 or volume.
func (s *Session) BlockStorage(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "block-storage", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return openstack.NewBlockStorageV3(s.provider, eo)
	})
}

// Placement is the Placement client of region ("" = default): resource providers, their
// inventories and usages (the pinned servers' preflight).
func (s *Session) Placement(region string) (*gophercloud.ServiceClient, error) {
	return s.regional(region, "placement", func(eo gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error) {
		return openstack.NewPlacementV1(s.provider, eo)
	})
}

// pinned sets the microversion of a client just built (when it was built).
func pinned(sc *gophercloud.ServiceClient, err error) func(microversion string) (*gophercloud.ServiceClient, error) {
	return func(microversion string) (*gophercloud.ServiceClient, error) {
		if err == nil {
			sc.Microversion = microversion
		}

		return sc, err
	}
}

// regional resolves region and returns the cached client of service there.
func (s *Session) regional(region, service string, build func(gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error)) (*gophercloud.ServiceClient, error) {
	resolved, err := s.client.sessionRegion(region)
	if err != nil {
		return nil, err
	}

	return s.service(resolved, service, build)
}

// service builds (once) and copies the client of service in region.
func (s *Session) service(region, service string, build func(gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error)) (*gophercloud.ServiceClient, error) {
	key := serviceKey{region: region, service: service}

	// Building may ask the endpoint for its versions; gophercloud does that without a context.
	sc, err := s.services.Get(context.Background(), key, func(context.Context) (*gophercloud.ServiceClient, error) {
		sc, err := build(gophercloud.EndpointOpts{Region: region, Availability: s.client.settings.availability})
		if err != nil {
			where := ""
			if region != "" {
				where = " in region " + region
			}

			return nil, fmt.Errorf("%s endpoint%s (%s interface) for the %s scope: %w",
				service, where, s.client.settings.availability, s.kind, err)
		}

		return sc, nil
	})
	if err != nil {
		return nil, err
	}

	cp := *sc
	if sc.MoreHeaders != nil {
		cp.MoreHeaders = make(map[string]string, len(sc.MoreHeaders))
		for k, v := range sc.MoreHeaders {
			cp.MoreHeaders[k] = v
		}
	}

	return &cp, nil
}
