package loadbalancer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Find returns the load balancer named lb-<name> in the identity's project, or nil when there
// is none. Octavia's name filter is post-filtered exactly; two exact matches are a
// *naming.DuplicateError naming both IDs.
func (s *Service) Find(ctx context.Context, name string) (*loadbalancers.LoadBalancer, error) {
	want := naming.LoadBalancer(name)

	all, err := s.loadBalancersNamed(ctx, want)
	if err != nil {
		return nil, err
	}

	lb, ok, err := naming.One("load balancer", want, all,
		func(lb loadbalancers.LoadBalancer) string { return lb.Name },
		func(lb loadbalancers.LoadBalancer) string { return lb.ID })
	if err != nil || !ok {
		return nil, err
	}

	return &lb, nil
}

// loadBalancersNamed lists the load balancers of the identity's project named exactly
// octaviaName. Octavia keeps deleted load balancers for a while in DELETED: they are gone. An
// admin scope sees every project's: only the identity's count.
func (s *Service) loadBalancersNamed(ctx context.Context, octaviaName string) ([]loadbalancers.LoadBalancer, error) {
	drop := func(lb loadbalancers.LoadBalancer) bool {
		return lb.ProvisioningStatus == StatusDeleted || (s.ProjectID != "" && lb.ProjectID != s.ProjectID)
	}

	if all, ok, err := s.loadBalancerListing().Find(ctx, s.Tenant, octaviaName); err != nil || ok {
		return slices.DeleteFunc(naming.Exact(all, octaviaName, func(lb loadbalancers.LoadBalancer) string { return lb.Name }), drop), err
	}

	return named(ctx, loadbalancers.List(s.Octavia, loadbalancers.ListOpts{Name: octaviaName, ProjectID: s.ProjectID}),
		loadbalancers.ExtractLoadBalancers, octaviaName, func(lb loadbalancers.LoadBalancer) string { return lb.Name }, drop)
}

// get reads load balancer id; nil without error when Octavia answers 404.
func (s *Service) get(ctx context.Context, id string) (*loadbalancers.LoadBalancer, error) {
	var lb *loadbalancers.LoadBalancer

	listed, exists, ok, err := s.loadBalancerListing().FindOne(ctx, s.Tenant, id)

	switch {
	case err != nil:
	case ok && exists:
		lb = &listed
	case ok:
		return nil, nil
	default:
		lb, err = loadbalancers.Get(ctx, s.Octavia, id).Extract()
	}

	switch {
	case isNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading load balancer %s: %w", id, err)
	case lb.ProvisioningStatus == StatusDeleted:
		return nil, nil
	}

	return lb, nil
}

// locate finds the load balancer by id, then (when id is empty or gone) by name. Either may
// be empty. It returns nil without error when neither finds one.
func (s *Service) locate(ctx context.Context, id, name string) (*loadbalancers.LoadBalancer, error) {
	if id != "" {
		lb, err := s.get(ctx, id)
		if err != nil || lb != nil {
			return lb, err
		}
	}

	if name == "" {
		return nil, nil
	}

	return s.Find(ctx, name)
}

// Observe reads the whole topology of the load balancer: by id, or by the deterministic
// name when id is empty or gone (DESIGN.md §5), and then only one that an interrupted create of
// a load balancer left (refind: a finished one is another configuration's, an unmarked one
// someone else's). name may be empty when only the ID is known (import). It returns nil without
// error when the load balancer does not exist.
func (s *Service) Observe(ctx context.Context, id, name string) (*Topology, error) {
	lb, err := s.refind(ctx, id, name)
	if err != nil || lb == nil {
		return nil, err
	}

	return s.observe(ctx, lb)
}

// Refound says that the load balancer recorded in the state (recordedID) is gone and that t,
// found again by its name in where, is followed instead: old and new IDs and when the new one
// was made, so that the plan shows it before anything acts on it. "" when t is the recorded
// one (or nothing was recorded).
func Refound(recordedID string, t *Topology, where string) string {
	if recordedID == "" || t == nil || t.ID == recordedID {
		return ""
	}

	return fmt.Sprintf("The load balancer %s recorded in the state is gone; %s (%s) in %s, created %s, carries its name "+
		"now (it carries this provider's mark of an unfinished load balancer create), and the state follows it. If it is "+
		"not this resource's, remove the resource from the state before applying.",
		recordedID, t.Name, t.ID, where, createdAt(t))
}

// Adopted says that a create took over t, found by its name in where, instead of making a load
// balancer; "" when it made t.
func Adopted(t *Topology, where string) string {
	if t == nil || !t.Adopted {
		return ""
	}

	return fmt.Sprintf("The load balancer %s (%s) already existed in %s, created %s, begun by a create of a "+
		"unikorn_loadbalancer that did not finish (an interrupted or failed apply): it was adopted and finished instead "+
		"of a new one being made.", t.Name, t.ID, where, createdAt(t))
}

