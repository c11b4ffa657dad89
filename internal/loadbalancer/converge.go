package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// ImmutableError is a listener whose protocol, port or PROXY protocol in Octavia differs
// from the configuration: Octavia cannot change a listener's protocol or port, nor a pool's
// protocol, so the listener needs a new name. The resource catches this at plan time; the
// core checks again before its first change, so it never fails half-way.
type ImmutableError struct {
	LoadBalancer string // the user-given name
	Listener     string
	Field        string // "protocol", "port", "proxy_protocol_v2"
	Have, Want   string
}

func (e *ImmutableError) Error() string {
	return fmt.Sprintf("%s has %s %s in Octavia, the configuration asks for %s: Octavia cannot change a listener's "+
		"protocol or port, nor its pool's protocol; give the listener a new name (the old listener, pool and monitor "+
		"are then pruned)", describeListener(e.LoadBalancer, e.Listener), e.Field, e.Have, e.Want)
}

// MismatchError is an existing load balancer lb-<name> that cannot be the configured one:
// its VIP is on another network or has another address, which Octavia cannot change.
type MismatchError struct {
	Name, ID, Reason string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("load balancer %s (%s) already exists but %s: delete it, or give the resource another name",
		naming.LoadBalancer(e.Name), e.ID, e.Reason)
}

// Ensure makes load balancer spec.Name exist as spec says and returns its topology as
// Octavia and Neutron report it afterwards.
//
// It looks the load balancer up by knownID (from the state; "" on create), then by its
// deterministic name; otherwise it creates it. One found by name (a create, or an update whose
// recorded load balancer is gone) is adopted only when an interrupted create of a load balancer
// left it (ownership.go): anything else is refused before any write with a *cloud.ExistsError,
// and so is an adopted one holding a listener, pool or monitor this provider did not make.
// onID, when not nil, is called with the load balancer's ID as soon as Octavia returns it (or
// the adopted one passed the rule), before any wait, so that a failed or interrupted apply
// leaves a tracked (tainted) resource. Then it converges the children listener by listener
// (converge), puts or removes the floating IP, reads back what the changes did not answer, and,
// when it made or adopted the load balancer, marks it finished (complete) as its last step.
//
// On error the returned topology is the last one known (nil when none was read).
func (s *Service) Ensure(ctx context.Context, spec Spec, knownID string, onID func(id string)) (*Topology, error) {
	var adopted bool

	top, err := s.ensure(ctx, spec, knownID, onID, &adopted)
	if top != nil {
		top.Adopted = adopted
	}

	return top, err
}

