package loadbalancer

import (
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestVIPNetwork(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name, networkID, project string
		wantErr                  string // "" for success
	}{
		{name: "the identity's", networkID: "net-1", project: "project-1"},
		{name: "another identity's", networkID: "net-1", project: "project-2", wantErr: "belongs to project project-1, not to the identity's project project-2"},
		{name: "another region's or unknown", networkID: "net-elsewhere", project: "project-1", wantErr: "is not in the identity's project project-1 in region RegionOne"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			svc := newFakeCloud(t).service()
			svc.ProjectID = c.project

			n, err := svc.VIPNetwork(t.Context(), c.networkID)

			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}

				if n.SubnetID != "subnet-1" || n.CIDR != netip.MustParsePrefix("10.0.0.0/24") || n.ProjectID != "project-1" {
					t.Errorf("VIP network = %+v, want subnet-1, 10.0.0.0/24, project-1", n)
				}

				return
			}

			var wrong *NetworkError
			if !errors.As(err, &wrong) || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want a *NetworkError saying %q", err, c.wantErr)
			}
		})
	}
}

func TestNetworkCache_asksOncePerRun(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	cache := &NetworkCache{}

	for range 3 {
		if _, err := cache.VIPNetwork(t.Context(), f.service(), "net-1"); err != nil {
			t.Fatal(err)
		}
	}

	if n := f.api.Count("GET /neutron/v2.0/networks/net-1"); n != 1 {
		t.Errorf("the network was read %d times for 3 plans, want once", n)
	}

	// Another identity's lookup is its own.
	svc := f.service()
	svc.ProjectID = "project-2"

	if _, err := cache.VIPNetwork(t.Context(), svc, "net-1"); err == nil {
		t.Error("another identity got the first identity's network from the cache")
	}
}

func TestCheckAddresses(t *testing.T) {
	t.Parallel()

	vip := &VIPNetwork{ID: "net-1", Name: "network-test", SubnetID: "subnet-1", CIDR: netip.MustParsePrefix("10.0.0.0/24")}

	for _, c := range []struct {
		name  string
		spec  Spec
		paths []string // the attributes addressErrors reports, in order
	}{
		{name: "inside", spec: threeListeners(false)},
		{name: "VIP outside", spec: Spec{VIPAddress: "10.0.1.5"}, paths: []string{"vip_address"}},
		{name: "members outside", spec: Spec{VIPAddress: "10.0.0.5", Listeners: []ListenerSpec{
			{Name: "a", Members: []Member{{"10.0.0.6", 80, 1}, {"192.168.0.6", 80, 1}}},
			{Name: "b", Members: []Member{{"10.0.0.255", 80, 1}, {"10.0.2.1", 81, 1}}},
		}}, paths: []string{"listeners[0].members[1].address", "listeners[1].members[1].address"}},
		{name: "unset VIP", spec: Spec{Listeners: []ListenerSpec{{Name: "a", Members: []Member{{"", 80, 1}}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			outside := CheckAddresses(c.spec, vip)
			err := joinAddressErrors(outside)

			var diags diag.Diagnostics

			addressErrors(outside, &diags)

			got := errorPaths(diags)
			if len(got) != len(c.paths) {
				t.Fatalf("errors %q, want on %q (err %v)", got, c.paths, err)
			}

			for i, p := range c.paths {
				if got[i] != p+": Address outside the VIP subnet" {
					t.Errorf("error %q, want on %s", got[i], p)
				}
			}

			if err != nil && !strings.Contains(err.Error(), "outside the VIP subnet 10.0.0.0/24 (subnet-1)") {
				t.Errorf("the error does not name the subnet: %v", err)
			}
		})
	}
}

// TestEnsure_badInputFailsBeforeAnyChange: an address outside the VIP subnet, or a network of
// another identity, stops Ensure before its first change.
func TestEnsure_badInputFailsBeforeAnyChange(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name    string
		change  func(*Spec, *Service)
		wantErr any
	}{
		{"member outside", func(s *Spec, _ *Service) { s.Listeners[1].Members = []Member{{"10.1.0.5", 22, 1}} }, new(*AddressError)},
		{"VIP outside", func(s *Spec, _ *Service) { s.VIPAddress = "172.16.0.1" }, new(*AddressError)},
		{"network of another identity", func(_ *Spec, svc *Service) { svc.ProjectID = "project-2" }, new(*NetworkError)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)
			svc := f.service()
			spec := threeListeners(true)
			c.change(&spec, svc)

			id, _, err := svc.Create(t.Context(), spec, nil)
			if !errors.As(err, c.wantErr) {
				t.Fatalf("err = %v, want a %T", err, c.wantErr)
			}

			if _, mutations := f.counters(); id != "" || len(mutations) != 0 {
				t.Errorf("made %q with %v before failing", id, mutations)
			}
		})
	}
}

