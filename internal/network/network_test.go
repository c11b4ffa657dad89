package network

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// withExternal adds the external network "public" and returns its ID.
func withExternal(f *fakeNeutron) string {
	return f.add(f.networks, map[string]any{"name": "public", "router:external": true, "project_id": "admin", "tags": []any{"public"}})
}

// externalFake is a fake with the external network "public", and its ID.
func externalFake() (*fakeNeutron, string) {
	f := newFakeNeutron()
	return f, withExternal(f)
}

func testSpec(t *testing.T, name string) Spec {
	t.Helper()

	a, err := PlanAddressing(netip.MustParsePrefix("192.168.10.0/24"), nil)
	if err != nil {
		t.Fatal(err)
	}

	return Spec{
		Name:           name,
		Addressing:     a,
		DNSNameservers: []string{"192.0.2.53"},
		Routes:         []Route{{Destination: "10.20.0.0/16", NextHop: "192.168.10.254"}},
		Description:    new("test"),
	}
}

// ensured is a fake with the external network "public", a service on it, and network a made
// by EnsureNetwork (the recorded requests forgotten).
func ensured(t *testing.T) (*fakeNeutron, *Service, *Network) {
	t.Helper()

	f, _ := externalFake()

	svc := f.service(t, nil)
	out := mustEnsure(t, svc, testSpec(t, "a"))

	f.calls()

	return f, svc, out
}

// mustEnsure is svc.EnsureNetwork of spec with nothing known yet, which must succeed.
func mustEnsure(t *testing.T, svc *Service, spec Spec) *Network {
	t.Helper()

	out, err := svc.EnsureNetwork(context.Background(), spec, Ref{})
	if err != nil {
		t.Fatal(err)
	}

	return out
}

func TestEnsureNetwork_createsEverythingMarkedInEighteenRequests(t *testing.T) {
	t.Parallel()

	f, external := externalFake()
	svc := f.service(t, nil)

	out := mustEnsure(t, svc, testSpec(t, "a"))

	creation, completion := naming.MarkPrefix+TypeNetwork, naming.MarkCompletedTag

	calls := f.calls()
	want := []string{
		"GET /networks",  // the external networks (once per region and process)
		"GET /subnets",   // their subnets, for the overlap check before anything is made (likewise)
		"GET /networks",  // look up network-a
		"GET /routers",   // and its router, before anything is written
		"POST /networks", // create it, described with the creation mark
		"GET /networks",  // no twin made by a concurrent create
		"PUT /networks/" + out.ID + "/tags/" + creation, // the creation mark as a tag
		"PUT /networks/" + out.ID,                       // its own description
		"POST /subnets",                                 // a new network has no subnet: no lookup
		"GET /subnets",                                  // no twin
		"PUT /subnets/" + out.Subnet.ID + "/tags/" + creation,
		"PUT /subnets/" + out.Subnet.ID,
		"POST /routers", // create the router
		"GET /routers",  // no twin
		"PUT /routers/" + out.Router.ID + "/tags/" + creation,
		"PUT /routers/" + out.Router.ID,
		"PUT /routers/" + out.Router.ID + "/add_router_interface",
		"PUT /networks/" + out.ID + "/tags/" + completion, // the completion mark, last
	}

	if !slices.Equal(calls, want) {
		t.Fatalf("requests:\n got %q\nwant %q", calls, want)
	}

	if !out.Complete() {
		t.Fatalf("incomplete network: %+v", out)
	}

	if out.Name != "network-a" || out.Router.ExternalNetworkID != external {
		t.Fatalf("network %q router gateway %q", out.Name, out.Router.ExternalNetworkID)
	}

	s := out.Subnet
	if s.CIDR != "192.168.10.0/24" || s.GatewayIP != "192.168.10.1" ||
		len(s.AllocationPools) != 1 || s.AllocationPools[0].String() != "192.168.10.128-192.168.10.254" {
		t.Fatalf("subnet addressing: %+v", s)
	}

	if !slices.Equal(s.DNSNameservers, []string{"192.0.2.53"}) || len(s.Routes) != 1 {
		t.Fatalf("subnet options: %+v", s)
	}

	// The network carries both marks, its parts the creation mark; every one its own description.
	for _, o := range []struct {
		what  string
		store map[string]map[string]any
		id    string
		tags  []string
	}{
		{"network", f.networks, out.ID, []string{creation, completion}},
		{"subnet", f.subnets, out.Subnet.ID, []string{creation}},
		{"router", f.routers, out.Router.ID, []string{creation}},
	} {
		if got := f.tagsOf(o.store, o.id); !slices.Equal(got, o.tags) {
			t.Errorf("%s tags %q, want %q", o.what, got, o.tags)
		}

		if d := o.store[o.id]["description"]; d != "test" {
			t.Errorf("%s description %q, want the spec's", o.what, d)
		}
	}

	// The second ensure changes nothing and creates nothing.
	if _, err := svc.EnsureNetwork(context.Background(), testSpec(t, "a"), out.Ref()); err != nil {
		t.Fatal(err)
	}

	calls = f.calls()
	if n := count(calls, "POST") + count(calls, "PUT"); n != 0 {
		t.Fatalf("a converged network was changed: %q", calls)
	}
}

