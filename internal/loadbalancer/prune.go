package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// preflight finds, before any change, what converge could only fail on half-way.
func preflight(spec Spec, t *Topology) error {
	var errs []error

	wanted := map[string]bool{}
	for _, want := range spec.Listeners {
		wanted[want.Name] = true
	}

	for _, o := range t.Listeners {
		if !wanted[o.Name] && o.held() {
			errs = append(errs, &HeldMembersError{LoadBalancer: spec.Name, Listener: o.Name, PoolID: o.PoolID, Pruned: true})
		}
	}

	for _, want := range spec.Listeners {
		o, ok := t.Listener(want.Name)
		if !ok {
			continue
		}

		if !want.MembersElsewhere && o.held() {
			errs = append(errs, &HeldMembersError{LoadBalancer: spec.Name, Listener: want.Name, PoolID: o.PoolID})
		}

		if o.ListenerID != "" {
			if o.Protocol != want.Protocol {
				errs = append(errs, &ImmutableError{LoadBalancer: spec.Name, Listener: want.Name, Field: "protocol", Have: o.Protocol, Want: want.Protocol})
			}

			if o.Port != want.Port {
				errs = append(errs, &ImmutableError{LoadBalancer: spec.Name, Listener: want.Name, Field: "port", Have: fmt.Sprint(o.Port), Want: fmt.Sprint(want.Port)})
			}

			if o.PoolID != "" && o.Protocol == want.Protocol && o.PoolProtocol != want.PoolProtocol() {
				errs = append(errs, &ImmutableError{LoadBalancer: spec.Name, Listener: want.Name, Field: "proxy_protocol_v2",
					Have: fmt.Sprintf("%t (pool protocol %s)", o.ProxyProtocolV2(), o.PoolProtocol), Want: fmt.Sprint(want.ProxyProtocolV2)})
			}
		}

		for _, f := range t.Foreign {
			if l4(f.Protocol) == l4(want.Protocol) && f.Port == want.Port {
				errs = append(errs, fmt.Errorf("%s: listener %q (%s) of load balancer %s, not made by this provider, "+
					"already uses %s port %d", describeListener(spec.Name, want.Name), f.Name, f.ID, t.ID, f.Protocol, f.Port))
			}
		}
	}

	return errors.Join(errs...)
}

// l4 is the transport protocol under an Octavia listener protocol.
func l4(protocol string) string {
	switch protocol {
	case "UDP", "SCTP":
		return protocol
	}

	return "TCP"
}

// prune deletes what the configuration no longer implies: the listeners and pools of
// listeners no longer configured (a pool's deletion takes its members and monitor along),
// monitors of listeners configured without one (or of the wrong type), and pools left
// without their listener whose protocol no longer fits. byName is updated as it goes.
func (s *Service) prune(ctx context.Context, st *stepper, spec Spec, byName map[string]*ObservedListener) error {
	wanted := map[string]ListenerSpec{}
	for _, l := range spec.Listeners {
		wanted[l.Name] = l
	}

	for _, name := range slices.Sorted(maps.Keys(byName)) {
		o := byName[name]
		want, ok := wanted[name]

		if !ok {
			if o.ListenerID != "" {
				if err := st.do(ctx, s.deleteListener(naming.Listener(spec.Name, name), o.ListenerID)); err != nil {
					return err
				}

				o.ListenerID = ""
			}

			if o.PoolID != "" {
				if err := st.do(ctx, s.deletePool(naming.Pool(spec.Name, name), o.PoolID)); err != nil {
					return err
				}
			}

			delete(byName, name)

			continue
		}

		if o.PoolID != "" && o.ListenerID == "" && o.PoolProtocol != want.PoolProtocol() {
			if err := st.do(ctx, s.deletePool(naming.Pool(spec.Name, name)+" (protocol "+o.PoolProtocol+")", o.PoolID)); err != nil {
				return err
			}

			o.PoolID, o.PoolProtocol, o.PoolStatus, o.Members, o.MemberIDs, o.PoolMark = "", "", "", nil, nil, naming.Mark{}
			o.forgetMonitor()
		}

		if o.MonitorID != "" && (want.Monitor == nil || o.MonitorType != want.MonitorType()) {
			if err := st.do(ctx, s.deleteMonitor(orNone(o.MonitorName), o.MonitorID)); err != nil {
				return err
			}

			o.forgetMonitor()
		}
	}

	return nil
}

// deleteListener, deletePool and deleteMonitor are the deletes of prune.
func (s *Service) deleteListener(what, id string) change {
	return deleteChild("listener "+what, func(ctx context.Context) error { return listeners.Delete(ctx, s.Octavia, id).ExtractErr() },
		func(ctx context.Context) error { return listeners.Get(ctx, s.Octavia, id).Err })
}

func (s *Service) deletePool(what, id string) change {
	return deleteChild("pool "+what, func(ctx context.Context) error { return pools.Delete(ctx, s.Octavia, id).ExtractErr() },
		func(ctx context.Context) error { return pools.Get(ctx, s.Octavia, id).Err })
}

func (s *Service) deleteMonitor(what, id string) change {
	return deleteChild("health monitor "+what, func(ctx context.Context) error { return monitors.Delete(ctx, s.Octavia, id).ExtractErr() },
		func(ctx context.Context) error { return monitors.Get(ctx, s.Octavia, id).Err })
}

func (o *ObservedListener) forgetMonitor() {
	o.MonitorID, o.MonitorName, o.MonitorType, o.MonitorStatus, o.Monitor, o.MonitorMark = "", "", "", "", nil, naming.Mark{}
}
