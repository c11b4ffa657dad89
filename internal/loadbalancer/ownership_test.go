package loadbalancer

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The tests of this file hold the load balancer to the ownership rule (issue 26): a create
// adopts only what an interrupted create of a load balancer left, refuses anything else before
// any write, marks what it makes, and an update never marks anything.

// tagsOf returns the tags of the fake's object of kind ("loadbalancers", "listeners", "pools",
// "healthmonitors") id.
func (f *fakeCloud) tags(kind, id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	var obj map[string]any

	switch kind {
	case "loadbalancers":
		obj = f.lbs[id].obj
	case "listeners":
		obj = f.listeners[id]
	case "pools":
		obj = f.pools[id]
	case "healthmonitors":
		obj = f.monitors[id]
	}

	var out []string
	for _, t := range items(obj["tags"]) {
		out = append(out, str(t))
	}

	return out
}

// untag takes every tag off the fake's objects of the given kinds, as if someone else had made
// them (Unikorn's load balancers carry no tags).
func (f *fakeCloud) untag(kinds ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	for _, kind := range kinds {
		switch kind {
		case "loadbalancers":
			for _, lb := range f.lbs {
				lb.obj["tags"] = []any{}
			}
		default:
			store := map[string]map[string]map[string]any{"listeners": f.listeners, "pools": f.pools, "healthmonitors": f.monitors}[kind]
			for _, obj := range store {
				obj["tags"] = []any{}
			}
		}
	}
}

// httpsOnly is threeListeners with its first listener only: what a create interrupted after its
// first listener has made.
func httpsOnly() Spec {
	spec := threeListeners(false)
	spec.Listeners = spec.Listeners[:1]

	return spec
}

// TestCreate_refusesWhatItDidNotLeave: a create (or an update whose recorded load balancer is
// gone) that meets lb-<name> made by someone else (no marks: Unikorn's, a person's), finished by
// another configuration, or made for another resource type refuses it with a *cloud.ExistsError
// that names it and the import command, before any write: nothing is recorded, the load
// balancer keeps its tags (issue 26, item 5).
func TestCreate_refusesWhatItDidNotLeave(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name  string
		tags  []string
		claim cloud.Claim
	}{
		{"made by someone else", nil, cloud.ClaimForeign},
		{"finished by another configuration", created.Done().Tags(), cloud.ClaimFinished},
		{"made for another resource type", naming.MadeFor("unikorn_server").Tags(), cloud.ClaimOtherKind},
	} {
		for _, recorded := range []string{"", "lb-gone"} {
			t.Run(c.name+" recorded "+recorded, func(t *testing.T) {
				t.Parallel()

				f := newFakeCloud(t)
				theirs := f.addLB("lb-web", StatusActive, c.tags...)
				svc := f.service()

				var onID string

				var err error

				if recorded == "" {
					var id string

					id, _, err = svc.Create(cloud.WithSleeper(t.Context(), cloudtest.Instant), threeListeners(true), func(got string) { onID = got })
					onID += id
				} else {
					_, err = svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), threeListeners(true), recorded, func(got string) { onID = got })
				}

				var exists *cloud.ExistsError
				if !errors.As(err, &exists) || exists.ID != theirs || exists.Claim != c.claim || exists.ImportID != "RegionOne/"+theirs {
					t.Fatalf("err = %v, want a *cloud.ExistsError of %s (%v) importable as RegionOne/%s", err, theirs, c.claim, theirs)
				}

				if !strings.Contains(err.Error(), "terraform import unikorn_loadbalancer.<address> RegionOne/"+theirs) {
					t.Errorf("the refusal does not say how to import it: %v", err)
				}

				if writes := f.api.Writes(); len(writes) != 0 || onID != "" {
					t.Errorf("wrote %v and recorded %q before refusing", writes, onID)
				}

				if got := f.tags("loadbalancers", theirs); !slices.Equal(got, c.tags) {
					t.Errorf("its tags are %v, want %v untouched", got, c.tags)
				}
			})
		}
	}
}