// ensure is Ensure; it sets adopted when it took over a load balancer it found by name.
func (s *Service) ensure(ctx context.Context, spec Spec, knownID string, onID func(id string), adopted *bool) (*Topology, error) {
	if onID == nil {
		onID = func(string) {}
	}

	// Whatever follows may change the tenant's load balancers: read them from Octavia.
	s.wroteAll(spec.NetworkID)

	lb, err := s.locate(ctx, knownID, spec.Name)
	if err != nil {
		return nil, err
	}

	if lb != nil && lb.ProvisioningStatus == StatusPendingDelete {
		// Being deleted (by someone else): let it go, then make a new one.
		if err := s.waitGone(ctx, lb.ID, "waiting for the deletion of "+lb.Name); err != nil {
			return nil, err
		}

		lb = nil
	}

	// A load balancer found by its name, not the recorded one, is taken over only when an
	// interrupted create of a load balancer left it; anything else is refused here, before
	// any write.
	byName := lb != nil && lb.ID != knownID
	if byName {
		if err := s.adopt(*lb); err != nil {
			return nil, err
		}
	}

	// The VIP network is read, and the addresses checked against its subnet, before anything
	// changes; unless the load balancer recorded in the state has its VIP on it already: its
	// subnet is then the VIP subnet, and only addresses it does not hold yet are checked, once
	// its members are read (checkNewAddresses).
	var vip *VIPNetwork

	subnetID := ""
	if onRecordedVIP(spec, knownID, lb) {
		subnetID = lb.VipSubnetID
	} else {
		if vip, err = s.checkedVIP(ctx, spec); err != nil {
			return nil, err
		}

		subnetID = vip.SubnetID
	}

	created := false

	if lb == nil {
		lb, err = s.create(ctx, spec, subnetID)
		if err != nil {
			return nil, err
		}

		created = true
	}

	var t *Topology

	if !created {
		if err := checkAdoptable(spec, subnetID, lb); err != nil {
			return nil, err
		}

		*adopted = byName
	}

	if byName {
		// The parts of an adopted load balancer must be this provider's too, before it is
		// recorded or changed; the memo is the recorded load balancer's, not this one's.
		s.Memo = nil

		if t, err = s.observe(ctx, lb); err != nil {
			return nil, err
		}

		if err := s.checkParts(spec.Name, t); err != nil {
			return nil, err
		}
	}

	onID(lb.ID)

	// The floating IP is Neutron's business and needs only the VIP port, which Octavia makes
	// with the load balancer: it is put on (or taken off) while Octavia works, never in the
	// way of the load balancer's lock.
	fip := &floatingIPJob{}
	defer func() { _ = fip.wait() }() // on an early return: let it end; the error is the earlier one

	if created && lb.VipPortID != "" {
		fip.start(ctx, s, spec, topologyOf(lb))
	}

	if lb.ProvisioningStatus != StatusActive {
		what := "creating " + lb.Name
		if !created {
			what = "waiting for " + lb.Name + " to be ACTIVE"
		}

		if lb, err = s.waitActive(ctx, lb.ID, what); err != nil {
			return nil, err
		}

		if created {
			// The start of the children phase (tools/bench times it from here).
			tflog.Debug(ctx, "Load balancer ACTIVE after create", map[string]any{"loadbalancer_id": lb.ID})
		}

		t = nil // read again below, as it is now
	}

	if created && s.SingleCallCreate {
		if err := s.waitTree(ctx, lb.ID, "creating "+lb.Name+" in one call"); err != nil {
			return nil, err
		}
	}

	switch {
	case created && !s.SingleCallCreate:
		// A load balancer made a moment ago has no children yet.
		t = topologyOf(lb)
	case t == nil:
		if t, err = s.observe(ctx, lb); err != nil {
			return nil, err
		}
	}

	if !fip.started {
		fip.start(ctx, s, spec, t)
	}

	if vip == nil {
		if err := s.checkNewAddresses(ctx, spec, t); err != nil {
			return t, err
		}
	}

	steps, err := s.converge(ctx, spec, subnetID, t)
	if err := errors.Join(err, fip.wait()); err != nil {
		return t, err
	}

	if fip.top != nil {
		t.FloatingIP = fip.top.FloatingIP
	}

	// Every change's answer is in t already, nothing is read again but the statuses of the
	// children a change left PENDING_* in t (the load balancer is ACTIVE again, so they should be
	// too): one status tree, so that one left in ERROR fails the apply. The same tree names the
	// members a batch update made (it answers none), for the memo of the next read. Without a
	// change, t is what Octavia holds.
	if steps > 0 || created {
		if object, _ := t.notActive(); object != "" || !t.membersKnown() {
			if err := s.settle(ctx, t); err != nil {
				return t, err
			}

			if object, state := t.notActive(); object != "" {
				return t, s.statusError(ctx, lb.ID, object, state, "checking "+lb.Name)
			}
		}
	}

	// Every part exists: a create marks the load balancer it made or adopted as finished.
	if created || byName {
		if err := s.complete(ctx, t); err != nil {
			return t, err
		}
	}

	return t, nil
}

// topologyOf is the topology of a load balancer without children.
func topologyOf(lb *loadbalancers.LoadBalancer) *Topology {
	listenerIDs, poolIDs := childIDs(lb)

	return &Topology{
		ID:                 lb.ID,
		Name:               lb.Name,
		ProjectID:          lb.ProjectID,
		VIPAddress:         lb.VipAddress,
		VIPPortID:          lb.VipPortID,
		VIPNetworkID:       lb.VipNetworkID,
		VIPSubnetID:        lb.VipSubnetID,
		ProvisioningStatus: lb.ProvisioningStatus,
		OperatingStatus:    lb.OperatingStatus,
		CreatedAt:          lb.CreatedAt,
		UpdatedAt:          lb.UpdatedAt,
		Tags:               lb.Tags,
		ListenerIDs:        listenerIDs,
		PoolIDs:            poolIDs,
	}
}

