package loadbalancer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func intp(v int) *int { return &v }

// threeListeners is the topology of the issue: TCP with PROXY protocol and a monitor, plain
// TCP, and UDP with a UDP-CONNECT monitor.
func threeListeners(publicIP bool) Spec {
	return Spec{
		Name:      "web",
		NetworkID: "net-1",
		PublicIP:  publicIP,
		Listeners: []ListenerSpec{
			{
				Name: "https", Protocol: ProtocolTCP, Port: 443, ProxyProtocolV2: true, IdleTimeout: intp(120),
				AllowedCIDRs: []string{"10.0.0.0/8", "192.168.0.0/16"},
				Members:      []Member{{"10.0.0.5", 8443, 1}, {"10.0.0.6", 8443, 1}},
				Monitor:      &MonitorSpec{Interval: 10, Timeout: 5, HealthyThreshold: 3, UnhealthyThreshold: 2},
			},
			{
				Name: "ssh", Protocol: ProtocolTCP, Port: 22,
				Members: []Member{{"10.0.0.5", 22, 1}},
			},
			{
				Name: "dns", Protocol: ProtocolUDP, Port: 53,
				Members: []Member{{"10.0.0.7", 53, 1}},
				Monitor: &MonitorSpec{Interval: 5, Timeout: 3, HealthyThreshold: 2, UnhealthyThreshold: 2},
			},
		},
	}
}

