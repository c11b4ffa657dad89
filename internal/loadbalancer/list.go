package loadbalancer

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// List lists the load balancers of identity identityID in region (the unikorn_loadbalancer
// list resource): its Octavia load balancers named lb-<name>, listed as the run's listing of
// load balancers lists them.
func List(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	s, err := NewService(t, false)
	if err != nil {
		return nil, err
	}

	return s.loadBalancerListing().Located(ctx, t, naming.LoadBalancerPrefix,
		func(lb loadbalancers.LoadBalancer) string { return lb.Name }, func(lb loadbalancers.LoadBalancer) string { return lb.ID })
}
