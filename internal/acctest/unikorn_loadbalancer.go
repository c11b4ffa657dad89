package acctest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
)

// UnikornListener is a listener of a Unikorn load balancer as its API takes it: Name a DNS
// label, Protocol TCP or UDP, the port, the members' addresses and port, and HealthCheck for a
// health check of the API's defaults.
type UnikornListener struct {
	Name, Protocol string
	Port           int
	Members        []string // addresses
	MemberPort     int
	HealthCheck    bool
}

// UnikornLoadBalancer is a load balancer as Unikorn's region service makes it:
// lb-<ID>, and per listener lb-<ID>-<listener>-listener, -pool and -monitor. ListenerIDs,
// PoolIDs and MonitorIDs are Octavia's IDs by listener name (a monitor only with HealthCheck).
type UnikornLoadBalancer struct {
	// ID is Unikorn's load balancer ID (the name after lb-).
	ID, Region, LoadBalancerID       string
	ListenerIDs, PoolIDs, MonitorIDs map[string]string

	listeners []UnikornListener
}

// Unikorn's API defaults of a listener (pkg/handler/loadbalancer/client_v2.go consts and
// defaultPositiveInt@v1.16.7,v1.19.0): the idle timeout (TCP only) and a health check's
// interval, timeout and thresholds.
const (
	unikornIdleTimeoutSeconds   = 60
	unikornHealthCheckInterval  = 10
	unikornHealthCheckTimeout   = 5
	unikornHealthCheckHealthy   = 2
	unikornHealthCheckUnhealthy = 2
)

// unikornLBName and friends are the Octavia names (P/loadbalancer.go:loadBalancerName,
// loadBalancerListenerName, loadBalancerPoolName, loadBalancerMonitorName@v1.16.7,v1.19.0).
func unikornLBName(id string) string { return "lb-" + id }
func unikornLBChildName(id, listener, kind string) string {
	return unikornLBName(id) + "-" + listener + "-" + kind
}

