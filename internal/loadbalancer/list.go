package loadbalancer

import (
	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// LoadBalancers lists the load balancers of an identity (the unikorn_loadbalancer list
// resource): its Octavia load balancers named lb-<name>.
var LoadBalancers = cloud.TenantListing[loadbalancers.LoadBalancer]{
	What: "load balancers", Service: (*cloud.Tenant).LoadBalancer, Prefix: naming.LoadBalancerPrefix,
	List: func(sc *gophercloud.ServiceClient, projectID string) pagination.Pager {
		return loadbalancers.List(sc, loadbalancers.ListOpts{ProjectID: projectID})
	},
	Extract: loadbalancers.ExtractLoadBalancers,
	Name:    func(lb loadbalancers.LoadBalancer) string { return lb.Name },
	ID:      func(lb loadbalancers.LoadBalancer) string { return lb.ID },
}
