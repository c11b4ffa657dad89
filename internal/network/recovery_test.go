package network

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// These tests make the fake Neutron misbehave as a cloud behind a lossy proxy does (issue 12):
// an answer lost after Neutron acted (502, or the connection closed), a 503 before it acted, a
// request repeated under us, and a concurrent create of the same name between the POST and the
// re-list.

// named are the IDs of the objects of store called exactly name.
func (f *fakeNeutron) named(store map[string]map[string]any, name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	var ids []string

	for _, id := range slices.Sorted(maps.Keys(store)) {
		if store[id]["name"] == name {
			ids = append(ids, id)
		}
	}

	return ids
}

// interfaces are the router interface ports of subnetID.
func (f *fakeNeutron) interfaces(subnetID string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	var ids []string

	for _, id := range slices.Sorted(maps.Keys(f.ports)) {
		p := f.ports[id]
		for _, ip := range asList(p["fixed_ips"]) {
			if m, ok := ip.(map[string]any); ok && m["subnet_id"] == subnetID && p["device_owner"] == "network:router_interface" {
				ids = append(ids, id)
			}
		}
	}

	return ids
}

func TestEnsureNetwork_recoversEveryLostCreateInTheSameApply(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		fault fault
	}{
		{"network answer lost", fault{"POST /networks", drop502}},
		{"network connection closed", fault{"POST /networks", hangUp}},
		{"subnet answer lost", fault{"POST /subnets", drop502}},
		{"subnet connection closed", fault{"POST /subnets", hangUp}},
		{"router answer lost", fault{"POST /routers", drop502}},
		{"router connection closed", fault{"POST /routers", hangUp}},
		{"interface answer lost", fault{"/add_router_interface", drop502}},
		{"interface connection closed", fault{"/add_router_interface", hangUp}},
		{"interface 503", fault{"/add_router_interface", answer503}},
		// The first attach landed, its answer was lost and the call was repeated: Neutron
		// refuses the repeat (a second interface on the subnet), which must not reach the user.
		{"interface repeated", fault{"/add_router_interface", actTwice}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f, _ := externalFake()
			svc := f.service(t, nil)
			f.inject(tt.fault)

			out, err := svc.EnsureNetwork(cloud.WithSleeper(t.Context(), cloudtest.Instant), testSpec(t, "a"), Ref{})
			if err != nil {
				t.Fatalf("the lost create was not recovered: %v", err)
			}

			if !out.Complete() {
				t.Fatalf("incomplete network: %+v", out)
			}

			for what, store := range map[string]map[string]map[string]any{"network": f.networks, "subnet": f.subnets, "router": f.routers} {
				if ids := f.named(store, "network-a"); len(ids) != 1 {
					t.Fatalf("%d %ss network-a, want one: %v", len(ids), what, ids)
				}
			}

			if ids := f.interfaces(out.Subnet.ID); !slices.Equal(ids, []string{out.InterfacePortID}) {
				t.Fatalf("router interfaces %v, want exactly %s", ids, out.InterfacePortID)
			}
		})
	}
}

func TestEnsureNetwork_twinOfAConcurrentCreateIsRemovedWithAnErrorNamingBoth(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct{ call, kind string }{
		{"POST /networks", "network"},
		{"POST /subnets", "subnet"},
		{"POST /routers", "router"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			t.Parallel()

			f, _ := externalFake()
			svc := f.service(t, nil)
			f.inject(fault{tt.call, twin})

			_, err := svc.EnsureNetwork(cloud.WithSleeper(t.Context(), cloudtest.Instant), testSpec(t, "a"), Ref{})

			var tw *cloud.TwinError
			if !errors.As(err, &tw) || tw.Kind != tt.kind {
				t.Fatalf("err = %v, want a %s twin error", err, tt.kind)
			}

			store := map[string]map[string]map[string]any{"network": f.networks, "subnet": f.subnets, "router": f.routers}[tt.kind]

			if ids := f.named(store, "network-a"); !slices.Equal(ids, []string{tw.Kept}) || tw.Removed == tw.Kept {
				t.Fatalf("%ss left: %v, want only the other one %s (removed %s)", tt.kind, ids, tw.Kept, tw.Removed)
			}

			if !strings.Contains(err.Error(), tw.Kept) || !strings.Contains(err.Error(), tw.Removed) {
				t.Fatalf("the error does not name both: %v", err)
			}
		})
	}
}