// createdAt says when t was made.
func createdAt(t *Topology) string {
	if t.CreatedAt.IsZero() {
		return "at a time Octavia does not report"
	}

	return "at " + t.CreatedAt.UTC().Format(time.RFC3339)
}

// NameOf is the user-given name of an Octavia load balancer named lb-<name>.
func NameOf(octaviaName string) (string, error) {
	name, ok := strings.CutPrefix(octaviaName, naming.LoadBalancerPrefix)
	if !ok || name == "" {
		return "", fmt.Errorf("load balancer %q is not named %s<name>: it was not made by this provider", octaviaName, naming.LoadBalancerPrefix)
	}

	return name, nil
}

// observe reads the children of lb and the floating IP on its VIP port. The listings are
// independent reads and go out at once: the listeners and the pools of the load balancer,
// the project's health monitors (Octavia cannot filter them by load balancer) and the
// floating IP; then the members of every pool, at once.
func (s *Service) observe(ctx context.Context, lb *loadbalancers.LoadBalancer) (*Topology, error) {
	name, err := NameOf(lb.Name)
	if err != nil {
		return nil, err
	}

	t := topologyOf(lb)

	if s.Memo.answers(t) {
		s.Memo.children(t)
		t.FloatingIP, err = s.findFloatingIP(ctx, name, t.VIPPortID)

		return t, err
	}

	var (
		ls  []listeners.Listener
		ps  []pools.Pool
		ms  []monitors.Monitor
		fip *network.FloatingIP
	)

	err = parallel(
		func() (err error) { ls, err = s.listListeners(ctx, t.ID); return err },
		func() (err error) { ps, err = s.listPools(ctx, t.ID); return err },
		func() (err error) { ms, err = s.listMonitors(ctx); return err },
		func() (err error) { fip, err = s.findFloatingIP(ctx, name, t.VIPPortID); return err },
	)
	if err != nil {
		return nil, err
	}

	t.FloatingIP = fip

	if err := s.assemble(ctx, t, name, ls, ps, ms); err != nil {
		return nil, err
	}

	return t, nil
}

// parallel runs fns concurrently and joins their errors.
func parallel(fns ...func() error) error {
	errs := make([]error, len(fns))

	var wg sync.WaitGroup

	for i, fn := range fns {
		wg.Add(1)

		go func() {
			defer wg.Done()

			errs[i] = fn()
		}()
	}

	wg.Wait()

	return errors.Join(errs...)
}

// listListeners lists the listeners of load balancer id, oldest first: the order the
// provider created them in, which is the configuration's.
func (s *Service) listListeners(ctx context.Context, id string) ([]listeners.Listener, error) {
	return listed(ctx, s, s.listenerListing(), lbKey(id), func() ([]listeners.Listener, error) {
		return cloud.ListAll(ctx, listeners.List(s.Octavia, listeners.ListOpts{LoadbalancerID: id, SortKey: "created_at", SortDir: "asc"}),
			listeners.ExtractListeners, "the listeners of load balancer "+id)
	})
}

// listPools lists the pools of load balancer id.
func (s *Service) listPools(ctx context.Context, id string) ([]pools.Pool, error) {
	return listed(ctx, s, s.poolListing(), lbKey(id), func() ([]pools.Pool, error) {
		return cloud.ListAll(ctx, pools.List(s.Octavia, pools.ListOpts{LoadbalancerID: id}), pools.ExtractPools,
			"the pools of load balancer "+id)
	})
}

// listMonitors lists the health monitors of the scope's project.
func (s *Service) listMonitors(ctx context.Context) ([]monitors.Monitor, error) {
	return listed(ctx, s, s.monitorListing(), anyMonitor, func() ([]monitors.Monitor, error) {
		return cloud.ListAll(ctx, monitors.List(s.Octavia, monitors.ListOpts{ProjectID: s.ProjectID}), monitors.ExtractMonitors,
			"health monitors")
	})
}