// ensured is a fake cloud, its Service and the three-listener load balancer made on it.
func ensured(t *testing.T, publicIP bool) (*fakeCloud, *Service, *Topology) {
	t.Helper()

	f := newFakeCloud(t)
	svc := f.service()

	top, err := svc.Ensure(t.Context(), threeListeners(publicIP), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	return f, svc, top
}

func TestEnsure_createsStepByStepWithoutConflicts(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	var recorded string

	var requestsAtID int

	top, err := svc.Ensure(t.Context(), threeListeners(true), "", func(id string) {
		recorded = id
		requestsAtID = f.requestCount()
	})
	if err != nil {
		t.Fatal(err)
	}

	conflicts, mutations := f.counters()
	if conflicts != 0 {
		t.Errorf("%d requests met the immutability lock (409), want none", conflicts)
	}

	// Octavia's changes strictly in order; the floating IP (Neutron) goes on meanwhile.
	want := []string{
		"POST loadbalancers",
		"POST listeners", "POST pools", "PUT members", "POST healthmonitors", // https
		"POST listeners", "POST pools", "PUT members", // ssh
		"POST listeners", "POST pools", "PUT members", "POST healthmonitors", // dns
		"PUT loadbalancers", // the completion mark, last
	}
	octavia := slices.DeleteFunc(slices.Clone(mutations), func(m string) bool { return strings.HasSuffix(m, "floatingips") })

	if diff := cmp.Diff(want, octavia); diff != "" {
		t.Errorf("Octavia mutations (-want +got):\n%s", diff)
	}

	if n := len(mutations) - len(octavia); n != 1 || !slices.Contains(mutations, "POST floatingips") {
		t.Errorf("Neutron mutations: %v, want one floating IP POST", mutations)
	}

	if names := []string{top.Listeners[0].Name, top.Listeners[1].Name, top.Listeners[2].Name}; !slices.Equal(names, []string{"https", "ssh", "dns"}) {
		t.Errorf("listeners in the order %v, want the configuration's (creation) order", names)
	}

	if recorded == "" || recorded != top.ID {
		t.Errorf("onID got %q, topology ID %q", recorded, top.ID)
	}

	// The ID is known right after the POST: network and subnet GET (the address checks), name
	// lookup, POST, and the name lookup that checks for a twin.
	if requestsAtID != 5 {
		t.Errorf("the ID was recorded after %d requests, want 5 (before the first wait)", requestsAtID)
	}

	https, _ := top.Listener("https")
	ssh, _ := top.Listener("ssh")
	dns, _ := top.Listener("dns")

	for _, c := range []struct {
		name, got, want string
	}{
		{"https pool protocol", https.PoolProtocol, "PROXYV2"},
		{"ssh pool protocol", ssh.PoolProtocol, "TCP"},
		{"dns pool protocol", dns.PoolProtocol, "UDP"},
		{"https monitor type", https.MonitorType, "TCP"},
		{"dns monitor type", dns.MonitorType, "UDP-CONNECT"},
		{"ssh monitor", ssh.MonitorID, ""},
		{"https monitor name", https.MonitorName, "lb-web-https-monitor"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}

	if https.ClientDataTimeoutMS != 120000 || https.MemberDataTimeoutMS != 120000 {
		t.Errorf("https timeouts = %d/%d ms, want 120000/120000", https.ClientDataTimeoutMS, https.MemberDataTimeoutMS)
	}

	if !https.PoolLinked() || !ssh.PoolLinked() || !dns.PoolLinked() {
		t.Error("a pool is not its listener's default pool")
	}

	if diff := cmp.Diff([]Member{{"10.0.0.5", 8443, 1}, {"10.0.0.6", 8443, 1}}, https.Members); diff != "" {
		t.Errorf("https members (-want +got):\n%s", diff)
	}

	if top.FloatingIP == nil || top.FloatingIP.PortID != top.VIPPortID {
		t.Errorf("floating IP = %+v, want one on the VIP port %s", top.FloatingIP, top.VIPPortID)
	}

	// Converging again changes nothing.
	f.resetCounters()

	if _, err := svc.Ensure(t.Context(), threeListeners(true), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if _, mutations := f.counters(); len(mutations) != 0 {
		t.Errorf("a second converge made changes: %v", mutations)
	}
}

func TestEnsure_singleCallCreate(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	f.graphWorks = true
	svc := f.service()
	svc.SingleCallCreate = true

	top, err := svc.Ensure(t.Context(), threeListeners(false), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	conflicts, mutations := f.counters()
	if conflicts != 0 || !slices.Equal(mutations, []string{"POST loadbalancers", "PUT loadbalancers"}) {
		t.Errorf("single-call create: %d conflicts, mutations %v; want 0, one POST and the completion mark", conflicts, mutations)
	}

	if len(top.Listeners) != 3 || top.Listeners[0].Name != "https" || top.Listeners[0].PoolProtocol != "PROXYV2" { // creation order
		t.Errorf("listeners after a single-call create: %+v", top.Listeners)
	}
}

func TestEnsure_singleCallCreateStuck(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()
	svc.SingleCallCreate = true

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()

	var id string

	_, err := svc.Ensure(ctx, threeListeners(false), "", func(got string) { id = got })

	var timeout *cloud.WaitTimeoutError
	if !errors.As(err, &timeout) {
		t.Fatalf("err = %v, want a timeout while the children stay PENDING_CREATE", err)
	}

	if id == "" {
		t.Error("the ID was not recorded before the wait")
	}

	if !strings.Contains(err.Error(), "PENDING_CREATE") && !strings.Contains(err.Error(), "PENDING_UPDATE") {
		t.Errorf("the timeout does not say what was pending: %v", err)
	}
}

func TestEnsure_pendingToError(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		failOn  string
		want    []string // in the message
		created bool
	}{
		{"POST loadbalancers", []string{"creating lb-web", "load balancer lb-", "provisioning status ERROR", "load balancer lb-web ("}, false},
		{"POST pools", []string{"checking lb-web: pool lb-web-https-pool", "provisioning status ERROR", "listener lb-web-https-listener", "pool lb-web-https-pool (pool-", "provisioning ERROR"}, true},
	} {
		t.Run(c.failOn, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)
			f.failOn = c.failOn

			var id string

			_, err := f.service().Ensure(t.Context(), threeListeners(false), "", func(got string) { id = got })

			var perr *ProvisioningError
			if !errors.As(err, &perr) {
				t.Fatalf("err = %v, want a *ProvisioningError", err)
			}

			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}

			if id == "" {
				t.Error("the ID was not recorded before the failure")
			}

			if conflicts, _ := f.counters(); conflicts != 0 {
				t.Errorf("%d conflicts", conflicts)
			}
		})
	}
}

func TestEnsure_waitsForAPendingLoadBalancerBeforeChanging(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	f.settle = 5
	id := f.addLB(naming.LoadBalancer("web"), StatusPendingUpdate, created.Tags()...) // an interrupted create's

	top, err := f.service().Ensure(t.Context(), threeListeners(false), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	if top.ID != id {
		t.Errorf("adopted %s, want %s", top.ID, id)
	}

	if conflicts, _ := f.counters(); conflicts != 0 {
		t.Errorf("%d requests met the immutability lock", conflicts)
	}
}

func TestEnsure_conflictIsNotRetried(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)

	// Someone else locks the load balancer between our wait and our change: simulate it by
	// letting the stepper believe the load balancer is ready while it is not.
	f.mu.Lock()
	f.lbs[top.ID].obj["provisioning_status"] = StatusPendingUpdate
	f.lbs[top.ID].pending = 1000
	f.mu.Unlock()

	st := &stepper{s: svc, id: top.ID, ready: true}
	spec := threeListeners(false)
	spec.Listeners[1].Members = nil
	o, _ := top.Listener("ssh")

	err := svc.convergeListener(t.Context(), st, "web", f.subnetID, spec.Listeners[1], &o)

	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("err = %v, want a *ConflictError", err)
	}

	if conflicts, _ := f.counters(); conflicts != 1 {
		t.Errorf("%d conflicts, want exactly 1 (no retry)", conflicts)
	}
}