// TestCreate_adoptsAnInterruptedCreate: a load balancer that a create of a load balancer began
// (the creation mark, no completion mark) is adopted with its ID and what it holds, converged,
// and marked finished as the last step; its children all carry the creation mark (issue 26:
// the kill -9 trials of tools/chaos rely on it).
func TestCreate_adoptsAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name string
		// interrupted makes the interrupted create's load balancer and returns its ID.
		interrupted func(t *testing.T, f *fakeCloud) string
		// kept is the listener whose objects the adoption keeps ("" for none).
		kept string
	}{
		{
			name: "before its first listener",
			interrupted: func(_ *testing.T, f *fakeCloud) string {
				return f.addLB("lb-web", StatusPendingCreate, created.Tags()...)
			},
		},
		{
			name: "after its first listener",
			interrupted: func(t *testing.T, f *fakeCloud) string {
				top, err := f.service().Ensure(t.Context(), httpsOnly(), "", nil)
				if err != nil {
					t.Fatal(err)
				}

				f.interrupt(top.ID)

				return top.ID
			},
			kept: "https",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)
			id := c.interrupted(t, f)
			before, _ := f.service().Observe(t.Context(), id, "")
			keptListener, _ := before.Listener(c.kept)

			f.resetCounters()

			got, top, err := f.service().Create(t.Context(), threeListeners(true), nil)
			if err != nil || got != id || !top.Adopted {
				t.Fatalf("Create = %q (adopted %t), %v; want %s adopted", got, top != nil && top.Adopted, err, id)
			}

			if tags := f.tags("loadbalancers", id); !slices.Equal(tags, created.Done().Tags()) {
				t.Errorf("the adopted load balancer has the tags %v, want %v", tags, created.Done().Tags())
			}

			_, mutations := f.counters()
			if slices.Contains(mutations, "POST loadbalancers") || mutations[len(mutations)-1] != "PUT loadbalancers" {
				t.Errorf("mutations %v: want no new load balancer and the completion mark last", mutations)
			}

			if c.kept != "" {
				if now, _ := top.Listener(c.kept); now.ListenerID != keptListener.ListenerID || now.PoolID != keptListener.PoolID {
					t.Errorf("listener %s is %s/%s, want the adopted %s/%s kept", c.kept, now.ListenerID, now.PoolID,
						keptListener.ListenerID, keptListener.PoolID)
				}
			}

			for _, o := range top.Listeners {
				for kind, id := range map[string]string{"listeners": o.ListenerID, "pools": o.PoolID, "healthmonitors": o.MonitorID} {
					if tags := f.tags(kind, id); id != "" && !slices.Equal(tags, created.Tags()) {
						t.Errorf("%s %s of listener %s has the tags %v, want the creation mark only", kind, id, o.Name, tags)
					}
				}
			}

			// Finished now: a second create of the name refuses it.
			var exists *cloud.ExistsError
			if _, _, err := f.service().Create(t.Context(), threeListeners(true), nil); !errors.As(err, &exists) || exists.Claim != cloud.ClaimFinished {
				t.Errorf("a second create: %v, want a *cloud.ExistsError of a finished load balancer", err)
			}
		})
	}
}

// TestCreate_refusesAForeignPartOfAnInterruptedCreate: an interrupted create's load balancer
// that holds a listener, pool or monitor named after the contract but not made by this provider
// is refused with the part named, before any write and without recording it.
func TestCreate_refusesAForeignPartOfAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	for _, c := range []struct{ kind, noun, name string }{
		{"listeners", "listener", "lb-web-https-listener"},
		{"pools", "pool", "lb-web-https-pool"},
		{"healthmonitors", "health monitor", "lb-web-https-monitor"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)

			top, err := f.service().Ensure(t.Context(), httpsOnly(), "", nil)
			if err != nil {
				t.Fatal(err)
			}

			f.interrupt(top.ID)
			f.untag(c.kind)
			f.resetCounters()

			var onID string

			id, _, err := f.service().Create(t.Context(), threeListeners(true), func(got string) { onID = got })

			var exists *cloud.ExistsError
			if !errors.As(err, &exists) || exists.Kind != c.noun || exists.Name != c.name || exists.Part != "unikorn_loadbalancer web" ||
				exists.Claim != cloud.ClaimForeign {
				t.Fatalf("err = %v, want a *cloud.ExistsError of the %s %s as a part of unikorn_loadbalancer web", err, c.noun, c.name)
			}

			if writes := f.api.Writes(); len(writes) != 0 || id != "" || onID != "" {
				t.Errorf("wrote %v and recorded %q/%q before refusing", writes, id, onID)
			}
		})
	}
}

