package loadbalancer

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds Octavia's fully-populated single-call create, which the provider uses only
// when it opts in (Service.SingleCallCreate: broken on several releases and providers).

// graphListener is one listener of the single-call create, with its pool, members and
// monitor inside.
func graphListener(name, subnetID string, l ListenerSpec) listeners.CreateOpts {
	ms := l.idleTimeoutMS()
	opts := listeners.CreateOpts{
		Name:              naming.Listener(name, l.Name),
		Protocol:          listeners.Protocol(l.Protocol),
		ProtocolPort:      l.Port,
		AllowedCIDRs:      cloud.SortedSet(l.AllowedCIDRs),
		TimeoutClientData: ms,
		TimeoutMemberData: ms,
		Tags:              created.Tags(),
		DefaultPool: &pools.CreateOpts{
			Name:     naming.Pool(name, l.Name),
			Protocol: pools.Protocol(l.PoolProtocol()),
			LBMethod: lbMethod,
			Members:  createMembers(subnetID, l.Members),
			Tags:     poolTags(l),
		},
	}

	if m := l.Monitor; m != nil {
		opts.DefaultPool.Monitor = monitors.CreateOpts{
			Name:           naming.Monitor(name, l.Name),
			Type:           l.MonitorType(),
			Delay:          m.Interval,
			Timeout:        m.Timeout,
			MaxRetries:     m.HealthyThreshold,
			MaxRetriesDown: m.UnhealthyThreshold,
			Tags:           created.Tags(),
		}
	}

	return opts
}

// waitTree waits until every object in the load balancer's status tree is ACTIVE (after a
// single-call create, the load balancer is ACTIVE before its children are).
func (s *Service) waitTree(ctx context.Context, id, while string) error {
	_, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending:     []string{StatusPendingUpdate},
		Target:      []string{StatusActive},
		MinInterval: s.pollMin(),
		MaxInterval: s.pollMax(),
	}, func(ctx context.Context) (*loadbalancers.StatusTree, string, string, error) {
		tree, err := s.statusTree(ctx, id)
		if err != nil {
			return nil, "", "", err
		}

		state, detail := treeState(tree)

		return tree, state, detail, nil
	})

	return s.explain(ctx, id, while, err)
}