func TestEnsure_convergesInPlace(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, true)

	for _, c := range []struct {
		name   string
		change func(*Spec)
		want   []string
	}{
		{"members", func(s *Spec) { s.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}, {"10.0.0.5", 22, 1}} }, []string{"PUT members"}},
		{"one weight", func(s *Spec) { s.Listeners[0].Members[1].Weight = 5 }, []string{"PUT member"}},
		{"a drained member", func(s *Spec) { s.Listeners[2].Members[0].Weight = 0 }, []string{"PUT member"}},
		{"two weights", func(s *Spec) { s.Listeners[0].Members[0].Weight, s.Listeners[0].Members[1].Weight = 2, 3 }, []string{"PUT members"}},
		{"a weight and a member", func(s *Spec) {
			s.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}, {"10.0.0.5", 22, 4}}
		}, []string{"PUT members"}},
		{"cidrs as a set", func(s *Spec) { s.Listeners[0].AllowedCIDRs = []string{"192.168.0.0/16", "10.0.0.0/8"} }, nil},
		{"cidrs", func(s *Spec) { s.Listeners[0].AllowedCIDRs = []string{"10.0.0.0/8"} }, []string{"PUT listeners"}},
		{"idle timeout", func(s *Spec) { s.Listeners[0].IdleTimeout = intp(30) }, []string{"PUT listeners"}},
		{"monitor thresholds", func(s *Spec) { s.Listeners[2].Monitor.HealthyThreshold = 5 }, []string{"PUT healthmonitors"}},
		{"monitor removed", func(s *Spec) { s.Listeners[0].Monitor = nil }, []string{"DELETE healthmonitors"}},
		{"monitor added", func(s *Spec) {
			s.Listeners[1].Monitor = &MonitorSpec{Interval: 10, Timeout: 5, HealthyThreshold: 3, UnhealthyThreshold: 3}
		}, []string{"POST healthmonitors"}},
		{"listener removed", func(s *Spec) { s.Listeners = s.Listeners[:2] }, []string{"DELETE listeners", "DELETE pools"}},
		{"listener added", func(s *Spec) {
			s.Listeners = append(s.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})
		}, []string{"POST listeners", "POST pools"}},
		{"public IP off", func(s *Spec) { s.PublicIP = false }, []string{"DELETE floatingips"}},
	} {
		spec := threeListeners(true)
		c.change(&spec)
		f.resetCounters()

		next, err := svc.Ensure(t.Context(), spec, top.ID, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}

		conflicts, mutations := f.counters()
		if diff := cmp.Diff(c.want, mutations); diff != "" || conflicts != 0 {
			t.Errorf("%s: %d conflicts, mutations (-want +got):\n%s", c.name, conflicts, diff)
		}

		if next.ID != top.ID {
			t.Errorf("%s: the load balancer changed from %s to %s", c.name, top.ID, next.ID)
		}

		// What the apply returns is what a refresh reads (weights included), and converged.
		f.resetCounters()

		again, err := svc.Observe(t.Context(), top.ID, spec.Name)
		if err != nil {
			t.Fatalf("%s: observing: %v", c.name, err)
		}

		for i, l := range spec.Listeners {
			if got := again.Listeners[i].Members; !slices.Equal(got, sortMembers(l.Members)) || !slices.Equal(next.Listeners[i].Members, got) {
				t.Errorf("%s: listener %s has members %v after the apply, %v read again; want %v", c.name, l.Name,
					next.Listeners[i].Members, got, sortMembers(l.Members))
			}
		}

		// The memo the apply leaves is what the read found, and a read with it finds the same
		// without listing the children.
		memo := next.memo()
		if memo == nil {
			t.Fatalf("%s: the apply left no memo", c.name)
		}

		if diff := cmp.Diff(again.Listeners, memo.Listeners, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: the apply's memo differs from a read (-read +memo):\n%s", c.name, diff)
		}

		memoed := f.service()
		memoed.Memo = memo
		before := f.requestCount()

		fromMemo, err := memoed.Observe(t.Context(), top.ID, spec.Name)
		if err != nil {
			t.Fatalf("%s: observing with the memo: %v", c.name, err)
		}

		if diff := cmp.Diff(again, fromMemo, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: a read with the memo differs from one without (-without +with):\n%s", c.name, diff)
		}

		if n := f.requestCount() - before; n > 2 {
			t.Errorf("%s: a read with the memo took %d requests, want the load balancer and the floating IPs only", c.name, n)
		}

		// Put the topology back for the next case.
		if _, err := svc.Ensure(t.Context(), threeListeners(true), top.ID, nil); err != nil {
			t.Fatalf("%s: restoring: %v", c.name, err)
		}
	}

	// Public IP on, from off.
	if _, err := svc.Ensure(t.Context(), threeListeners(false), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	if _, err := svc.Ensure(t.Context(), threeListeners(true), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if _, mutations := f.counters(); !slices.Equal(mutations, []string{"POST floatingips"}) {
		t.Errorf("public IP on: mutations %v, want one floating IP POST", mutations)
	}
}

func TestEnsure_repairsDrift(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)

	ssh, _ := top.Listener("ssh")
	https, _ := top.Listener("https")

	// Out of band: the ssh listener is deleted (its pool stays), the https pool is unlinked.
	f.mu.Lock()
	delete(f.listeners, ssh.ListenerID)
	f.listeners[https.ListenerID]["default_pool_id"] = nil
	f.mu.Unlock()

	observed, err := svc.Observe(t.Context(), top.ID, "web")
	if err != nil {
		t.Fatal(err)
	}

	if o, _ := observed.Listener("ssh"); o.ListenerID != "" || o.PoolID != ssh.PoolID {
		t.Errorf("observed ssh = %+v, want no listener and the old pool", o)
	}

	if o, _ := observed.Listener("https"); o.PoolLinked() {
		t.Error("observed https pool is still linked")
	}

	f.resetCounters()

	fixed, err := svc.Ensure(t.Context(), threeListeners(false), top.ID, nil)
	if err != nil {
		t.Fatal(err)
	}

	_, mutations := f.counters()
	if diff := cmp.Diff([]string{"PUT listeners", "POST listeners"}, mutations); diff != "" {
		t.Errorf("mutations (-want +got):\n%s", diff)
	}

	if o, _ := fixed.Listener("ssh"); o.PoolID != ssh.PoolID || !o.PoolLinked() {
		t.Errorf("ssh = %+v, want the old pool %s linked to a new listener", o, ssh.PoolID)
	}
}