// TestCreate_lostAnswerRecoversOnlyItsOwn: a POST whose answer was lost, while an object of its
// name that this provider did not make appeared, never takes that object as the one it made:
// the load balancer's create is refused without posting again and records nothing, a
// listener's create fails without linking a pool to it; the other object is left as it is.
func TestCreate_lostAnswerRecoversOnlyItsOwn(t *testing.T) {
	t.Parallel()

	t.Run("load balancer", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)

		var theirs string

		f.api.On(http.MethodPost, "/octavia/v2/lbaas/loadbalancers", func(w http.ResponseWriter, _ *http.Request) {
			theirs = f.addLB("lb-web", StatusActive) // someone else's, while our POST got lost
			cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"faultstring": "bad gateway"})
		})

		var onID string

		id, _, err := f.service().Create(cloud.WithSleeper(t.Context(), cloudtest.Instant), threeListeners(true), func(got string) { onID = got })

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != theirs {
			t.Fatalf("err = %v, want a *cloud.ExistsError of %s", err, theirs)
		}

		if id != "" || onID != "" {
			t.Errorf("recorded %q/%q: the other load balancer was taken for this create's", id, onID)
		}

		if n := f.api.Count("POST /octavia/v2/lbaas/loadbalancers"); n != 1 {
			t.Errorf("%d POSTs, want 1", n)
		}

		if writes := slices.DeleteFunc(f.api.Writes(), func(w string) bool { return w == "POST /octavia/v2/lbaas/loadbalancers" }); len(writes) != 0 {
			t.Errorf("wrote %v after the refusal", writes)
		}
	})

	t.Run("listener", func(t *testing.T) {
		t.Parallel()

		f, svc, top := ensured(t, false)

		var theirs string

		f.api.On(http.MethodPost, "/octavia/v2/lbaas/listeners", func(w http.ResponseWriter, _ *http.Request) {
			f.mu.Lock()
			theirs = f.id("listener")
			f.newListener(theirs, []any{map[string]any{"id": top.ID}}, map[string]any{
				"name": naming.Listener("web", "smtp"), "protocol": "TCP", "protocol_port": 2525.0,
			})["provisioning_status"] = StatusActive
			f.mu.Unlock()

			cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"faultstring": "bad gateway"})
		})

		spec := threeListeners(false)
		spec.Listeners = append(spec.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})

		got, err := svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, top.ID, nil)

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != theirs || exists.Part != "unikorn_loadbalancer web" {
			t.Fatalf("err = %v, want a *cloud.ExistsError of the listener %s as a part", err, theirs)
		}

		if smtp, ok := got.Listener("smtp"); ok && smtp.ListenerID == theirs {
			t.Errorf("the other listener %s was recorded as this load balancer's", theirs)
		}

		if n := f.api.Count("POST /octavia/v2/lbaas/listeners"); n != 1 || f.api.Count("POST /octavia/v2/lbaas/pools") != 0 {
			t.Errorf("%d listener POSTs and %d pool POSTs, want 1 and none", n, f.api.Count("POST /octavia/v2/lbaas/pools"))
		}

		if f.mu.Lock(); f.listeners[theirs] == nil {
			t.Errorf("the other listener %s was removed", theirs)
		}

		f.mu.Unlock()
	})
}

// TestObserve_refindsOnlyAnInterruptedCreate: when the recorded load balancer is gone, a read
// (and a delete by name) takes the load balancer of its name only when an interrupted create of
// a load balancer left it; a finished one (another configuration's) or one made by someone else
// is not this resource's: gone, and never deleted.
func TestObserve_refindsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name  string
		tags  []string
		found bool
	}{
		{"made by someone else", nil, false},
		{"finished by another configuration", created.Done().Tags(), false},
		{"made for another resource type", naming.MadeFor("unikorn_server").Tags(), false},
		{"an interrupted create", created.Tags(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t)
			other := f.addLB("lb-web", StatusActive, c.tags...)
			svc := f.service()

			got, err := svc.Observe(t.Context(), "lb-gone", "web")
			if err != nil || (got != nil) != c.found || (got != nil && got.ID != other) {
				t.Fatalf("Observe = %+v, %v; want %s found: %t", got, err, other, c.found)
			}

			if c.found {
				return
			}

			if err := svc.Delete(t.Context(), "", "web"); err != nil {
				t.Fatal(err)
			}

			if writes := f.api.Writes(); len(writes) != 0 {
				t.Errorf("a delete by name wrote %v on a load balancer that is not this resource's", writes)
			}
		})
	}
}