// TestCreate_lostAnswer: a POST whose answer is lost or a 5xx is recovered inside the same
// create (the load balancer it made is found by name and used, even when Octavia shows it only
// a while later), and made again when Octavia made nothing; a definite refusal is returned at
// once. The state then tracks exactly the one load balancer there is.
func TestCreate_lostAnswer(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name string
		// post answers the load balancer POST.
		post       func(f *fakeCloud, w http.ResponseWriter, r *http.Request)
		wantErr    bool
		wantLB     bool
		wantPOSTs  int
		wantListed int // at least this many name lookups (the wait)
	}{
		{name: "refused", wantErr: true, wantPOSTs: 1, post: func(_ *fakeCloud, w http.ResponseWriter, _ *http.Request) {
			cloudtest.WriteJSON(w, http.StatusBadRequest, map[string]any{"faultstring": "invalid"})
		}},
		{name: "5xx, nothing made", wantErr: true, wantPOSTs: 3, post: func(_ *fakeCloud, w http.ResponseWriter, _ *http.Request) {
			cloudtest.WriteJSON(w, http.StatusInternalServerError, map[string]any{"faultstring": "boom"})
		}},
		{name: "5xx after making it", wantLB: true, wantPOSTs: 1, post: func(f *fakeCloud, w http.ResponseWriter, r *http.Request) {
			f.serve(discard{}, r)
			cloudtest.WriteJSON(w, http.StatusInternalServerError, map[string]any{"faultstring": "boom"})
		}},
		{name: "5xx, committed later", wantLB: true, wantPOSTs: 1, wantListed: 3, post: func(f *fakeCloud, w http.ResponseWriter, _ *http.Request) {
			f.commitOnLookup(3)
			cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"faultstring": "bad gateway"})
		}},
		{name: "no answer, committed later", wantLB: true, wantPOSTs: 1, wantListed: 3, post: func(f *fakeCloud, w http.ResponseWriter, _ *http.Request) {
			f.commitOnLookup(3)
			hangUp(w)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)
			f.api.On(http.MethodPost, "/octavia/v2/lbaas/loadbalancers", func(w http.ResponseWriter, r *http.Request) { c.post(f, w, r) })

			id, top, err := f.service().Create(cloud.WithSleeper(t.Context(), cloudtest.Instant), Spec{Name: "web", NetworkID: "net-1"}, nil)

			var lost *CreateError
			if c.wantErr != errors.As(err, &lost) || (!c.wantErr && err != nil) {
				t.Fatalf("err = %v, want a failed create: %t", err, c.wantErr)
			}

			if c.wantLB != (id != "") || (id != "" && (top == nil || top.ID != id || top.Name != "lb-web")) {
				t.Errorf("Create returned %q with %+v, want a load balancer: %t", id, top, c.wantLB)
			}

			if n := f.api.Count("POST /octavia/v2/lbaas/loadbalancers"); n != c.wantPOSTs {
				t.Errorf("%d POSTs, want %d", n, c.wantPOSTs)
			}

			if n := f.api.Count("GET /octavia/v2/lbaas/loadbalancers"); n < c.wantListed {
				t.Errorf("%d name lookups, want at least %d", n, c.wantListed)
			}

			if f.mu.Lock(); len(f.lbs) != map[bool]int{true: 1}[c.wantLB] {
				t.Errorf("%d load balancers in Octavia, want exactly the one returned", len(f.lbs))
			}

			f.mu.Unlock()
		})
	}
}

// commitOnLookup makes Octavia show the load balancer of a lost POST only at the n-th listing
// (it commits it while the provider looks), with the creation mark the POST carried.
func (f *fakeCloud) commitOnLookup(n int) {
	f.api.On(http.MethodGet, "/octavia/v2/lbaas/loadbalancers", func(w http.ResponseWriter, r *http.Request) {
		if f.api.Count("GET /octavia/v2/lbaas/loadbalancers") == n {
			f.addLB("lb-web", StatusActive, created.Tags()...)
		}

		f.serve(w, r)
	})
}

// discard is a ResponseWriter that forgets the answer.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
}

// TestEnsure_updateOnTheRecordedVIP: an update of the recorded load balancer, whose VIP is on the
// configured network, reads no network when it adds no address (the VIP subnet is the load
// balancer's), and checks the addresses it adds before any change.
func TestEnsure_updateOnTheRecordedVIP(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)

	networkReads := func() (n int) {
		for _, c := range f.api.Calls() {
			if strings.Contains(c, "/networks") || strings.Contains(c, "/subnets") {
				n++
			}
		}

		return n
	}

	spec := threeListeners(false)
	spec.Listeners[0].Members[1].Weight = 9

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if _, mutations := f.counters(); networkReads() != 0 || !slices.Equal(mutations, []string{"PUT member"}) {
		t.Errorf("a weight change read the network %d times and made %v; want none and one member PUT", networkReads(), mutations)
	}

	f.resetCounters()

	spec.Listeners[1].Members = append(spec.Listeners[1].Members, Member{"10.1.0.5", 22, 1})

	_, err := svc.Ensure(t.Context(), spec, top.ID, nil)

	var outside *AddressError
	if !errors.As(err, &outside) {
		t.Fatalf("err = %v, want an *AddressError", err)
	}

	if _, mutations := f.counters(); len(mutations) != 0 || networkReads() == 0 {
		t.Errorf("a new address outside the VIP subnet: %v made, %d network reads; want none made, the network read", mutations, networkReads())
	}
}