func TestEnsure_immutableChangeFailsBeforeAnyChange(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)

	spec := threeListeners(false)
	spec.Listeners[0].ProxyProtocolV2 = false
	spec.Listeners[1].Port = 2222
	spec.Listeners[2].Members = nil // a change that must not happen either
	f.resetCounters()

	_, err := svc.Ensure(t.Context(), spec, top.ID, nil)

	var immutable *ImmutableError
	if !errors.As(err, &immutable) {
		t.Fatalf("err = %v, want an *ImmutableError", err)
	}

	for _, w := range []string{`listener "https"`, "proxy_protocol_v2", `listener "ssh"`, "port 22", "new name"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q: %v", w, err)
		}
	}

	if _, mutations := f.counters(); len(mutations) != 0 {
		t.Errorf("changes were made: %v", mutations)
	}
}

func TestEnsure_names(t *testing.T) {
	t.Parallel()

	t.Run("near miss", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)
		near := f.addLB("lb-web2", StatusActive)

		top, err := f.service().Ensure(t.Context(), Spec{Name: "web", NetworkID: "net-1"}, "", nil)
		if err != nil {
			t.Fatal(err)
		}

		if top.ID == near || top.Name != "lb-web" {
			t.Errorf("adopted the near miss: %s %s", top.ID, top.Name)
		}
	})

	t.Run("duplicates", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)
		a := f.addLB("lb-web", StatusActive)
		b := f.addLB("lb-web", StatusActive)

		_, err := f.service().Ensure(t.Context(), Spec{Name: "web", NetworkID: "net-1"}, "", nil)

		var dup *naming.DuplicateError
		if !errors.As(err, &dup) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
			t.Fatalf("err = %v, want a duplicate error naming %s and %s", err, a, b)
		}
	})

	t.Run("adopt", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)
		id := f.addLB("lb-web", StatusActive, created.Tags()...) // an interrupted create's

		top, err := f.service().Ensure(t.Context(), threeListeners(false), "", nil)
		if err != nil {
			t.Fatal(err)
		}

		if top.ID != id {
			t.Errorf("created %s instead of adopting %s", top.ID, id)
		}
	})

	t.Run("adopt on another network", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)
		id := f.addLB("lb-web", StatusActive, created.Tags()...)
		f.lbs[id].obj["vip_network_id"] = "net-other"

		recorded := ""

		_, err := f.service().Ensure(t.Context(), threeListeners(false), "", func(got string) { recorded = got })

		var mismatch *MismatchError
		if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "net-other") {
			t.Fatalf("err = %v, want a *MismatchError naming the network", err)
		}

		if recorded != "" {
			t.Errorf("the load balancer on another network was recorded as this resource's (%s)", recorded)
		}
	})
}

