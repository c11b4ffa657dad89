package loadbalancer

import (
	"context"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// List lists the load balancers of identity identityID in region (the unikorn_loadbalancer
// list resource): its Octavia load balancers named lb-<name>, listed as the run's listing of
// load balancers lists them.
func List(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, s, err := privileged(ctx, c, identityID, region)
	if err != nil {
		return nil, err
	}

	return s.located(ctx, t)
}

// privileged binds the core to identity identityID's project in region in the privileged
// scope: for reads that need no trust (list resources, plan-time checks).
func privileged(ctx context.Context, c *cloud.Client, identityID, region string) (*cloud.Tenant, *Service, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, nil, err
	}

	s, err := NewService(t, false)

	return t, s, err
}

// located are the load balancers of t named lb-<name>, as the run's listing lists them.
func (s *Service) located(ctx context.Context, t *cloud.Tenant) ([]cloud.Located, error) {
	return s.loadBalancerListing().Located(ctx, t, naming.LoadBalancerPrefix,
		func(lb loadbalancers.LoadBalancer) string { return lb.Name }, func(lb loadbalancers.LoadBalancer) string { return lb.ID })
}

// ListMembers lists the unikorn_loadbalancer_members of identity identityID in region (their
// list resource): the pools of its load balancers that carry naming.MembersHeldTag, or whose
// members do (the members of each pool that leaves them to someone else are listed), each as
// `<loadbalancer_id>/<listener>`.
func ListMembers(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, s, err := privileged(ctx, c, identityID, region)
	if err != nil {
		return nil, err
	}

	lbs, err := s.located(ctx, t)
	if err != nil {
		return nil, err
	}

	names := map[string]string{} // load balancer ID → user-given name
	for _, lb := range lbs {
		names[lb.ID] = lb.Name
	}

	// Every pool of the project in one listing, from Octavia (not the run's listing: a list
	// resource asks once, and must see what this process wrote).
	ps, err := s.poolListing().List(ctx, t)
	if err != nil {
		return nil, err
	}

	var out []cloud.Located

	for _, p := range ps {
		for _, lb := range p.Loadbalancers {
			name, ok := names[lb.ID]
			if !ok {
				continue
			}

			listener, kind, ok := naming.LoadBalancerChild(name, p.Name)
			if !ok || kind != naming.ChildPool || removed(p.ProvisioningStatus) {
				continue
			}

			var o ObservedListener
			if o.setMemberTags(p.Tags); o.MembersExternal && !o.MembersHeld {
				if err := s.readPoolMembers(ctx, p.ID, &o); err != nil {
					return nil, err
				}
			}

			if o.held() {
				out = append(out, cloud.Located{ID: membersID(lb.ID, listener), ProjectID: t.ProjectID()})
			}
		}
	}

	slices.SortFunc(out, func(a, b cloud.Located) int { return strings.Compare(a.ID, b.ID) })

	return out, nil
}
