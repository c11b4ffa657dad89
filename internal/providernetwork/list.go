package providernetwork

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listed lists the networks of region in the provider's own project, where
// unikorn_provider_network makes them (the unikorn_provider_network list resource).
func Listed(ctx context.Context, c *cloud.Client, region string) ([]cloud.Located, error) {
	neutron, err := c.Base().Network(region)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, networks.List(neutron, networks.ListOpts{ProjectID: c.Base().ProjectID()}), networks.ExtractNetworks,
		"the networks of "+region,
		func(n networks.Network) (cloud.Located, bool) { return cloud.Located{ID: n.ID, Name: n.Name}, true })
}