// notActive names the first child that is not ACTIVE, and its state; "" when all are.
func (t *Topology) notActive() (object, state string) {
	for _, o := range t.Listeners {
		for _, c := range []struct{ kind, suffix, id, status string }{
			{"listener", naming.ListenerSuffix, o.ListenerID, o.ListenerStatus},
			{"pool", naming.PoolSuffix, o.PoolID, o.PoolStatus},
			{"health monitor", naming.MonitorSuffix, o.MonitorID, o.MonitorStatus},
		} {
			if c.id != "" && c.status != StatusActive {
				return fmt.Sprintf("%s %s-%s%s (%s)", c.kind, t.Name, o.Name, c.suffix, c.id), c.status
			}
		}
	}

	return "", ""
}

// create makes the load balancer: step by step (the VIP only), or in Octavia's single
// fully-populated call when SingleCallCreate is set.
func (s *Service) create(ctx context.Context, spec Spec, subnetID string) (*loadbalancers.LoadBalancer, error) {
	opts := loadbalancers.CreateOpts{
		Name:        naming.LoadBalancer(spec.Name),
		VipSubnetID: subnetID,
		VipAddress:  spec.VIPAddress,
		Tags:        created.Tags(),
	}

	if s.SingleCallCreate {
		for _, l := range spec.Listeners {
			opts.Listeners = append(opts.Listeners, graphListener(spec.Name, subnetID, l))
		}
	}

	lb, err := cloud.Create(ctx, cloud.CreateSpec[loadbalancers.LoadBalancer]{
		Kind: "load balancer",
		Name: opts.Name,
		Create: func(ctx context.Context) (loadbalancers.LoadBalancer, error) {
			return deref(loadbalancers.Create(ctx, s.Octavia, opts).Extract())
		},
		Find: func(ctx context.Context) ([]loadbalancers.LoadBalancer, error) {
			all, err := s.loadBalancersNamed(ctx, opts.Name)
			return slices.DeleteFunc(all, func(lb loadbalancers.LoadBalancer) bool { return lb.ProvisioningStatus == StatusPendingDelete }), err
		},
		ID:     func(lb loadbalancers.LoadBalancer) string { return lb.ID },
		Delete: s.removeTwin,
		// Nothing carried the name when this create looked: what carries it after a lost
		// answer is this create's only when it carries the creation mark, unfinished.
		Adopt: s.adopt,
	})
	if err != nil {
		if isConflict(err) {
			err = &ConflictError{What: "creating load balancer " + opts.Name, Err: err}
		}

		return nil, &CreateError{Name: opts.Name, SubnetID: subnetID, Err: err}
	}

	return &lb, nil
}

