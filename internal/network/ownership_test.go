package network

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// These tests hold the ownership rule of unikorn_network and unikorn_security_group (issue 26,
// item 5): a create adopts only what an interrupted create of its type left unfinished, and
// refuses anything else before it writes anything.

// wantExists checks that err is a *cloud.ExistsError about the object id of claim, and that
// the fake recorded no write; it returns what the refusal says of the object.
func wantExists(t *testing.T, f *fakeNeutron, err error, id string, claim cloud.Claim) cloud.Existing {
	t.Helper()

	var exists *cloud.ExistsError
	if !errors.As(err, &exists) || exists.ID != id || exists.Claim != claim {
		t.Fatalf("err = %v, want an ExistsError of %s (claim %v)", err, id, claim)
	}

	if w := f.api.Writes(); len(w) != 0 {
		t.Fatalf("written before the refusal: %q", w)
	}

	return exists.Existing
}

// TestEnsureNetwork_refusesWhatItMayNotAdopt: a create that meets a network of its name made by
// someone else, finished by another configuration or made for another type, or whose subnet or
// router lacks a unikorn_network's creation mark, fails with an ExistsError that says how to
// import it, before any write (the network, subnet and router of another configuration are
// never rewritten).
func TestEnsureNetwork_refusesWhatItMayNotAdopt(t *testing.T) {
	t.Parallel()

	interrupted := naming.MadeFor(TypeNetwork)

	tests := []struct {
		name  string
		setup func(f *fakeNeutron) string // the ID of the object the refusal names
		claim cloud.Claim
		part  bool
	}{
		{"made by hand", func(f *fakeNeutron) string {
			return f.add(f.networks, map[string]any{"name": "network-a"})
		}, cloud.ClaimForeign, false},
		{"finished by another configuration", func(f *fakeNeutron) string {
			return f.addMarked(f.networks, map[string]any{"name": "network-a"}, interrupted.Done(), false)
		}, cloud.ClaimFinished, false},
		{"made for another type", func(f *fakeNeutron) string {
			return f.addMarked(f.networks, map[string]any{"name": "network-a"}, naming.MadeFor("unikorn_provider_network"), true)
		}, cloud.ClaimOtherKind, false},
		{"interrupted, with a subnet made by hand", func(f *fakeNeutron) string {
			net := f.addMarked(f.networks, map[string]any{"name": "network-a"}, interrupted, false)
			return f.add(f.subnets, map[string]any{"name": "network-a", "network_id": net, "cidr": "192.168.10.0/24"})
		}, cloud.ClaimForeign, true},
		{"interrupted, with a router made by hand", func(f *fakeNeutron) string {
			f.addMarked(f.networks, map[string]any{"name": "network-a"}, interrupted, false)
			return f.add(f.routers, map[string]any{"name": "network-a"})
		}, cloud.ClaimForeign, true},
		{"no network, a router made by hand", func(f *fakeNeutron) string {
			return f.add(f.routers, map[string]any{"name": "network-a"})
		}, cloud.ClaimForeign, true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f, _ := externalFake()
			id := tt.setup(f)

			_, err := f.service(t, nil).EnsureNetwork(context.Background(), testSpec(t, "a"), Ref{})

			exists := wantExists(t, f, err, id, tt.claim)

			want := "terraform import unikorn_network.<address> RegionOne/" + id
			if tt.part {
				want = `part of unikorn_network "a"`
			}

			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fakeProject) {
				t.Fatalf("the refusal does not say %q and where: %v", want, err)
			}

			if (exists.Part != "") != tt.part {
				t.Fatalf("part %q", exists.Part)
			}
		})
	}
}

