package loadbalancer

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// List lists the load balancers of identity identityID in region (the unikorn_loadbalancer
// list resource): its Octavia load balancers named lb-<name>.
func List(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := t.LoadBalancer()
	if err != nil {
		return nil, err
	}

	all, err := cloud.ListAll(ctx, loadbalancers.List(sc, loadbalancers.ListOpts{ProjectID: identityID}),
		loadbalancers.ExtractLoadBalancers, "the load balancers of "+t.String())

	return cloud.Listed(all, identityID, naming.LoadBalancerPrefix,
		func(lb loadbalancers.LoadBalancer) string { return lb.Name }, func(lb loadbalancers.LoadBalancer) string { return lb.ID }), err
}