// removeTwin deletes load balancer id, which a create has just made next to another one of
// its name, once Octavia lets it (a new load balancer is PENDING_CREATE for a while).
func (s *Service) removeTwin(ctx context.Context, id string) error {
	if _, err := s.waitSettled(ctx, id, "removing the twin load balancer "+id); err != nil {
		return err
	}

	return loadbalancers.Delete(ctx, s.Octavia, id, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
}

// deref is the value of a gophercloud Extract.
func deref[T any](v *T, err error) (T, error) {
	if err != nil || v == nil {
		var zero T
		return zero, err
	}

	return *v, nil
}

// CreateError is a failed load balancer create (cloud.Create already looked for what a lost
// answer made). When the create's context ended first, Octavia may still have made the load
// balancer: Service.Create looks it up by name once more.
type CreateError struct {
	Name, SubnetID string
	Err            error
}

func (e *CreateError) Error() string {
	return fmt.Sprintf("creating load balancer %s on subnet %s: %v", e.Name, e.SubnetID, e.Err)
}

func (e *CreateError) Unwrap() error { return e.Err }

// converge brings the children of t to spec, listener by listener, and updates t as it goes.
// It first checks that no listener needs a change Octavia cannot make (ImmutableError) and
// that no listener the provider did not name holds a port it needs, then prunes the children
// the configuration no longer implies, then creates or updates each listener, its pool, its
// members (one batch) and its monitor, in the order of spec.Listeners.
func (s *Service) converge(ctx context.Context, spec Spec, subnetID string, t *Topology) (steps int, err error) {
	if err := preflight(spec, t); err != nil {
		return 0, err
	}

	st := &stepper{s: s, id: t.ID, ready: t.ProvisioningStatus == StatusActive}
	defer func() {
		steps = st.steps
		if st.last != nil {
			// as the last change left it
			t.UpdatedAt = st.last.UpdatedAt
			t.ListenerIDs, t.PoolIDs = childIDs(st.last)
		}
	}()

	byName := make(map[string]*ObservedListener, len(t.Listeners))
	for _, o := range t.Listeners {
		byName[o.Name] = &o
	}

	// Whatever happens, t ends up describing what was done: the listeners it had that are
	// left, in their order, then the new ones.
	defer func() {
		var out []ObservedListener

		for _, o := range t.Listeners {
			if n, ok := byName[o.Name]; ok {
				out = append(out, *n)
				delete(byName, o.Name)
			}
		}

		for _, want := range spec.Listeners {
			if n, ok := byName[want.Name]; ok {
				out = append(out, *n)
			}
		}

		t.Listeners = out
	}()

	if err := s.prune(ctx, st, spec, byName); err != nil {
		return 0, err
	}

	for _, want := range spec.Listeners {
		o, ok := byName[want.Name]
		if !ok {
			o = &ObservedListener{Name: want.Name}
			byName[want.Name] = o
		}

		if err := s.convergeListener(ctx, st, spec.Name, subnetID, want, o); err != nil {
			return 0, err
		}
	}

	return 0, nil
}

// convergeListener creates or updates one listener, its pool, members (unless want leaves them
// to someone else) and monitor.
func (s *Service) convergeListener(ctx context.Context, st *stepper, name, subnetID string, want ListenerSpec, o *ObservedListener) error {
	if err := s.convergeListenerItself(ctx, st, name, want, o); err != nil {
		return err
	}

	if o.PoolID == "" {
		poolName := naming.Pool(name, want.Name)
		opts := pools.CreateOpts{
			ListenerID: o.ListenerID,
			Name:       poolName,
			Protocol:   pools.Protocol(want.PoolProtocol()),
			LBMethod:   lbMethod,
			Tags:       poolTags(want),
		}

		if err := createChild(ctx, st, childCreate[pools.Pool]{
			kind: "pool", name: poolName, owner: name, tags: func(p pools.Pool) []string { return p.Tags },
			post: func(ctx context.Context) (pools.Pool, error) {
				return deref(pools.Create(ctx, s.Octavia, opts).Extract())
			},
			find: func(ctx context.Context) ([]pools.Pool, error) {
				return named(ctx, pools.List(s.Octavia, pools.ListOpts{LoadbalancerID: st.id, Name: poolName}), pools.ExtractPools, poolName,
					func(p pools.Pool) string { return p.Name }, func(p pools.Pool) bool { return removed(p.ProvisioningStatus) })
			},
			id:     func(p pools.Pool) string { return p.ID },
			delete: func(ctx context.Context, id string) error { return pools.Delete(ctx, s.Octavia, id).ExtractErr() },
			record: func(p pools.Pool) {
				o.PoolID, o.PoolProtocol, o.PoolStatus, o.DefaultPoolID, o.Members, o.MemberIDs = p.ID, p.Protocol, p.ProvisioningStatus, p.ID, nil, nil
				o.PoolMark, o.PoolAlgorithm = naming.MarkOfTags(p.Tags), p.LBMethod
				o.setMemberTags(p.Tags)
			},
		}); err != nil {
			return err
		}
	} else if err := s.convergePoolAlgorithm(ctx, st, naming.Pool(name, want.Name), o); err != nil {
		return err
	}

	if !want.MembersElsewhere {
		if err := s.convergeMembers(ctx, st, naming.Pool(name, want.Name), subnetID, want, o, false); err != nil {
			return err
		}
	}

	if err := s.convergeMemberHolder(ctx, st, naming.Pool(name, want.Name), want, o); err != nil {
		return err
	}

	if want.Monitor == nil {
		return nil
	}

	return s.convergeMonitor(ctx, st, name, want, o)
}

// convergePoolAlgorithm sets the existing pool of o (called pool) back to round robin when it
// balances otherwise (changed out of band), as Unikorn's reconcile of a pool does too.
func (s *Service) convergePoolAlgorithm(ctx context.Context, st *stepper, pool string, o *ObservedListener) error {
	if o.PoolRoundRobin() {
		return nil
	}

	record := func(p *pools.Pool) bool {
		o.PoolAlgorithm, o.PoolStatus = p.LBMethod, p.ProvisioningStatus
		return o.PoolRoundRobin()
	}

	return st.do(ctx, change{
		what: "setting pool " + pool + " back to " + lbMethod + " (it balances " + o.PoolAlgorithm + ")",
		mutate: func(ctx context.Context) error {
			p, err := pools.Update(ctx, s.Octavia, o.PoolID, pools.UpdateOpts{LBMethod: lbMethod}).Extract()
			if err == nil {
				record(p)
			}

			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			p, err := pools.Get(ctx, s.Octavia, o.PoolID).Extract()
			if err != nil {
				return false, err
			}

			return record(p), nil
		},
	})
}

// convergeListenerItself creates or updates the listener of want.
func (s *Service) convergeListenerItself(ctx context.Context, st *stepper, name string, want ListenerSpec, o *ObservedListener) error {
	listenerName := naming.Listener(name, want.Name)

	if o.ListenerID == "" {
		ms := want.idleTimeoutMS()
		opts := listeners.CreateOpts{
			LoadbalancerID:    st.id,
			Name:              listenerName,
			Protocol:          listeners.Protocol(want.Protocol),
			ProtocolPort:      want.Port,
			AllowedCIDRs:      cloud.SortedSet(want.AllowedCIDRs),
			TimeoutClientData: ms,
			TimeoutMemberData: ms,
			DefaultPoolID:     o.PoolID, // a pool left without its listener is linked at once
			Tags:              created.Tags(),
		}

		return createChild(ctx, st, childCreate[listeners.Listener]{
			kind: "listener", name: listenerName, owner: name, tags: func(l listeners.Listener) []string { return l.Tags },
			post: func(ctx context.Context) (listeners.Listener, error) {
				return deref(listeners.Create(ctx, s.Octavia, opts).Extract())
			},
			find: func(ctx context.Context) ([]listeners.Listener, error) {
				return named(ctx, listeners.List(s.Octavia, listeners.ListOpts{LoadbalancerID: st.id, Name: listenerName}),
					listeners.ExtractListeners, listenerName,
					func(l listeners.Listener) string { return l.Name }, func(l listeners.Listener) bool { return removed(l.ProvisioningStatus) })
			},
			id:     func(l listeners.Listener) string { return l.ID },
			delete: func(ctx context.Context, id string) error { return listeners.Delete(ctx, s.Octavia, id).ExtractErr() },
			record: o.setListener,
		})
	}

	update := listenerChanges(want, *o)
	if len(update) == 0 {
		return nil
	}

	if err := st.do(ctx, change{
		what: "updating listener " + listenerName + " (" + strings.Join(slices.Sorted(maps.Keys(update)), ", ") + ")",
		mutate: func(ctx context.Context) error {
			l, err := listeners.Update(ctx, s.Octavia, o.ListenerID, update).Extract()
			if err == nil {
				o.setListener(*l) // the answer is what Octavia holds now: no read after the change
			}

			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			l, err := listeners.Get(ctx, s.Octavia, o.ListenerID).Extract()
			if err != nil {
				return false, err
			}

			now := *o
			now.setListener(*l)

			return len(listenerChanges(want, now)) == 0, nil
		},
	}); err != nil {
		return err
	}

	if _, ok := update["default_pool_id"]; ok {
		o.DefaultPoolID = o.PoolID
	}

	return nil
}

// convergeMonitor creates or updates the health monitor of want (which has one) of load
// balancer name.
func (s *Service) convergeMonitor(ctx context.Context, st *stepper, name string, want ListenerSpec, o *ObservedListener) error {
	monitorName := naming.Monitor(name, want.Name)

	switch {
	case o.MonitorID == "":
		opts := monitors.CreateOpts{
			PoolID:         o.PoolID,
			Name:           monitorName,
			Type:           want.MonitorType(),
			Delay:          want.Monitor.Interval,
			Timeout:        want.Monitor.Timeout,
			MaxRetries:     want.Monitor.HealthyThreshold,
			MaxRetriesDown: want.Monitor.UnhealthyThreshold,
			Tags:           created.Tags(),
		}

		return createChild(ctx, st, childCreate[monitors.Monitor]{
			kind: "health monitor", name: monitorName, owner: name, tags: func(m monitors.Monitor) []string { return m.Tags },
			post: func(ctx context.Context) (monitors.Monitor, error) {
				return deref(monitors.Create(ctx, s.Octavia, opts).Extract())
			},
			find: func(ctx context.Context) ([]monitors.Monitor, error) {
				return named(ctx, monitors.List(s.Octavia, monitors.ListOpts{PoolID: o.PoolID, Name: monitorName}), monitors.ExtractMonitors,
					monitorName, func(m monitors.Monitor) string { return m.Name },
					func(m monitors.Monitor) bool { return removed(m.ProvisioningStatus) || !onPool(m, o.PoolID) })
			},
			id:     func(m monitors.Monitor) string { return m.ID },
			delete: func(ctx context.Context, id string) error { return monitors.Delete(ctx, s.Octavia, id).ExtractErr() },
			record: o.setMonitor,
		})

	case o.Monitor == nil || *o.Monitor != *want.Monitor || o.MonitorName != monitorName:
		opts := monitors.UpdateOpts{
			Delay:          want.Monitor.Interval,
			Timeout:        want.Monitor.Timeout,
			MaxRetries:     want.Monitor.HealthyThreshold,
			MaxRetriesDown: want.Monitor.UnhealthyThreshold,
			Name:           &monitorName,
		}

		return st.do(ctx, change{
			what: "updating health monitor " + monitorName,
			mutate: func(ctx context.Context) error {
				m, err := monitors.Update(ctx, s.Octavia, o.MonitorID, opts).Extract()
				if err == nil {
					o.setMonitor(*m)
				}

				return err
			},
			landed: func(ctx context.Context) (bool, error) {
				m, err := monitors.Get(ctx, s.Octavia, o.MonitorID).Extract()
				if err != nil {
					return false, err
				}

				o.setMonitor(*m)

				return m.Name == monitorName && *o.Monitor == *want.Monitor, nil
			},
		})
	}

	return nil
}

// onPool tells whether monitor m watches pool poolID.
func onPool(m monitors.Monitor, poolID string) bool {
	return slices.ContainsFunc(m.Pools, func(p monitors.PoolID) bool { return p.ID == poolID })
}

// listenerUpdate is the body of a listener PUT. It is a plain map so that values can be
// null (Octavia resets a null timeout to its default).
type listenerUpdate map[string]any

// ToListenerUpdateMap implements listeners.UpdateOptsBuilder.
func (u listenerUpdate) ToListenerUpdateMap() (map[string]any, error) {
	return map[string]any{"listener": map[string]any(u)}, nil
}

// listenerChanges is what a listener PUT must change: the allowed CIDRs (compared as
// sets), the idle timeouts (when configured) and the default pool link.
func listenerChanges(want ListenerSpec, o ObservedListener) listenerUpdate {
	update := listenerUpdate{}

	if cidrs := cloud.SortedSet(want.AllowedCIDRs); !slices.Equal(cidrs, o.AllowedCIDRs) {
		if cidrs == nil {
			cidrs = []string{}
		}

		update["allowed_cidrs"] = cidrs
	}

	if ms := want.idleTimeoutMS(); ms != nil {
		if o.ClientDataTimeoutMS != *ms {
			update["timeout_client_data"] = *ms
		}

		if o.MemberDataTimeoutMS != *ms {
			update["timeout_member_data"] = *ms
		}
	}

	if o.PoolID != "" && o.DefaultPoolID != o.PoolID {
		update["default_pool_id"] = o.PoolID
	}

	return update
}