// CreateLoadBalancer makes a load balancer on network n's subnet with listeners, as Unikorn's
// P/provider.go:CreateLoadBalancer does (@v1.16.7,v1.19.0; none before v1.16.5: the test fails
// for UnikornV110), as the identity's user at Octavia microversion 2.22
// (P/loadbalancer.go:NewLoadBalancerClient). Unikorn's first create is one fully-populated POST
// (buildLoadBalancerCreateOpts); the local Octavia (amphora noop driver) leaves the children of
// such a create PENDING_CREATE for good, so the fixture makes the same objects step by step, in
// the order of Unikorn's own per-resource path (createLoadBalancer: reconcilePool,
// reconcileListener, reconcileMembers, reconcileMonitor), waiting for the load balancer between
// steps. Its cleanup cascade-deletes it (P/provider.go:deleteLoadBalancer).
func (u UnikornIdentity) CreateLoadBalancer(t *testing.T, n UnikornNetwork, want ...UnikornListener) UnikornLoadBalancer {
	t.Helper()

	if !u.Gen.HasLoadBalancers() {
		t.Fatalf("Unikorn %s makes no load balancers", u.Gen.Tag)
	}

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	lb := UnikornLoadBalancer{
		ID: unikornResourceID(t), Region: n.Region, listeners: want,
		ListenerIDs: map[string]string{}, PoolIDs: map[string]string{}, MonitorIDs: map[string]string{},
	}

	t.Cleanup(func() {
		if lb.LoadBalancerID != "" {
			DeleteLoadBalancerOutOfBand(t, lb.Region, lb.LoadBalancerID)
		}
	})

	// As the identity's user (P/provider.go:loadBalancerFromServicePrincipal@v1.19.0).
	octavia := clientOf(t, "Octavia", n.Region, u.session(t).LoadBalancer) // microversion 2.22, as Unikorn's

	step := func(what string, err error) {
		t.Helper()

		if err != nil {
			t.Fatalf("creating the Unikorn load balancer's %s: %v", what, err)
		}

		if err := waitLoadBalancer(ctx, octavia, lb.LoadBalancerID, false); err != nil {
			t.Fatalf("waiting for the Unikorn load balancer after its %s: %v", what, err)
		}
	}

	// The load balancer: its name and VIP subnet (the network's status subnet ID), no VIP
	// address asked, no description, tags, flavor, provider or zone
	// (P/provider.go:buildLoadBalancerCreateOpts@v1.19.0 without its listeners).
	made, err := loadbalancers.Create(ctx, octavia, loadbalancers.CreateOpts{Name: unikornLBName(lb.ID), VipSubnetID: n.SubnetID}).Extract()
	if err == nil {
		lb.LoadBalancerID = made.ID
	}

	step("load balancer", err)

	// No floating IP on the VIP: publicIP is not asked (P/provider.go:reconcileLoadBalancerFloatingIP).

	for _, l := range want {
		// The pool, on the load balancer (P/provider.go:reconcilePool, buildPoolCreateOpts,
		// octaviaPoolProtocol@v1.19.0): ROUND_ROBIN, the listener's protocol (PROXYV2 only with
		// proxyProtocolV2, not asked), no session persistence.
		pool, err := pools.Create(ctx, octavia, pools.CreateOpts{
			LoadbalancerID: lb.LoadBalancerID, Name: unikornLBChildName(lb.ID, l.Name, "pool"),
			LBMethod: pools.LBMethodRoundRobin, Protocol: pools.Protocol(l.Protocol),
		}).Extract()
		if err == nil {
			lb.PoolIDs[l.Name] = pool.ID
		}

		step(l.Name+" pool", err)

		// The listener, its default pool that one (P/provider.go:reconcileListener,
		// buildListenerCreateOpts, idleTimeoutMillis@v1.19.0): no allowed CIDRs asked, the idle
		// timeout the API's default for TCP (none for UDP) in ms on both sides.
		opts := listeners.CreateOpts{
			LoadbalancerID: lb.LoadBalancerID, Name: unikornLBChildName(lb.ID, l.Name, "listener"),
			Protocol: listeners.Protocol(l.Protocol), ProtocolPort: l.Port, DefaultPoolID: lb.PoolIDs[l.Name],
		}

		if l.Protocol == "TCP" {
			ms := unikornIdleTimeoutSeconds * 1000
			opts.TimeoutClientData, opts.TimeoutMemberData = &ms, &ms
		}

		listener, err := listeners.Create(ctx, octavia, opts).Extract()
		if err == nil {
			lb.ListenerIDs[l.Name] = listener.ID
		}

		step(l.Name+" listener", err)

		// The members, by address and port only: no name, subnet or weight
		// (P/provider.go:reconcileMembers, buildMemberOpts@v1.19.0).
		members := make([]pools.BatchUpdateMemberOpts, len(l.Members))
		for i, address := range l.Members {
			members[i] = pools.BatchUpdateMemberOpts{Address: address, ProtocolPort: l.MemberPort}
		}

		if len(members) > 0 {
			step(l.Name+" members", pools.BatchUpdateMembers(ctx, octavia, lb.PoolIDs[l.Name], members).Err)
		}

		if !l.HealthCheck {
			continue
		}

		// The monitor, with the API's defaults (P/provider.go:reconcileMonitor,
		// buildMonitorCreateOpts, octaviaMonitorType@v1.19.0): TCP, or UDP-CONNECT for UDP.
		monitorType := monitors.TypeTCP
		if l.Protocol == "UDP" {
			monitorType = monitors.TypeUDPConnect
		}

		m, err := monitors.Create(ctx, octavia, monitors.CreateOpts{
			PoolID: lb.PoolIDs[l.Name], Name: unikornLBChildName(lb.ID, l.Name, "monitor"), Type: monitorType,
			Delay: unikornHealthCheckInterval, Timeout: unikornHealthCheckTimeout,
			MaxRetries: unikornHealthCheckHealthy, MaxRetriesDown: unikornHealthCheckUnhealthy,
		}).Extract()
		if err == nil {
			lb.MonitorIDs[l.Name] = m.ID
		}

		step(l.Name+" monitor", err)
	}

	return lb
}

// Unchanged checks, as an admin, that the load balancer is as Unikorn made it: its name and
// VIP subnet, exactly its listeners, pools and monitors (same IDs and names), each listener's
// protocol, port, default pool and idle timeouts, each pool's method, protocol and members
// (address and port), each monitor's type, delay, timeout and retries.
func (lb UnikornLoadBalancer) Unchanged(t *testing.T) error {
	t.Helper()

	ctx := context.Background()
	octavia, _ := LoadBalancerClients(t, lb.Region)

	var errs []error

	expect := func(what string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			errs = append(errs, fmt.Errorf("%s is %v, want %v", what, got, want))
		}
	}

	got, err := loadbalancers.Get(ctx, octavia, lb.LoadBalancerID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn load balancer %s: %w", lb.LoadBalancerID, err)
	}

	expect("the name", got.Name, unikornLBName(lb.ID))
	expect("the description", got.Description, "")

	ls, err := AllPages(ctx, listeners.List(octavia, listeners.ListOpts{LoadbalancerID: lb.LoadBalancerID}), listeners.ExtractListeners)
	if err != nil {
		return err
	}

	ps, err := AllPages(ctx, pools.List(octavia, pools.ListOpts{LoadbalancerID: lb.LoadBalancerID}), pools.ExtractPools)
	if err != nil {
		return err
	}

	expect("the listeners", idsOf(ls, func(l listeners.Listener) string { return l.ID }), sorted(valuesOf(lb.ListenerIDs)))
	expect("the pools", idsOf(ps, func(p pools.Pool) string { return p.ID }), sorted(valuesOf(lb.PoolIDs)))

	for _, want := range lb.listeners {
		errs = append(errs, lb.listenerUnchanged(ctx, t, want, ls, ps))
	}

	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the Unikorn load balancer %s (%s) changed: %w", unikornLBName(lb.ID), lb.LoadBalancerID, err)
	}

	return nil
}