func TestEnsureSecurityGroup_recoversLostCreates(t *testing.T) {
	t.Parallel()

	for _, ft := range []fault{
		{"POST /security-groups", drop502},
		{"POST /security-groups", hangUp},
		{"POST /security-group-rules", drop502},
		{"POST /security-group-rules", hangUp},
		{"POST /security-group-rules", answer503},
	} {
		t.Run(fmt.Sprint(ft), func(t *testing.T) {
			t.Parallel()

			f, svc, _ := groupFake(t)
			f.inject(ft)

			rules := []Rule{tcp(22, "10.0.0.0/8"), tcp(443, "0.0.0.0/0")}

			out, err := svc.EnsureSecurityGroup(cloud.WithSleeper(t.Context(), cloudtest.Instant), SecurityGroupSpec{Name: "web", Rules: rules}, "")
			if err != nil {
				t.Fatalf("the lost create was not recovered: %v", err)
			}

			if ids := f.named(f.groups, "securitygroup-web"); !slices.Equal(ids, []string{out.ID}) {
				t.Fatalf("groups %v, want exactly %s", ids, out.ID)
			}

			if got := len(neutronRulesOf(f, out.ID)); got != 4 || len(out.Rules) != 4 {
				t.Fatalf("Neutron holds %d rules, the result %d; want 2 + 2 default egress", got, len(out.Rules))
			}
		})
	}
}

func TestEnsureSecurityGroup_twinOfAConcurrentCreateIsRemoved(t *testing.T) {
	t.Parallel()

	f, svc, _ := groupFake(t)
	f.inject(fault{"POST /security-groups", twin})

	_, err := svc.EnsureSecurityGroup(cloud.WithSleeper(t.Context(), cloudtest.Instant), SecurityGroupSpec{Name: "web"}, "")

	var tw *cloud.TwinError
	if !errors.As(err, &tw) {
		t.Fatalf("err = %v, want a twin error", err)
	}

	if ids := f.named(f.groups, "securitygroup-web"); !slices.Equal(ids, []string{tw.Kept}) {
		t.Fatalf("groups %v, want only the other one %s", ids, tw.Kept)
	}
}

func TestEnsureFloatingIP_recoversALostCreate(t *testing.T) {
	t.Parallel()

	for _, kind := range []faultKind{drop502, hangUp} {
		t.Run(fmt.Sprint(kind), func(t *testing.T) {
			t.Parallel()

			f, svc, out := ensured(t)
			port := f.add(f.ports, map[string]any{
				"name": "server-web", "network_id": out.ID, "device_owner": "compute:nova",
				"fixed_ips": []any{map[string]any{"subnet_id": out.Subnet.ID, "ip_address": "192.168.10.130"}},
			})

			f.inject(fault{"POST /floatingips", kind})

			want := PublicAddress{ProjectID: fakeProject, PortID: port, NetworkID: out.ID, SubnetID: out.Subnet.ID, Description: "unikorn_server server-web"}

			fip, err := EnsureFloatingIP(cloud.WithSleeper(t.Context(), cloudtest.Instant), svc.sc, want)
			if err != nil {
				t.Fatalf("the lost create was not recovered: %v", err)
			}

			all, err := ListFloatingIPs(context.Background(), svc.sc, floatingips.ListOpts{})
			if err != nil {
				t.Fatal(err)
			}

			if len(all) != 1 || all[0].ID != fip.ID || fip.PortID != port || fip.Description != want.Description {
				t.Fatalf("floating IPs %+v, want exactly %+v on port %s", all, fip, port)
			}
		})
	}
}