// TestEnsureNetwork_secondConfigurationLeavesTheFirstAlone: a second configuration's network of
// the same name (another cidr, other DNS servers) is refused, and the first one's subnet and
// router keep what they had.
func TestEnsureNetwork_secondConfigurationLeavesTheFirstAlone(t *testing.T) {
	t.Parallel()

	f, svc, first := ensured(t)

	spec := testSpec(t, "a")
	spec.DNSNameservers = []string{"198.51.100.53"}
	spec.Description = new("the second configuration's")

	_, err := svc.EnsureNetwork(context.Background(), spec, Ref{})
	wantExists(t, f, err, first.ID, cloud.ClaimFinished)

	got, err := svc.ObserveNetwork(context.Background(), "a", first.Ref())
	if err != nil || got == nil || !got.Complete() {
		t.Fatalf("the first network: %v, %+v", err, got)
	}

	if !slices.Equal(got.Subnet.DNSNameservers, first.Subnet.DNSNameservers) || got.Description != "test" ||
		got.Router.Description != "test" || got.Subnet.Description != "test" {
		t.Fatalf("the first network was changed: %+v %+v %+v", got, got.Subnet, got.Router)
	}
}

// TestEnsureSecurityGroup_refusesWhatItMayNotAdopt: a second configuration's group of the same
// name, or one made by hand, is refused before any write: the first one's rules stay.
func TestEnsureSecurityGroup_refusesWhatItMayNotAdopt(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct {
		name  string
		claim cloud.Claim
		setup func(t *testing.T, f *fakeNeutron, svc *Service) string
	}{
		{"finished by another configuration", cloud.ClaimFinished, func(t *testing.T, _ *fakeNeutron, svc *Service) string {
			return mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: []Rule{tcp(22, "10.0.0.0/8")}}, "").ID
		}},
		{"made by hand", cloud.ClaimForeign, func(_ *testing.T, f *fakeNeutron, _ *Service) string {
			id := f.add(f.groups, map[string]any{"name": "securitygroup-web"})
			f.add(f.rules, map[string]any{
				"security_group_id": id, "direction": "ingress", "ethertype": "IPv4", "protocol": "tcp",
				"port_range_min": 22, "port_range_max": 22, "remote_ip_prefix": "10.0.0.0/8",
			})

			return id
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f, svc, ctx := groupFake(t)
			id := tt.setup(t, f, svc)
			before := neutronRulesOf(f, id)
			f.calls()

			_, err := svc.EnsureSecurityGroup(ctx, SecurityGroupSpec{Name: "web", Rules: []Rule{tcp(443, "0.0.0.0/0")}}, "")
			wantExists(t, f, err, id, tt.claim)

			if !strings.Contains(err.Error(), "terraform import unikorn_security_group.<address> RegionOne/"+id) {
				t.Fatalf("the refusal does not say how to import: %v", err)
			}

			if after := neutronRulesOf(f, id); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("rules changed:\n%v\n%v", before, after)
			}
		})
	}
}

// TestEnsureSecurityGroup_adoptsAnInterruptedCreate: a group that a create began and never
// finished (tagged, or only posted) is adopted, its rules reconciled, its description written,
// and it gets the completion mark.
func TestEnsureSecurityGroup_adoptsAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	for _, posted := range []bool{false, true} {
		t.Run(fmt.Sprint("posted only: ", posted), func(t *testing.T) {
			t.Parallel()

			f, svc, _ := groupFake(t)

			id := f.addMarked(f.groups, map[string]any{"name": "securitygroup-web"}, naming.MadeFor(TypeSecurityGroup), posted)
			f.add(f.rules, map[string]any{
				"security_group_id": id, "direction": "ingress", "ethertype": "IPv4", "protocol": "udp",
				"port_range_min": 9999, "port_range_max": 9999, "remote_ip_prefix": nil,
			})

			out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Description: new("web"), Rules: []Rule{tcp(22, "10.0.0.0/8")}}, "")

			if out.ID != id || len(out.Refound) != 1 || !out.Refound[0].Adopted {
				t.Fatalf("adopted %s (notes %+v), want %s", out.ID, out.Refound, id)
			}

			rules := neutronRulesOf(f, id)
			if len(rules) != 1 || fmt.Sprint(rules[0]["port_range_min"]) != "22" {
				t.Fatalf("rules %v, want only tcp 22", rules)
			}

			want := []string{naming.MarkPrefix + TypeSecurityGroup, naming.MarkCompletedTag}
			if got := f.tagsOf(f.groups, id); !slices.Equal(got, want) || f.groups[id]["description"] != "web" {
				t.Fatalf("tags %q, description %q", got, f.groups[id]["description"])
			}
		})
	}
}