func TestEnsureNetwork_nearMissNamesAreLeftAlone(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()

	// The fake's name filter is a prefix match: network-a finds network-ab.
	ab := f.add(f.networks, map[string]any{"name": "network-ab"})
	abRouter := f.add(f.routers, map[string]any{"name": "network-ab"})
	f.add(f.subnets, map[string]any{"name": "network-ab", "network_id": ab, "cidr": "192.168.10.0/24"})

	svc := f.service(t, nil)

	out := mustEnsure(t, svc, testSpec(t, "a"))

	if out.ID == ab || out.Router.ID == abRouter || out.Name != "network-a" {
		t.Fatalf("network-a aliased network-ab: %+v", out)
	}

	if f.networks[ab]["name"] != "network-ab" || len(f.networks) != 3 {
		t.Fatalf("network-ab was touched, or no network-a was made: %v", f.networks)
	}

	// Reading and deleting a by name never reaches ab either.
	got, err := svc.ObserveNetwork(context.Background(), "a", Ref{})
	if err != nil || got.ID != out.ID {
		t.Fatalf("observe by name: %v, %+v", err, got)
	}

	if err := svc.DeleteNetwork(context.Background(), "a", Ref{}); err != nil {
		t.Fatal(err)
	}

	if _, ok := f.networks[ab]; !ok {
		t.Fatal("deleting network-a deleted network-ab")
	}

	if _, ok := f.routers[abRouter]; !ok {
		t.Fatal("deleting network-a deleted the router network-ab")
	}
}

func TestEnsureNetwork_duplicateNamesAreAnErrorNamingBoth(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()

	one := f.add(f.networks, map[string]any{"name": "network-a"})
	two := f.add(f.networks, map[string]any{"name": "network-a"})

	svc := f.service(t, nil)

	_, err := svc.EnsureNetwork(context.Background(), testSpec(t, "a"), Ref{})

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) {
		t.Fatalf("err = %v, want a duplicate error", err)
	}

	if !strings.Contains(err.Error(), one) || !strings.Contains(err.Error(), two) {
		t.Fatalf("the error does not name both IDs: %v", err)
	}

	if calls := f.calls(); count(calls, "POST") != 0 {
		t.Fatalf("something was created despite the duplicate: %q", calls)
	}
}

// TestEnsureNetwork_adoptsWhatAnInterruptedCreateLeft: a network that a create began and never
// finished (tagged with the creation mark; or only posted, its description still the mark) is
// adopted, completed with the rest of the parts, and given the completion mark.
func TestEnsureNetwork_adoptsWhatAnInterruptedCreateLeft(t *testing.T) {
	t.Parallel()

	for _, posted := range []bool{false, true} {
		t.Run(map[bool]string{false: "tagged", true: "posted only"}[posted], func(t *testing.T) {
			t.Parallel()

			f, _ := externalFake()

			net := f.addMarked(f.networks, map[string]any{"name": "network-a"}, naming.MadeFor(TypeNetwork), posted)
			svc := f.service(t, nil)

			out := mustEnsure(t, svc, testSpec(t, "a"))

			if out.ID != net {
				t.Fatalf("adopted %s, want %s", out.ID, net)
			}

			calls := f.calls()
			if count(calls, "POST /networks") != 0 || count(calls, "POST /subnets") != 1 || count(calls, "POST /routers") != 1 {
				t.Fatalf("requests: %q", calls)
			}

			want := []string{naming.MarkPrefix + TypeNetwork, naming.MarkCompletedTag}
			if got := f.tagsOf(f.networks, net); !slices.Equal(got, want) {
				t.Fatalf("network tags %q, want %q", got, want)
			}

			if d := f.networks[net]["description"]; d != "test" || out.Description != "test" {
				t.Fatalf("description %q (read %q), want the spec's", d, out.Description)
			}
		})
	}
}

