package loadbalancer

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// The load balancer's part of the per-run listings (cloud.Listing; issue 17): a refresh of the
// identity's load balancers reads its load balancers, listeners, pools and health monitors
// once per kind, and each pool's members in its member list (the one read that names their
// weights; Octavia cannot list the members of several pools at once). Any change of a load
// balancer records its tenant's kinds as written (wroteAll), so that what the change did is
// read from Octavia, never from a listing taken before.

// The kinds of the listings, for cloud.Tenant.Wrote.
const (
	loadBalancerKind = "load balancer"
	listenerKind     = "listener"
	poolKind         = "pool"
	monitorKind      = "health monitor"
)

// lbKey finds the listeners and pools of a load balancer in their listings; anyMonitor finds
// every health monitor of the project (Octavia cannot filter them by load balancer).
func lbKey(id string) string { return "lb:" + id }

const anyMonitor = "*"

// The listings read through the service's own clients (so that they are counted and logged
// like its other requests), filtered to its project.

func (s *Service) loadBalancerListing() cloud.Listing[loadbalancers.LoadBalancer] {
	return cloud.Listing[loadbalancers.LoadBalancer]{
		Kind: loadBalancerKind,
		List: func(ctx context.Context, _ *cloud.Tenant) ([]loadbalancers.LoadBalancer, error) {
			return cloud.ListAll(ctx, loadbalancers.List(s.Octavia, loadbalancers.ListOpts{ProjectID: s.ProjectID}),
				loadbalancers.ExtractLoadBalancers, "the load balancers of project "+s.ProjectID)
		},
		Keys: func(lb loadbalancers.LoadBalancer) []string { return []string{lb.ID, lb.Name} },
	}
}

func (s *Service) listenerListing() cloud.Listing[listeners.Listener] {
	// Oldest first: each load balancer's listeners in the order the provider made them.
	return childListing(listenerKind, func(ctx context.Context) ([]listeners.Listener, error) {
		return cloud.ListAll(ctx, listeners.List(s.Octavia, listeners.ListOpts{ProjectID: s.ProjectID, SortKey: "created_at", SortDir: "asc"}),
			listeners.ExtractListeners, "the listeners of project "+s.ProjectID)
	}, func(l listeners.Listener) (string, []string) {
		ids := make([]string, len(l.Loadbalancers))
		for i, lb := range l.Loadbalancers {
			ids[i] = lb.ID
		}

		return l.ID, ids
	})
}

func (s *Service) poolListing() cloud.Listing[pools.Pool] {
	return childListing(poolKind, func(ctx context.Context) ([]pools.Pool, error) {
		return cloud.ListAll(ctx, pools.List(s.Octavia, pools.ListOpts{ProjectID: s.ProjectID}), pools.ExtractPools,
			"the pools of project "+s.ProjectID)
	}, func(p pools.Pool) (string, []string) {
		ids := make([]string, len(p.Loadbalancers))
		for i, lb := range p.Loadbalancers {
			ids[i] = lb.ID
		}

		return p.ID, ids
	})
}

// childListing is the listing of a kind of load balancer child: found by its ID and by the IDs
// of its load balancers (lbKey), which ids tells.
func childListing[T any](kind string, list func(ctx context.Context) ([]T, error), ids func(T) (string, []string)) cloud.Listing[T] {
	return cloud.Listing[T]{
		Kind: kind,
		List: func(ctx context.Context, _ *cloud.Tenant) ([]T, error) { return list(ctx) },
		Keys: func(obj T) []string {
			id, lbs := ids(obj)
			keys := []string{id}

			for _, lb := range lbs {
				keys = append(keys, lbKey(lb))
			}

			return keys
		},
	}
}

func (s *Service) monitorListing() cloud.Listing[monitors.Monitor] {
	return cloud.Listing[monitors.Monitor]{
		Kind: monitorKind,
		List: func(ctx context.Context, _ *cloud.Tenant) ([]monitors.Monitor, error) {
			return cloud.ListAll(ctx, monitors.List(s.Octavia, monitors.ListOpts{ProjectID: s.ProjectID}), monitors.ExtractMonitors,
				"the health monitors of project "+s.ProjectID)
		},
		Keys: func(m monitors.Monitor) []string { return []string{m.ID, anyMonitor} },
	}
}

// listed answers key from listing, or (when it cannot) from api.
func listed[T any](ctx context.Context, s *Service, listing cloud.Listing[T], key string, api func() ([]T, error)) ([]T, error) {
	all, ok, err := listing.Find(ctx, s.Tenant, key)
	if err != nil || ok {
		return all, err
	}

	return api()
}

// wroteAll records, before a change of a load balancer, that the tenant's load balancers and
// their children are written (a VIP port on networkID too, when one is made: "" for none).
func (s *Service) wroteAll(networkID string) {
	for _, kind := range []string{loadBalancerKind, listenerKind, poolKind, monitorKind} {
		s.Tenant.WroteAll(kind)
	}

	if networkID != "" {
		s.Tenant.Wrote(network.PortKind, network.OnNetworkKey(networkID))
	}
}