// listenerUnchanged checks the listener want, its pool, members and monitor.
func (lb UnikornLoadBalancer) listenerUnchanged(ctx context.Context, t *testing.T, want UnikornListener, ls []listeners.Listener, ps []pools.Pool) error {
	t.Helper()

	octavia, _ := LoadBalancerClients(t, lb.Region)

	var errs []error

	expect := func(what string, got, wantValue any) {
		if fmt.Sprint(got) != fmt.Sprint(wantValue) {
			errs = append(errs, fmt.Errorf("listener %s: %s is %v, want %v", want.Name, what, got, wantValue))
		}
	}

	idle := 0
	if want.Protocol == "TCP" {
		idle = unikornIdleTimeoutSeconds * 1000
	}

	if i := slices.IndexFunc(ls, func(l listeners.Listener) bool { return l.ID == lb.ListenerIDs[want.Name] }); i < 0 {
		errs = append(errs, fmt.Errorf("listener %s (%s) is gone", want.Name, lb.ListenerIDs[want.Name]))
	} else {
		l := ls[i]
		expect("the listener's name", l.Name, unikornLBChildName(lb.ID, want.Name, "listener"))
		expect("the listener's protocol and port", fmt.Sprintf("%s:%d", l.Protocol, l.ProtocolPort), fmt.Sprintf("%s:%d", want.Protocol, want.Port))
		expect("the listener's default pool", l.DefaultPoolID, lb.PoolIDs[want.Name])
		expect("the listener's allowed CIDRs", len(l.AllowedCIDRs), 0)

		if idle != 0 {
			expect("the listener's idle timeouts", []int{l.TimeoutClientData, l.TimeoutMemberData}, []int{idle, idle})
		}
	}

	i := slices.IndexFunc(ps, func(p pools.Pool) bool { return p.ID == lb.PoolIDs[want.Name] })
	if i < 0 {
		return errors.Join(append(errs, fmt.Errorf("listener %s: its pool %s is gone", want.Name, lb.PoolIDs[want.Name]))...)
	}

	p := ps[i]
	expect("the pool's name", p.Name, unikornLBChildName(lb.ID, want.Name, "pool"))
	expect("the pool's method and protocol", p.LBMethod+" "+p.Protocol, "ROUND_ROBIN "+want.Protocol)
	expect("the pool's monitor", p.MonitorID, lb.MonitorIDs[want.Name])

	ms, err := AllPages(ctx, pools.ListMembers(octavia, p.ID, pools.ListMembersOpts{}), pools.ExtractMembers)
	if err != nil {
		return err
	}

	got := make([]string, 0, len(ms))
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort))
	}

	wantMembers := make([]string, 0, len(want.Members))
	for _, a := range want.Members {
		wantMembers = append(wantMembers, fmt.Sprintf("%s:%d", a, want.MemberPort))
	}

	expect("the pool's members", sorted(got), sorted(wantMembers))

	if want.HealthCheck && p.MonitorID != "" {
		m, err := monitors.Get(ctx, octavia, p.MonitorID).Extract()
		if err != nil {
			return err
		}

		expect("the monitor's name", m.Name, unikornLBChildName(lb.ID, want.Name, "monitor"))
		expect("the monitor's type, delay, timeout, retries up and down", []any{m.Type, m.Delay, m.Timeout, m.MaxRetries, m.MaxRetriesDown},
			[]any{map[bool]string{true: monitors.TypeUDPConnect, false: monitors.TypeTCP}[want.Protocol == "UDP"],
				unikornHealthCheckInterval, unikornHealthCheckTimeout, unikornHealthCheckHealthy, unikornHealthCheckUnhealthy})
	}

	return errors.Join(errs...)
}

// idsOf is the sorted IDs of all.
func idsOf[T any](all []T, id func(T) string) []string {
	out := make([]string, len(all))
	for i, o := range all {
		out[i] = id(o)
	}

	return sorted(out)
}

// valuesOf is the values of m.
func valuesOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}

	return out
}