// TestUpdate_neverMarks: an update of the recorded load balancer adds no mark: an imported one
// made by someone else, with unmarked children, converges (its children are its own, not
// refused) and stays unmarked; a listener it gains carries the creation mark; a no-op update
// writes nothing.
func TestUpdate_neverMarks(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)
	f.untag("loadbalancers", "listeners", "pools", "healthmonitors")

	spec := threeListeners(false)
	spec.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}}
	spec.Listeners = append(spec.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})

	got, err := svc.Ensure(t.Context(), spec, top.ID, nil)
	if err != nil {
		t.Fatalf("converging an imported load balancer: %v", err)
	}

	_, mutations := f.counters()
	if diff := cmp.Diff([]string{"PUT members", "POST listeners", "POST pools"}, mutations); diff != "" {
		t.Errorf("mutations (-want +got):\n%s", diff)
	}

	if tags := f.tags("loadbalancers", top.ID); len(tags) != 0 || got.Adopted {
		t.Errorf("the imported load balancer has the tags %v (adopted %t), want none", tags, got.Adopted)
	}

	smtp, _ := got.Listener("smtp")
	if tags := f.tags("listeners", smtp.ListenerID); !slices.Equal(tags, created.Tags()) {
		t.Errorf("the new listener has the tags %v, want the creation mark", tags)
	}

	ssh, _ := got.Listener("ssh")
	if tags := f.tags("listeners", ssh.ListenerID); len(tags) != 0 {
		t.Errorf("the imported listener has the tags %v, want none", tags)
	}

	f.resetCounters()

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Errorf("a no-op update wrote %v", writes)
	}
}

// TestMemo_ofACreate: a create returns as soon as Octavia has taken its completion mark (the
// load balancer is still PENDING_UPDATE for it: a kill after that moment is one answer away
// from the state), so it leaves no memo, since that tag change dates the children anew. The
// first read lists the children once, and its memo answers the next read.
func TestMemo_ofACreate(t *testing.T) {
	t.Parallel()

	for _, adopt := range []bool{false, true} {
		f := newFakeCloud(t)
		svc := f.service()

		if adopt {
			f.addLB("lb-web", StatusActive, created.Tags()...)
		}

		_, top, err := svc.Create(t.Context(), threeListeners(true), nil)
		if err != nil || top.Adopted != adopt {
			t.Fatalf("create (adopting: %t): %+v, %v", adopt, top, err)
		}

		if status := str(f.lbs[top.ID].obj["provisioning_status"]); status != StatusPendingUpdate {
			t.Errorf("after the create (adopting: %t) Octavia holds the load balancer %s, want PENDING_UPDATE: the create "+
				"waited for its completion mark's tag change", adopt, status)
		}

		var onCloud []string
		for _, tag := range items(f.lbs[top.ID].obj["tags"]) {
			onCloud = append(onCloud, str(tag))
		}

		if !naming.MarkOfTags(onCloud).Completed || !naming.MarkOfTags(top.Tags).Completed {
			t.Errorf("the create (adopting: %t) did not mark the load balancer finished: cloud %v, result %v",
				adopt, onCloud, top.Tags)
		}

		if memo := top.memo(); memo != nil {
			t.Errorf("the create (adopting: %t) left a memo dated %s, before its own tag change", adopt, memo.UpdatedAt)
		}

		// Octavia ends the tag change's PENDING_UPDATE on its own.
		f.mu.Lock()
		for lb := f.lbs[top.ID]; str(lb.obj["provisioning_status"]) == StatusPendingUpdate; {
			f.poll(lb)
		}
		f.mu.Unlock()

		read := f.service()

		first, err := read.Observe(t.Context(), top.ID, "web")
		if err != nil || len(first.Listeners) != 3 {
			t.Fatalf("first read after the create: %+v, %v", first, err)
		}

		memo := first.memo()
		if memo == nil {
			t.Fatalf("no memo of the first read after the create (adopting: %t)", adopt)
		}

		f.resetCounters()

		read = f.service()
		read.Memo = memo

		again, err := read.Observe(t.Context(), top.ID, "web")
		if err != nil || len(again.Listeners) != 3 {
			t.Fatalf("second read after the create: %+v, %v", again, err)
		}

		for _, call := range f.api.Calls() {
			if strings.Contains(call, "/listeners") || strings.Contains(call, "/pools") || strings.Contains(call, "/healthmonitors") {
				t.Errorf("the second read after a create (adopting: %t) listed the children (%s): the memo did not answer", adopt, call)
			}
		}
	}
}