func TestEnsureNetwork_adoptedSubnetWithOtherCIDRIsAnError(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()

	mark := naming.MadeFor(TypeNetwork)
	net := f.addMarked(f.networks, map[string]any{"name": "network-a"}, mark, false)
	f.addMarked(f.subnets, map[string]any{"name": "network-a", "network_id": net, "cidr": "10.9.0.0/24"}, mark, false)

	_, err := f.service(t, nil).EnsureNetwork(context.Background(), testSpec(t, "a"), Ref{})
	if err == nil || !strings.Contains(err.Error(), "10.9.0.0/24") {
		t.Fatalf("err = %v, want a CIDR mismatch", err)
	}

	if w := f.api.Writes(); len(w) != 0 {
		t.Fatalf("written before the refusal: %q", w)
	}
}

func TestEnsureNetwork_updatesInPlaceAndRestoresMissingParts(t *testing.T) {
	t.Parallel()

	f, svc, out := ensured(t)
	ctx := context.Background()

	// The router interface disappears out of band.
	delete(f.ports, out.InterfacePortID)

	spec := testSpec(t, "a")
	spec.DNSNameservers = []string{"192.0.2.54", "192.0.2.55"}
	spec.Routes = nil
	spec.Description = new("changed")

	got, err := svc.EnsureNetwork(ctx, spec, out.Ref())
	if err != nil {
		t.Fatal(err)
	}

	calls := f.calls()
	if count(calls, "POST") != 0 || count(calls, "PUT /subnets/") != 1 || count(calls, "/add_router_interface") != 1 {
		t.Fatalf("requests: %q", calls)
	}

	if got.ID != out.ID || got.Subnet.ID != out.Subnet.ID || got.Router.ID != out.Router.ID || got.InterfacePortID == "" {
		t.Fatalf("IDs changed or the interface was not restored: %+v", got)
	}

	if !slices.Equal(got.Subnet.DNSNameservers, spec.DNSNameservers) || len(got.Subnet.Routes) != 0 ||
		got.Description != "changed" || got.Subnet.Description != "changed" || got.Router.Description != "changed" {
		t.Fatalf("not converged: %+v %+v %+v", got, got.Subnet, got.Router)
	}
}

// TestObserveNetwork_refindsByNameOnlyAnUnfinishedCreate: a network gone by its recorded ID is
// found again by name only when the one found is an interrupted create of a unikorn_network; a
// finished one (another configuration's) is taken as gone.
func TestObserveNetwork_refindsByNameOnlyAnUnfinishedCreate(t *testing.T) {
	t.Parallel()

	f, svc, out := ensured(t)
	ctx := context.Background()

	stale := Ref{NetworkID: "00000000-dead-4000-8000-000000000000", SubnetID: "gone", RouterID: "gone"}

	got, err := svc.ObserveNetwork(ctx, "a", stale)
	if err != nil || got != nil {
		t.Fatalf("a finished network was taken for the one recorded: %+v, %v", got, err)
	}

	f.unfinish(f.networks, out.ID)

	got, err = svc.ObserveNetwork(ctx, "a", stale)
	if err != nil {
		t.Fatal(err)
	}

	if got.ID != out.ID || !got.Complete() {
		t.Fatalf("not re-found by name: %+v", got)
	}

	if err := svc.DeleteNetwork(ctx, "a", out.Ref()); err != nil {
		t.Fatal(err)
	}

	got, err = svc.ObserveNetwork(ctx, "a", out.Ref())
	if err != nil || got != nil {
		t.Fatalf("a deleted network is observed: %+v, %v", got, err)
	}
}

func TestDeleteNetwork_orderAnd404s(t *testing.T) {
	t.Parallel()

	f, svc, out := ensured(t)
	ctx := context.Background()

	if err := svc.DeleteNetwork(ctx, "a", out.Ref()); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"PUT /routers/" + out.Router.ID + "/remove_router_interface",
		"DELETE /routers/" + out.Router.ID,
		"DELETE /subnets/" + out.Subnet.ID,
		"DELETE /networks/" + out.ID,
	}

	if calls := f.calls(); !slices.Equal(calls, want) {
		t.Fatalf("requests:\n got %q\nwant %q", calls, want)
	}

	// Everything is gone: a second delete is a success of 404s.
	if err := svc.DeleteNetwork(ctx, "a", out.Ref()); err != nil {
		t.Fatalf("deleting again: %v", err)
	}
}

