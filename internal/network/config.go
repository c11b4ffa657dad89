package network

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// ExternalNetworkSelector admits external networks as Unikorn's region service does: when IDs
// is set, a network must be one of them; when Tags is set, it must carry every one of them.
// The zero selector admits every external network.
type ExternalNetworkSelector struct {
	IDs  []string
	Tags []string
}

// Admits tells whether the external network with id and tags passes the selector.
func (s ExternalNetworkSelector) Admits(id string, tags []string) bool {
	if len(s.IDs) > 0 && !slices.Contains(s.IDs, id) {
		return false
	}

	for _, tag := range s.Tags {
		if !slices.Contains(tags, tag) {
			return false
		}
	}

	return true
}

// String describes the selector for messages.
func (s ExternalNetworkSelector) String() string {
	var parts []string

	if len(s.IDs) > 0 {
		parts = append(parts, "ids "+strings.Join(s.IDs, ", "))
	}

	if len(s.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(s.Tags, ", "))
	}

	if len(parts) == 0 {
		return "any external network"
	}

	return strings.Join(parts, "; ")
}

// VLANRange is an inclusive range of VLAN IDs.
type VLANRange struct {
	Start int
	End   int
}

func (r VLANRange) String() string {
	if r.Start == r.End {
		return fmt.Sprint(r.Start)
	}

	return fmt.Sprintf("%d-%d", r.Start, r.End)
}

// ProviderNetwork makes every network a VLAN provider network on PhysicalNetwork, with a
// segmentation ID from VLANRanges.
type ProviderNetwork struct {
	PhysicalNetwork string
	VLANRanges      []VLANRange
}

// Config is the provider-wide configuration of the network package, shared by every network
// resource and data source of a provider process.
type Config struct {
	// Selector chooses the external network of routers (and what the
	// unikorn_external_networks data source shows).
	Selector ExternalNetworkSelector
	// ProviderNetwork, when set, makes networks VLAN provider networks.
	ProviderNetwork *ProviderNetwork

	// externals are every external network of a region (the selector applies on the way
	// out), and externalSubnets their subnets: each listed once per region and provider
	// process, for the routers' default and for the plan-time overlap check.
	externals       cloud.OnceCache[string, []ExternalNetwork]
	externalSubnets cloud.OnceCache[string, []ExternalSubnet]
}

// NewConfig builds a Config.
func NewConfig(selector ExternalNetworkSelector, providerNetwork *ProviderNetwork) *Config {
	return &Config{Selector: selector, ProviderNetwork: providerNetwork}
}

// ExternalNetwork is an external (router:external) network of a region.
type ExternalNetwork struct {
	ID          string
	Name        string
	Description string
	Status      string
	Tags        []string
	SubnetIDs   []string
}

// ExternalSubnet is a subnet of an external network.
type ExternalSubnet struct {
	ID        string
	NetworkID string
	CIDR      netip.Prefix
}

// allExternalNetworks lists every external network of region through sc (a Neutron client of
// that region), once per region and provider process; failures are not remembered.
func (c *Config) allExternalNetworks(ctx context.Context, sc *gophercloud.ServiceClient, region string) ([]ExternalNetwork, error) {
	return c.externals.Get(ctx, region, func(ctx context.Context) ([]ExternalNetwork, error) {
		yes := true

		all, err := listNetworks(ctx, sc, external.ListOptsExt{ListOptsBuilder: networks.ListOpts{}, External: &yes})
		if err != nil {
			return nil, fmt.Errorf("listing the external networks of region %s: %w", region, err)
		}

		out := []ExternalNetwork{}

		for _, n := range all {
			if !n.External { // post-filter: a cloud that ignores the filter must not widen the choice
				continue
			}

			out = append(out, ExternalNetwork{
				ID: n.ID, Name: n.Name, Description: n.Description, Status: n.Status,
				Tags: slices.Clone(n.Tags), SubnetIDs: slices.Clone(n.Subnets),
			})
		}

		return out, nil
	})
}