func TestDelete_floatingIPThenCascadeThenGone(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, true)

	f.resetCounters()

	if err := svc.Delete(t.Context(), top.ID, "web"); err != nil {
		t.Fatal(err)
	}

	_, mutations := f.counters()
	if diff := cmp.Diff([]string{"DELETE floatingips", "DELETE loadbalancers"}, mutations); diff != "" {
		t.Errorf("mutations (-want +got):\n%s", diff)
	}

	if len(f.lbs) != 0 || len(f.listeners) != 0 || len(f.pools) != 0 || len(f.monitors) != 0 || len(f.fips) != 0 {
		t.Errorf("left: %d load balancers, %d listeners, %d pools, %d monitors, %d floating IPs",
			len(f.lbs), len(f.listeners), len(f.pools), len(f.monitors), len(f.fips))
	}

	// Deleting again is fine.
	if err := svc.Delete(t.Context(), top.ID, "web"); err != nil {
		t.Fatal(err)
	}
}

func TestDelete_orphanFloatingIP(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, true)

	f.dropLB(top.ID) // deleted out of band: Neutron keeps the floating IP, on no port

	// Re-creating adopts the floating IP instead of leaking it.
	f.resetCounters()

	again, err := svc.Ensure(t.Context(), threeListeners(true), top.ID, nil)
	if err != nil {
		t.Fatal(err)
	}

	if again.FloatingIP == nil || again.FloatingIP.ID != top.FloatingIP.ID {
		t.Errorf("floating IP %+v, want the old one %s re-attached", again.FloatingIP, top.FloatingIP.ID)
	}

	f.dropLB(again.ID)

	if err := svc.Delete(t.Context(), again.ID, "web"); err != nil {
		t.Fatal(err)
	}

	if len(f.fips) != 0 {
		t.Errorf("%d floating IPs left", len(f.fips))
	}
}

func TestEnsure_timeout(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	f.settle = 1 << 30

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()

	var id string

	_, err := f.service().Ensure(ctx, Spec{Name: "web", NetworkID: "net-1"}, "", func(got string) { id = got })

	var timeout *cloud.WaitTimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a wait timeout", err)
	}

	if id == "" {
		t.Error("the ID was not recorded before the wait")
	}
}

// TestEnsure_poolBackToRoundRobin: a pool whose algorithm was changed out of band shows as
// missing (its listener's pool_id is null, so the plan updates the load balancer), and the
// apply sets it back to round robin in place (one PUT of the pool, its ID kept), as Unikorn's
// reconcile does; then nothing more is written.
func TestEnsure_poolBackToRoundRobin(t *testing.T) {
	t.Parallel()

	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)
	f, svc, top := ensured(t, false)

	ssh, _ := top.Listener("ssh")

	f.mu.Lock()
	f.pools[ssh.PoolID]["lb_algorithm"] = "LEAST_CONNECTIONS"
	f.mu.Unlock()

	drifted, err := svc.Observe(ctx, top.ID, "web")
	if err != nil {
		t.Fatal(err)
	}

	var diags diag.Diagnostics

	ls, _ := listenerModels(ctx, observed(ctx, testModel(t), drifted, &diags).Listeners)
	for _, l := range ls {
		if want := l.Name.ValueString() != "ssh"; !l.PoolID.IsNull() != want {
			t.Errorf("listener %s reads pool_id %s after the drift", l.Name, l.PoolID)
		}
	}

	got, err := svc.Ensure(ctx, threeListeners(false), top.ID, nil)
	if err != nil {
		t.Fatal(err)
	}

	if _, mutations := f.counters(); !slices.Equal(mutations, []string{"PUT pools"}) {
		t.Errorf("mutations %v, want the pool's PUT only", mutations)
	}

	if again, _ := got.Listener("ssh"); again.PoolID != ssh.PoolID || again.PoolAlgorithm != "ROUND_ROBIN" {
		t.Errorf("the ssh pool is %s (%s), want %s round robin", again.PoolID, again.PoolAlgorithm, ssh.PoolID)
	}

	f.resetCounters()

	if _, err := svc.Ensure(ctx, threeListeners(false), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Errorf("the next apply wrote %v", writes)
	}
}
