package flavor

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listed lists the flavors of region, public and private (the unikorn_flavor list resource).
func Listed(ctx context.Context, c *cloud.Client, region string) ([]cloud.Located, error) {
	compute, err := c.Base().Compute(region)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, flavors.ListDetail(compute, flavors.ListOpts{AccessType: flavors.AllAccess}), flavors.ExtractFlavors,
		"the flavors of "+region,
		func(f flavors.Flavor) (cloud.Located, bool) { return cloud.Located{ID: f.ID, Name: f.Name}, true })
}