func TestDeleteNetwork_reportsPortsInUseByNameAndOwner(t *testing.T) {
	t.Parallel()

	f, svc, out := ensured(t)
	ctx := context.Background()

	f.add(f.ports, map[string]any{
		"name": "server-web", "network_id": out.ID, "device_owner": "compute:nova", "device_id": "vm-1",
		"fixed_ips": []any{map[string]any{"subnet_id": out.Subnet.ID, "ip_address": "192.168.10.130"}},
	})

	err := svc.DeleteNetwork(ctx, "a", out.Ref())

	var inUse *InUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("err = %v, want an in-use error", err)
	}

	for _, want := range []string{"server-web", "compute:nova", "vm-1", "network-a"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the error does not say %q: %v", want, err)
		}
	}
}

func TestEnsureNetwork_vlanFromNeutronsTruth(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()

	// VLAN 100 is used by another project's network; 101 is being taken by a concurrent
	// apply that Neutron does not list yet.
	f.add(f.networks, map[string]any{
		"name": "other", "project_id": "project-2", "provider:network_type": "vlan",
		"provider:physical_network": "physnet1", "provider:segmentation_id": 100,
	})
	f.hiddenVLANs[101] = true

	cfg := NewConfig(ExternalNetworkSelector{}, &ProviderNetwork{
		PhysicalNetwork: "physnet1",
		VLANRanges:      []VLANRange{{Start: 100, End: 102}},
	})

	svc := f.service(t, cfg)
	ctx := context.Background()

	out := mustEnsure(t, svc, testSpec(t, "a"))

	if out.VLANID == nil || *out.VLANID != 102 {
		t.Fatalf("VLAN %v, want 102 (100 in use, 101 lost to a race)", out.VLANID)
	}

	if calls := f.calls(); count(calls, "POST /networks") != 2 {
		t.Fatalf("want one 409 and one success: %q", calls)
	}

	// Nothing is left: the next network fails and says why.
	_, err := svc.EnsureNetwork(ctx, testSpec(t, "b"), Ref{})

	var full *ErrNoFreeVLAN
	if !errors.As(err, &full) || !strings.Contains(err.Error(), "physnet1") {
		t.Fatalf("err = %v, want no free VLAN", err)
	}
}

func TestEnsureNetwork_externalNetworkSelector(t *testing.T) {
	t.Parallel()

	f := newFakeNeutron()
	f.add(f.networks, map[string]any{"name": "ext-a", "router:external": true, "tags": []any{"other"}})
	wanted := f.add(f.networks, map[string]any{"name": "ext-b", "router:external": true, "tags": []any{"public", "fast"}})

	cfg := NewConfig(ExternalNetworkSelector{Tags: []string{"public"}}, nil)

	out := mustEnsure(t, f.service(t, cfg), testSpec(t, "a"))

	if out.Router.ExternalNetworkID != wanted {
		t.Fatalf("router on %s, want %s", out.Router.ExternalNetworkID, wanted)
	}

	// A selector nothing passes is an error that says so.
	cfg = NewConfig(ExternalNetworkSelector{IDs: []string{"nope"}}, nil)

	_, err := f.service(t, cfg).EnsureNetwork(context.Background(), testSpec(t, "b"), Ref{})
	if err == nil || !strings.Contains(err.Error(), "selector") {
		t.Fatalf("err = %v", err)
	}
}

func TestExternalNetworkSelector(t *testing.T) {
	t.Parallel()

	tests := []struct {
		sel  ExternalNetworkSelector
		id   string
		tags []string
		want bool
	}{
		{ExternalNetworkSelector{}, "a", nil, true},
		{ExternalNetworkSelector{IDs: []string{"a"}}, "a", nil, true},
		{ExternalNetworkSelector{IDs: []string{"a"}}, "b", nil, false},
		{ExternalNetworkSelector{Tags: []string{"x", "y"}}, "a", []string{"y", "x", "z"}, true},
		{ExternalNetworkSelector{Tags: []string{"x", "y"}}, "a", []string{"x"}, false},
		{ExternalNetworkSelector{IDs: []string{"a"}, Tags: []string{"x"}}, "a", []string{"z"}, false},
	}

	for _, tt := range tests {
		if got := tt.sel.Admits(tt.id, tt.tags); got != tt.want {
			t.Errorf("%v admits (%s, %v) = %v, want %v", tt.sel, tt.id, tt.tags, got, tt.want)
		}
	}
}