// replaced deletes network a from the fake (as another workspace's destroy would) and makes a
// new network a that a create of this provider left unfinished (killed before its last step),
// returning the new one.
func replaced(t *testing.T, f *fakeNeutron, svc *Service, old *Network) *Network {
	t.Helper()

	if err := svc.DeleteNetwork(context.Background(), "a", old.Ref()); err != nil {
		t.Fatal(err)
	}

	newer := mustEnsure(t, svc, testSpec(t, "a"))
	f.unfinish(f.networks, newer.ID)

	return newer
}

func TestObserveNetwork_saysWhatItFoundAgainByName(t *testing.T) {
	t.Parallel()

	f, svc, old := ensured(t)
	newer := replaced(t, f, svc, old)

	got, err := svc.ObserveNetwork(context.Background(), "a", old.Ref())
	if err != nil || got == nil || got.ID != newer.ID {
		t.Fatalf("observe: %v, %+v", err, got)
	}

	if len(got.Refound) != 3 {
		t.Fatalf("refound %+v, want the network, subnet and router", got.Refound)
	}

	for _, rf := range got.Refound {
		if rf.Name != "network-a" || rf.OldID == rf.NewID || rf.CreatedAt.IsZero() {
			t.Fatalf("refound %+v", rf)
		}
	}

	if rf := got.Refound[0]; rf.Kind != "network" || rf.OldID != old.ID || rf.NewID != newer.ID {
		t.Fatalf("refound network %+v, want %s -> %s", rf, old.ID, newer.ID)
	}

	// Found by its recorded IDs: nothing to say.
	if got, err := svc.ObserveNetwork(context.Background(), "a", newer.Ref()); err != nil || len(got.Refound) != 0 {
		t.Fatalf("observe by ID: %v, %+v", err, got)
	}
}

func TestObserveSecurityGroup_saysWhatItFoundAgainByName(t *testing.T) {
	t.Parallel()

	f, svc, ctx := groupFake(t)

	old := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, "")

	if err := svc.DeleteSecurityGroup(ctx, "g", old.ID); err != nil {
		t.Fatal(err)
	}

	newer := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, "")

	// A finished group of the name is another configuration's: the recorded one is gone.
	if got, err := svc.ObserveSecurityGroup(ctx, "g", old.ID); err != nil || got != nil {
		t.Fatalf("a finished group was taken for the one recorded: %v, %+v", err, got)
	}

	f.unfinish(f.groups, newer.ID) // an interrupted create of this provider

	got, err := svc.ObserveSecurityGroup(ctx, "g", old.ID)
	if err != nil || got == nil || got.ID != newer.ID {
		t.Fatalf("observe: %v, %+v", err, got)
	}

	if len(got.Refound) != 1 || got.Refound[0].OldID != old.ID || got.Refound[0].NewID != newer.ID || got.Refound[0].CreatedAt.IsZero() {
		t.Fatalf("refound %+v, want %s -> %s with its creation time", got.Refound, old.ID, newer.ID)
	}
}