// assemble fills t.Listeners and t.Foreign from the listings, and reads each pool's members
// (with their weights).
// Listeners come in creation order, then entries without a listener, by name. Each pool's
// health monitor is attached whatever its name: a pool has at most one (converge renames it
// when needed).
func (s *Service) assemble(ctx context.Context, t *Topology, name string, ls []listeners.Listener, ps []pools.Pool, ms []monitors.Monitor) error {
	byName := map[string]*ObservedListener{}
	order := map[string]int{} // listener name → position in the listing
	entry := func(listener string) *ObservedListener {
		if o, ok := byName[listener]; ok {
			return o
		}

		o := &ObservedListener{Name: listener}
		byName[listener] = o

		return o
	}

	var dup []error

	for _, l := range ls {
		if !belongsTo(l.Loadbalancers, t.ID) || l.ProvisioningStatus == StatusDeleted {
			continue
		}

		listener, kind, ok := naming.LoadBalancerChild(name, l.Name)
		if !ok || kind != naming.ChildListener {
			t.Foreign = append(t.Foreign, ForeignListener{ID: l.ID, Name: l.Name, Protocol: l.Protocol, Port: l.ProtocolPort})
			continue
		}

		o := entry(listener)
		if o.ListenerID != "" {
			dup = append(dup, &naming.DuplicateError{Kind: "listener", Name: l.Name, IDs: cloud.SortedSet([]string{o.ListenerID, l.ID})})
			continue
		}

		order[listener] = len(order)
		o.setListener(l)
	}

	poolOf := map[string]*ObservedListener{} // pool ID → entry

	for _, p := range ps {
		if !poolBelongsTo(p, t.ID) || p.ProvisioningStatus == StatusDeleted {
			continue
		}

		listener, kind, ok := naming.LoadBalancerChild(name, p.Name)
		if !ok || kind != naming.ChildPool {
			continue
		}

		o := entry(listener)
		if o.PoolID != "" {
			dup = append(dup, &naming.DuplicateError{Kind: "pool", Name: p.Name, IDs: cloud.SortedSet([]string{o.PoolID, p.ID})})
			continue
		}

		o.PoolID = p.ID
		o.PoolMark = naming.MarkOfTags(p.Tags)
		o.setMemberTags(p.Tags)
		o.PoolProtocol = p.Protocol
		o.PoolAlgorithm = p.LBMethod
		o.PoolStatus = p.ProvisioningStatus
		poolOf[p.ID] = o
	}

	if len(dup) > 0 {
		return fmt.Errorf("load balancer %s (%s): %w", t.Name, t.ID, errors.Join(dup...))
	}

	for _, m := range ms {
		if m.ProvisioningStatus == StatusDeleted {
			continue
		}

		for _, p := range m.Pools {
			if o, ok := poolOf[p.ID]; ok {
				o.setMonitor(m)
			}
		}
	}

	if err := s.readMembers(ctx, poolOf); err != nil {
		return err
	}

	for _, key := range slices.Sorted(maps.Keys(byName)) {
		t.Listeners = append(t.Listeners, *byName[key])
	}

	slices.SortStableFunc(t.Listeners, func(a, b ObservedListener) int {
		ia, oka := order[a.Name]
		ib, okb := order[b.Name]

		switch {
		case oka && okb:
			return cmp.Compare(ia, ib)
		case oka:
			return -1
		case okb:
			return 1
		}

		return 0
	})

	return nil
}

// setListener records listener l.
func (o *ObservedListener) setListener(l listeners.Listener) {
	o.ListenerID = l.ID
	o.ListenerMark = naming.MarkOfTags(l.Tags)
	o.Protocol = l.Protocol
	o.Port = l.ProtocolPort
	o.AllowedCIDRs = cloud.SortedSet(l.AllowedCIDRs)
	o.ClientDataTimeoutMS = l.TimeoutClientData
	o.MemberDataTimeoutMS = l.TimeoutMemberData
	o.DefaultPoolID = l.DefaultPoolID
	o.ListenerStatus = l.ProvisioningStatus
}

// setMonitor records health monitor m.
func (o *ObservedListener) setMonitor(m monitors.Monitor) {
	o.MonitorID, o.MonitorName, o.MonitorType, o.MonitorStatus = m.ID, m.Name, m.Type, m.ProvisioningStatus
	o.MonitorMark = naming.MarkOfTags(m.Tags)
	o.Monitor = &MonitorSpec{
		Interval:           m.Delay,
		Timeout:            m.Timeout,
		HealthyThreshold:   m.MaxRetries,
		UnhealthyThreshold: m.MaxRetriesDown,
	}
}

func belongsTo(lbs []listeners.LoadBalancerID, id string) bool {
	if len(lbs) == 0 {
		return true // filtered by loadbalancer_id already
	}

	for _, lb := range lbs {
		if lb.ID == id {
			return true
		}
	}

	return false
}

func poolBelongsTo(p pools.Pool, id string) bool {
	if len(p.Loadbalancers) == 0 {
		return true // filtered by loadbalancer_id already
	}

	for _, lb := range p.Loadbalancers {
		if lb.ID == id {
			return true
		}
	}

	return false
}
