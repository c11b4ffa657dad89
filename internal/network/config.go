package network

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
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

	mu        sync.Mutex
	externals map[string][]ExternalNetwork // by region
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

// ExternalNetworks lists the external networks of region that the selector admits, in
// Neutron's order, through sc (a Neutron client of that region). The list is read once per
// region and provider process; failures are not remembered.
func (c *Config) ExternalNetworks(ctx context.Context, sc *gophercloud.ServiceClient, region string) ([]ExternalNetwork, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if cached, ok := c.externals[region]; ok {
		return slices.Clone(cached), nil
	}

	all, err := list[neutronNetwork](ctx, neutron{sc}, collNetworks, url.Values{"router:external": {"true"}})
	if err != nil {
		return nil, fmt.Errorf("listing the external networks of region %s: %w", region, err)
	}

	var out []ExternalNetwork

	for _, n := range all {
		if !n.External || !c.Selector.Admits(n.ID, n.Tags) {
			continue
		}

		out = append(out, ExternalNetwork{
			ID: n.ID, Name: n.Name, Description: n.Description, Status: n.Status,
			Tags: slices.Clone(n.Tags), SubnetIDs: slices.Clone(n.Subnets),
		})
	}

	if c.externals == nil {
		c.externals = map[string][]ExternalNetwork{}
	}

	c.externals[region] = out

	return slices.Clone(out), nil
}

// DefaultExternalNetwork is the external network routers of region use when none is given:
// the first one the selector admits.
func (c *Config) DefaultExternalNetwork(ctx context.Context, sc *gophercloud.ServiceClient, region string) (string, error) {
	nets, err := c.ExternalNetworks(ctx, sc, region)
	if err != nil {
		return "", err
	}

	if len(nets) == 0 {
		return "", fmt.Errorf("region %s has no external network that the provider's external_networks selector admits (%s)",
			region, c.Selector)
	}

	return nets[0].ID, nil
}