// ExternalNetworks lists the external networks of region that the selector admits, in
// Neutron's order, through sc (a Neutron client of that region). The list is read once per
// region and provider process; failures are not remembered.
func (c *Config) ExternalNetworks(ctx context.Context, sc *gophercloud.ServiceClient, region string) ([]ExternalNetwork, error) {
	all, err := c.allExternalNetworks(ctx, sc, region)
	if err != nil {
		return nil, err
	}

	var out []ExternalNetwork

	for _, n := range all {
		if c.Selector.Admits(n.ID, n.Tags) {
			n.Tags, n.SubnetIDs = slices.Clone(n.Tags), slices.Clone(n.SubnetIDs)
			out = append(out, n)
		}
	}

	return out, nil
}

// NoExternalNetworkError says that no external network of a region passes the selector.
type NoExternalNetworkError struct {
	Region   string
	Selector ExternalNetworkSelector
}

func (e *NoExternalNetworkError) Error() string {
	return fmt.Sprintf("region %s has no external network that the provider's external_networks selector admits (%s)",
		e.Region, e.Selector)
}

// DefaultExternalNetwork is the external network routers of region use when none is given:
// the first one the selector admits.
func (c *Config) DefaultExternalNetwork(ctx context.Context, sc *gophercloud.ServiceClient, region string) (string, error) {
	nets, err := c.ExternalNetworks(ctx, sc, region)
	if err != nil {
		return "", err
	}

	if len(nets) == 0 {
		return "", &NoExternalNetworkError{Region: region, Selector: c.Selector}
	}

	return nets[0].ID, nil
}

// subnetsOfExternals lists the subnets of every external network of region in one request,
// once per region and provider process.
func (c *Config) subnetsOfExternals(ctx context.Context, sc *gophercloud.ServiceClient, region string) ([]ExternalSubnet, error) {
	externals, err := c.allExternalNetworks(ctx, sc, region)
	if err != nil {
		return nil, err
	}

	return c.externalSubnets.Get(ctx, region, func(ctx context.Context) ([]ExternalSubnet, error) {
		out := []ExternalSubnet{}
		if len(externals) == 0 {
			return out, nil
		}

		q := query{}
		for _, n := range externals {
			q["network_id"] = append(q["network_id"], n.ID)
		}

		all, err := listAll(ctx, subnets.List(sc, q), subnets.ExtractSubnets)
		if err != nil {
			return nil, fmt.Errorf("listing the subnets of the external networks of region %s: %w", region, err)
		}

		for _, s := range all {
			p, err := netip.ParsePrefix(s.CIDR)
			if err != nil || !slices.Contains(q["network_id"], s.NetworkID) {
				continue
			}

			out = append(out, ExternalSubnet{ID: s.ID, NetworkID: s.NetworkID, CIDR: p.Masked()})
		}

		return out, nil
	})
}

// OverlapError says that a network's prefix overlaps a subnet of the external network its
// router routes through: Neutron cannot attach the router to both, and the network could
// never reach the outside.
type OverlapError struct {
	CIDR              netip.Prefix
	ExternalNetworkID string
	Subnet            ExternalSubnet
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("cidr %s overlaps %s, the subnet %s of the external network %s that the network's router routes "+
		"through: choose a prefix outside %s", e.CIDR, e.Subnet.CIDR, e.Subnet.ID, e.ExternalNetworkID, e.Subnet.CIDR)
}

// CheckExternalOverlap fails with an *OverlapError when cidr overlaps a subnet of the
// external network externalID of region ("" = the default the selector chooses, which fails
// with a *NoExternalNetworkError when there is none). The lookups go through the per-process
// caches, so that a plan of many networks lists the external networks once.
func (c *Config) CheckExternalOverlap(ctx context.Context, sc *gophercloud.ServiceClient, region string, cidr netip.Prefix,
	externalID string,
) error {
	if externalID == "" {
		id, err := c.DefaultExternalNetwork(ctx, sc, region)
		if err != nil {
			return err
		}

		externalID = id
	}

	all, err := c.subnetsOfExternals(ctx, sc, region)
	if err != nil {
		return err
	}

	return overlap(cidr, externalID, all)
}

// overlap is the pure part of CheckExternalOverlap.
func overlap(cidr netip.Prefix, externalID string, subnets []ExternalSubnet) error {
	for _, s := range subnets {
		if s.NetworkID == externalID && s.CIDR.Overlaps(cidr) {
			return &OverlapError{CIDR: cidr, ExternalNetworkID: externalID, Subnet: s}
		}
	}

	return nil
}