// TestEnsure_lostAnswerRecoversOnlyItsOwnObject: a create whose answer was lost, while someone
// else made an object of its name (the POST itself never acted), takes nothing for its own:
// the refusal is the result, nothing is posted again, and the other object is left untouched.
func TestEnsure_lostAnswerRecoversOnlyItsOwnObject(t *testing.T) {
	t.Parallel()

	for _, call := range []string{"POST /networks", "POST /subnets", "POST /routers", "POST /security-groups"} {
		t.Run(call, func(t *testing.T) {
			t.Parallel()

			f, _ := externalFake()
			svc := f.service(t, nil)
			f.inject(fault{call, lostToAnother})

			ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

			var err error
			if call == "POST /security-groups" {
				_, err = svc.EnsureSecurityGroup(ctx, SecurityGroupSpec{Name: "a"}, "")
			} else {
				_, err = svc.EnsureNetwork(ctx, testSpec(t, "a"), Ref{})
			}

			var exists *cloud.ExistsError
			if !errors.As(err, &exists) || exists.Claim != cloud.ClaimForeign {
				t.Fatalf("err = %v, want the other object refused", err)
			}

			calls := f.calls()
			if n := count(calls, call); n != 1 {
				t.Fatalf("%d %s, want one: %q", n, call, calls)
			}

			for _, c := range calls {
				if strings.Contains(c, exists.ID) && !strings.HasPrefix(c, "GET") {
					t.Fatalf("the other object was written: %s", c)
				}
			}
		})
	}
}

// TestObserveNetwork_partsFoundAgainNeedTheCreationMark: a subnet or router gone by its recorded
// ID and replaced by one made by hand is taken as missing (not as the network's), and the next
// apply refuses it before any write.
func TestObserveNetwork_partsFoundAgainNeedTheCreationMark(t *testing.T) {
	t.Parallel()

	for _, part := range []string{"subnet", "router"} {
		t.Run(part, func(t *testing.T) {
			t.Parallel()

			f, svc, out := ensured(t)
			ctx := context.Background()

			delete(f.ports, out.InterfacePortID)

			var handMade string
			if part == "subnet" {
				delete(f.subnets, out.Subnet.ID)
				handMade = f.add(f.subnets, map[string]any{"name": "network-a", "network_id": out.ID, "cidr": "192.168.10.0/24"})
			} else {
				delete(f.routers, out.Router.ID)
				handMade = f.add(f.routers, map[string]any{"name": "network-a"})
			}

			got, err := svc.ObserveNetwork(ctx, "a", out.Ref())
			if err != nil || got == nil || got.ID != out.ID {
				t.Fatalf("observe: %v, %+v", err, got)
			}

			if (part == "subnet" && got.Subnet != nil) || (part == "router" && got.Router != nil) || len(got.Refound) != 0 {
				t.Fatalf("the %s made by hand was taken: %+v (notes %+v)", part, got, got.Refound)
			}

			f.calls()

			_, err = svc.EnsureNetwork(ctx, testSpec(t, "a"), out.Ref())
			if exists := wantExists(t, f, err, handMade, cloud.ClaimForeign); exists.Part == "" {
				t.Fatalf("the refusal names no resource: %v", err)
			}
		})
	}
}

// TestEnsureNetwork_importedNetworkIsConvergedNeverMarked: a network made by hand and imported
// (its ID recorded, nothing else) is converged with its subnet and router found by name, and
// none of them is ever marked.
func TestEnsureNetwork_importedNetworkIsConvergedNeverMarked(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()
	svc := f.service(t, nil)

	net := f.add(f.networks, map[string]any{"name": "network-a"})
	sub := f.add(f.subnets, map[string]any{"name": "network-a", "network_id": net, "cidr": "192.168.10.0/24"})
	router := f.add(f.routers, map[string]any{"name": "network-a"})

	out, err := svc.EnsureNetwork(context.Background(), testSpec(t, "a"), Ref{NetworkID: net})
	if err != nil {
		t.Fatal(err)
	}

	if out.ID != net || out.Subnet.ID != sub || out.Router.ID != router || !out.Complete() {
		t.Fatalf("converged %+v", out)
	}

	if calls := f.calls(); count(calls, "/tags/") != 0 {
		t.Fatalf("an imported network was marked: %q", calls)
	}
}