func TestRefoundDetail_namesBothIDsAndWhenTheNewOneWasMade(t *testing.T) {
	t.Parallel()

	rf := Refound{Kind: "network", Name: "network-a", OldID: "old-id", NewID: "new-id", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	detail := refoundDetail(rf, cloud.NewTenant(nil, fakeProject, "RegionOne"))

	for _, want := range []string{"network-a", "old-id", "new-id", "2026-01-02T03:04:05Z"} {
		if !strings.Contains(detail, want) {
			t.Fatalf("the warning does not say %q: %s", want, detail)
		}
	}
}

func TestDeleteNetwork_actsOnRecordedIDsOnly(t *testing.T) {
	t.Parallel()

	f, svc, old := ensured(t)
	newer := replaced(t, f, svc, old)

	// An old state whose router was never recorded (its create failed before the attach):
	// destroying it must leave the newer network of the same name alone.
	stale := old.Ref()
	stale.RouterID = ""

	if err := svc.DeleteNetwork(context.Background(), "a", stale); err != nil {
		t.Fatalf("deleting the old network: %v", err)
	}

	if _, ok := f.networks[newer.ID]; !ok {
		t.Fatal("the newer network was deleted")
	}

	if _, ok := f.routers[newer.Router.ID]; !ok {
		t.Fatal("the newer network's router was deleted")
	}

	if ids := f.interfaces(newer.Subnet.ID); len(ids) != 1 {
		t.Fatalf("the newer network's router interface was removed: %v", ids)
	}
}

func TestDeleteNetwork_deletesTheUnattachedRouterOfItsFailedCreate(t *testing.T) {
	t.Parallel()

	f, svc, out := ensured(t)

	// The attach never happened: the state records the network and subnet, not the router.
	delete(f.ports, out.InterfacePortID)

	stale := out.Ref()
	stale.RouterID = ""

	if err := svc.DeleteNetwork(context.Background(), "a", stale); err != nil {
		t.Fatal(err)
	}

	if len(f.named(f.routers, "network-a")) != 0 || len(f.named(f.networks, "network-a")) != 0 {
		t.Fatalf("left behind: routers %v, networks %v", f.routers, f.networks)
	}
}

func TestDeleteSecurityGroup_actsOnTheRecordedIDOnly(t *testing.T) {
	t.Parallel()

	f, svc, ctx := groupFake(t)

	old := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, "")

	delete(f.groups, old.ID)

	newer := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, "")

	if err := svc.DeleteSecurityGroup(ctx, "g", old.ID); err != nil {
		t.Fatal(err)
	}

	if _, ok := f.groups[newer.ID]; !ok {
		t.Fatal("deleting the old group by its recorded ID deleted the newer one")
	}
}

// TestEnsure_adoptionIsAnnounced: a create that finds the network or the group that an
// interrupted create left unfinished adopts it and says so, with its ID and creation time; one
// that makes the object, or converges the recorded one, says nothing (issue 12, behaviour 7).
func TestEnsure_adoptionIsAnnounced(t *testing.T) {
	t.Parallel()

	f, svc, first := ensured(t)
	if len(first.Refound) != 0 {
		t.Fatalf("a fresh create noted %+v", first.Refound)
	}

	f.unfinish(f.networks, first.ID) // killed before its last step

	again := mustEnsure(t, svc, testSpec(t, "a")) // nothing recorded: the create of a new apply
	if len(again.Refound) != 1 || !again.Refound[0].Adopted || again.Refound[0].NewID != first.ID || again.Refound[0].CreatedAt.IsZero() {
		t.Fatalf("adoption noted %+v, want the network %s adopted with its creation time", again.Refound, first.ID)
	}

	if got, err := svc.EnsureNetwork(context.Background(), testSpec(t, "a"), first.Ref()); err != nil || len(got.Refound) != 0 {
		t.Fatalf("update by recorded IDs: %v, notes %+v", err, got)
	}

	gf, gsvc, _ := groupFake(t)

	g := mustEnsureGroup(t, gsvc, SecurityGroupSpec{Name: "g"}, "")
	gf.unfinish(gf.groups, g.ID)

	adopted := mustEnsureGroup(t, gsvc, SecurityGroupSpec{Name: "g"}, "")

	if len(g.Refound) != 0 || len(adopted.Refound) != 1 || !adopted.Refound[0].Adopted || adopted.Refound[0].NewID != g.ID {
		t.Fatalf("group notes %+v then %+v, want nothing then %s adopted", g.Refound, adopted.Refound, g.ID)
	}

	detail := adoptedDetail(adopted.Refound[0], cloud.NewTenant(nil, fakeProject, "RegionOne"))
	for _, want := range []string{"securitygroup-g", g.ID, "adopted", "interrupted create"} {
		if !strings.Contains(detail, want) {
			t.Fatalf("the warning does not say %q: %s", want, detail)
		}
	}
}
