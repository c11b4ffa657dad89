package loadbalancer

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The tests of this file make Octavia act and then lose its answer, answer 5xx, or meet the
// lock its own first try set, and check that the change is recovered in place: no twin, no
// orphan, and no 409 of our own making reaching the user.

// landedThenRetried serves r twice: once unheard (Octavia acts, its answer is lost) and once
// more for w, as the transport's retry of a PUT or DELETE does; the retry meets the load
// balancer's lock.
func (f *fakeCloud) landedThenRetried(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)

	r.Body = io.NopCloser(bytes.NewReader(raw))
	f.serve(discard{}, r)

	r.Body = io.NopCloser(bytes.NewReader(raw))
	f.serve(w, r)
}

// landedUnheard serves r, then answers 502 as a proxy whose upstream answer was lost.
func (f *fakeCloud) landedUnheard(w http.ResponseWriter, r *http.Request) {
	f.serve(discard{}, r)
	cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"faultstring": "bad gateway"})
}

// failOnce answers the first request with fault, the others as the fake does.
func (f *fakeCloud) failOnce(fault http.HandlerFunc) http.HandlerFunc {
	first := true

	return func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			fault(w, r)

			return
		}

		f.serve(w, r)
	}
}

// TestEnsure_lostAnswersOfChanges: every kind of change Octavia made while its answer was lost
// (a 502, a dropped connection, or the transport's retry meeting the lock of the first try) is
// found done once the load balancer is ACTIVE again: the apply succeeds with exactly the
// configured objects, and Octavia saw each change once.
func TestEnsure_lostAnswersOfChanges(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		name   string
		method string
		path   func(top *Topology) string
		fault  func(f *fakeCloud) http.HandlerFunc
		change func(*Spec)
		want   []string // Octavia's mutations
	}{
		{
			name: "members PUT retried into the lock", method: http.MethodPut,
			path: func(top *Topology) string {
				ssh, _ := top.Listener("ssh")
				return "/octavia/v2/lbaas/pools/" + ssh.PoolID + "/members"
			},
			fault:  func(f *fakeCloud) http.HandlerFunc { return f.landedThenRetried },
			change: func(s *Spec) { s.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}} },
			want:   []string{"PUT members"},
		},
		{
			name: "listener PUT answered 502 after it landed", method: http.MethodPut,
			path: func(top *Topology) string {
				https, _ := top.Listener("https")
				return "/octavia/v2/lbaas/listeners/" + https.ListenerID
			},
			fault:  func(f *fakeCloud) http.HandlerFunc { return f.landedUnheard },
			change: func(s *Spec) { s.Listeners[0].AllowedCIDRs = []string{"10.0.0.0/8"} },
			want:   []string{"PUT listeners"},
		},
		{
			name: "monitor PUT retried into the lock", method: http.MethodPut,
			path: func(top *Topology) string {
				dns, _ := top.Listener("dns")
				return "/octavia/v2/lbaas/healthmonitors/" + dns.MonitorID
			},
			fault:  func(f *fakeCloud) http.HandlerFunc { return f.landedThenRetried },
			change: func(s *Spec) { s.Listeners[2].Monitor.HealthyThreshold = 5 },
			want:   []string{"PUT healthmonitors"},
		},
		{
			name: "monitor DELETE retried into the lock", method: http.MethodDelete,
			path: func(top *Topology) string {
				https, _ := top.Listener("https")
				return "/octavia/v2/lbaas/healthmonitors/" + https.MonitorID
			},
			fault:  func(f *fakeCloud) http.HandlerFunc { return f.landedThenRetried },
			change: func(s *Spec) { s.Listeners[0].Monitor = nil },
			want:   []string{"DELETE healthmonitors"},
		},
		{
			name: "listener DELETE answered 502 after it landed", method: http.MethodDelete,
			path: func(top *Topology) string {
				dns, _ := top.Listener("dns")
				return "/octavia/v2/lbaas/listeners/" + dns.ListenerID
			},
			fault:  func(f *fakeCloud) http.HandlerFunc { return f.landedUnheard },
			change: func(s *Spec) { s.Listeners = s.Listeners[:2] },
			want:   []string{"DELETE listeners", "DELETE pools"},
		},
		{
			name: "listener POST without an answer", method: http.MethodPost,
			path: func(*Topology) string { return "/octavia/v2/lbaas/listeners" },
			fault: func(f *fakeCloud) http.HandlerFunc {
				return func(_ http.ResponseWriter, r *http.Request) { f.serve(discard{}, r) }
			},
			change: func(s *Spec) {
				s.Listeners = append(s.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})
			},
			want: []string{"POST listeners", "POST pools"},
		},
		{
			name: "pool POST answered 502 after it landed", method: http.MethodPost,
			path:  func(*Topology) string { return "/octavia/v2/lbaas/pools" },
			fault: func(f *fakeCloud) http.HandlerFunc { return f.landedUnheard },
			change: func(s *Spec) {
				s.Listeners = append(s.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})
			},
			want: []string{"POST listeners", "POST pools"},
		},
		{
			name: "monitor POST answered 502 after it landed", method: http.MethodPost,
			path:  func(*Topology) string { return "/octavia/v2/lbaas/healthmonitors" },
			fault: func(f *fakeCloud) http.HandlerFunc { return f.landedUnheard },
			change: func(s *Spec) {
				s.Listeners[1].Monitor = &MonitorSpec{Interval: 10, Timeout: 5, HealthyThreshold: 3, UnhealthyThreshold: 3}
			},
			want: []string{"POST healthmonitors"},
		},
		{
			name: "members PUT answered 503 before Octavia saw it", method: http.MethodPut,
			path: func(top *Topology) string {
				ssh, _ := top.Listener("ssh")
				return "/octavia/v2/lbaas/pools/" + ssh.PoolID + "/members"
			},
			fault: func(*fakeCloud) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					cloudtest.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"faultstring": "unavailable"})
				}
			},
			change: func(s *Spec) { s.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}} },
			want:   []string{"PUT members"}, // made again once the load balancer is ACTIVE
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			f, svc, top := ensured(t, false)
			spec := threeListeners(false)
			c.change(&spec)

			f.api.On(c.method, c.path(top), f.failOnce(c.fault(f)))

			got, err := svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, top.ID, nil)
			if err != nil {
				t.Fatalf("the change failed: %v", err)
			}

			conflicts, mutations := f.counters()
			if diff := cmp.Diff(c.want, mutations); diff != "" {
				t.Errorf("Octavia's mutations (-want +got):\n%s", diff)
			}

			// The fault's own retry meets the lock at most once; nothing of ours after that.
			if conflicts > 1 {
				t.Errorf("%d requests met the lock", conflicts)
			}

			again, err := svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, top.ID, nil)
			if err != nil || len(again.Listeners) != len(spec.Listeners) || len(got.Listeners) != len(spec.Listeners) {
				t.Fatalf("converging again: %v, %d listeners, want %d", err, len(again.Listeners), len(spec.Listeners))
			}

			if _, after := f.counters(); len(after) != len(mutations) {
				t.Errorf("converging again changed %v: the first converge did not leave what the configuration says", after[len(mutations):])
			}
		})
	}
}

// TestEnsure_foreignConflictStays: a 409 that no change of ours caused (another client holds
// the lock and changes something else) still reaches the user as a *ConflictError, after the
// load balancer is ACTIVE again, and is not retried.
func TestEnsure_foreignConflictStays(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)
	ssh, _ := top.Listener("ssh")

	f.api.On(http.MethodPut, "/octavia/v2/lbaas/pools/"+ssh.PoolID+"/members", func(w http.ResponseWriter, _ *http.Request) {
		cloudtest.WriteJSON(w, http.StatusConflict, map[string]any{"faultstring": "Load Balancer is immutable"})
	})

	spec := threeListeners(false)
	spec.Listeners[1].Members = []Member{{"10.0.0.9", 22, 1}}

	_, err := svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, top.ID, nil)

	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("err = %v, want a *ConflictError", err)
	}

	if n := f.api.Count("PUT /octavia/v2/lbaas/pools/" + ssh.PoolID + "/members"); n != 1 {
		t.Errorf("%d PUTs, want 1 (a conflict of someone else's is not retried)", n)
	}
}

// TestDelete_lostAnswer: a cascade DELETE that Octavia took while its answer was lost (the
// transport's retry then meets the PENDING_DELETE lock, or a 502) is a finished delete, not a
// 409 for the user.
func TestDelete_lostAnswer(t *testing.T) {
	t.Parallel()

	for name, fault := range map[string]func(f *fakeCloud) http.HandlerFunc{
		"retried into the lock": func(f *fakeCloud) http.HandlerFunc { return f.landedThenRetried },
		"502 after it landed":   func(f *fakeCloud) http.HandlerFunc { return f.landedUnheard },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			f, svc, top := ensured(t, false)
			f.api.On(http.MethodDelete, "/octavia/v2/lbaas/loadbalancers/"+top.ID, f.failOnce(fault(f)))

			if err := svc.Delete(cloud.WithSleeper(t.Context(), cloudtest.Instant), top.ID, "web"); err != nil {
				t.Fatalf("delete: %v", err)
			}

			if _, mutations := f.counters(); !slices.Equal(mutations, []string{"DELETE loadbalancers"}) || len(f.lbs) != 0 {
				t.Errorf("mutations %v, %d load balancers left; want one cascade delete and none", mutations, len(f.lbs))
			}
		})
	}
}

// TestCreate_twins: when another apply makes an object of the same name at the same time, the
// one this create made is deleted again and the error names both; the state records nothing
// of the other's.
func TestCreate_twins(t *testing.T) {
	t.Parallel()

	t.Run("load balancer", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t)

		var other string

		f.api.On(http.MethodPost, "/octavia/v2/lbaas/loadbalancers", func(w http.ResponseWriter, r *http.Request) {
			other = f.addLB("lb-web", StatusActive) // the other apply's, made a moment before ours
			f.serve(w, r)
		})

		recorded := ""

		id, _, err := f.service().Create(cloud.WithSleeper(t.Context(), cloudtest.Instant), Spec{Name: "web", NetworkID: "net-1"}, func(got string) { recorded = got })

		var twin *cloud.TwinError
		if !errors.As(err, &twin) || twin.Kept != other || twin.Removed == "" || !strings.Contains(err.Error(), other) ||
			!strings.Contains(err.Error(), twin.Removed) {
			t.Fatalf("err = %v, want a *TwinError naming %s and the one removed", err, other)
		}

		if id != "" || recorded != "" {
			t.Errorf("the state records %q (%q), want nothing: %s is the other apply's", id, recorded, other)
		}

		f.mu.Lock()
		defer f.mu.Unlock()

		if lb := f.lbs[twin.Removed]; lb != nil && !lb.gone {
			t.Errorf("the twin %s was not deleted", twin.Removed)
		}

		if f.lbs[other] == nil {
			t.Errorf("the other apply's load balancer %s was touched", other)
		}
	})

	t.Run("listener", func(t *testing.T) {
		t.Parallel()

		f, svc, top := ensured(t, false)

		var other string

		f.api.On(http.MethodPost, "/octavia/v2/lbaas/listeners", func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			other = f.id("listener")
			f.newListener(other, []any{map[string]any{"id": top.ID}}, map[string]any{
				"name": naming.Listener("web", "smtp"), "protocol": "TCP", "protocol_port": 2525.0,
			})["provisioning_status"] = StatusActive
			f.mu.Unlock()

			f.serve(w, r)
		})

		spec := threeListeners(false)
		spec.Listeners = append(spec.Listeners, ListenerSpec{Name: "smtp", Protocol: ProtocolTCP, Port: 25})

		_, err := svc.Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, top.ID, nil)

		var twin *cloud.TwinError
		if !errors.As(err, &twin) || twin.Kept != other || !strings.Contains(err.Error(), twin.Removed) {
			t.Fatalf("err = %v, want a *TwinError naming %s and the one removed", err, other)
		}

		f.mu.Lock()
		defer f.mu.Unlock()

		if f.listeners[twin.Removed] != nil || f.listeners[other] == nil {
			t.Errorf("listeners left: %v; want only the other apply's %s", keys(f.listeners), other)
		}
	})
}

func keys(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}

	return out
}

// TestFloatingIP_onlyOursAreDeleted: a floating IP attached to the VIP port by hand is
// detached, never deleted, both when public_ip is turned off and when the load balancer is
// deleted; the one the provider made (described lb-<name>) is deleted.
func TestFloatingIP_onlyOursAreDeleted(t *testing.T) {
	t.Parallel()

	byHand := func(f *fakeCloud, port string) string {
		f.mu.Lock()
		defer f.mu.Unlock()

		id := f.id("fip")
		f.fips[id] = map[string]any{"id": id, "floating_ip_address": "203.0.113.200", "port_id": port, "description": "the operator's",
			"floating_network_id": f.externalID}

		return id
	}

	t.Run("public_ip off", func(t *testing.T) {
		t.Parallel()

		f, svc, top := ensured(t, false)
		hand := byHand(f, top.VIPPortID)

		got, err := svc.Ensure(t.Context(), threeListeners(false), top.ID, nil)
		if err != nil {
			t.Fatal(err)
		}

		if got.FloatingIP != nil || f.fips[hand] == nil || str(f.fips[hand]["port_id"]) != "" {
			t.Errorf("the hand-attached floating IP: %v, left %+v; want it detached and kept", got.FloatingIP, f.fips[hand])
		}
	})

	t.Run("delete", func(t *testing.T) {
		t.Parallel()

		f, svc, top := ensured(t, true)
		ours := top.FloatingIP.ID

		// The operator moves the provider's floating IP away and puts their own on the VIP.
		f.mu.Lock()
		f.fips[ours]["port_id"] = nil
		f.mu.Unlock()

		hand := byHand(f, top.VIPPortID)

		if err := svc.Delete(t.Context(), top.ID, "web"); err != nil {
			t.Fatal(err)
		}

		if f.fips[ours] != nil {
			t.Errorf("the provider's floating IP %s is left", ours)
		}

		if f.fips[hand] == nil || str(f.fips[hand]["port_id"]) != "" {
			t.Errorf("the hand-attached floating IP is %+v, want it kept and detached", f.fips[hand])
		}
	})
}

// TestRefound: a load balancer whose recorded ID is gone is found again by name when an
// interrupted create of a load balancer left it (ownership_test.go: nothing else is), and the
// warning names both IDs and when the new one was made; Delete acts on the recorded ID only,
// so that the newer load balancer of that name survives a destroy of the old state.
func TestRefound(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)
	f.dropLB(top.ID)
	newer := f.addLB("lb-web", StatusActive, created.Tags()...)

	got, err := svc.Observe(t.Context(), top.ID, "web")
	if err != nil || got == nil || got.ID != newer {
		t.Fatalf("Observe = %+v, %v; want %s, found by name", got, err, newer)
	}

	warning := Refound(top.ID, got, "project-1 in RegionOne")
	for _, want := range []string{top.ID, newer, got.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), "project-1 in RegionOne"} {
		if got.CreatedAt.IsZero() || !strings.Contains(warning, want) {
			t.Errorf("warning %q does not name %q", warning, want)
		}
	}

	if w := Refound(newer, got, "here"); w != "" {
		t.Errorf("warning for the recorded load balancer: %q", w)
	}

	f.resetCounters()

	if err := svc.Delete(t.Context(), top.ID, "web"); err != nil {
		t.Fatal(err)
	}

	if _, mutations := f.counters(); len(mutations) != 0 || f.lbs[newer] == nil {
		t.Errorf("deleting the gone %s made %v and left the newer %s: %t; want nothing touched", top.ID, mutations, newer, f.lbs[newer] != nil)
	}

	// With no ID recorded (a create that never got one), the name is all there is: an
	// unfinished create's load balancer is taken.
	if err := svc.Delete(t.Context(), "", "web"); err != nil {
		t.Fatal(err)
	}

	if len(f.lbs) != 0 {
		t.Errorf("%d load balancers left after a delete by name", len(f.lbs))
	}
}

// TestAdopted: a create (nothing recorded) that finds by name the load balancer an interrupted
// create left takes it over and says so, with its ID and creation time; one that made it, or an
// update by the recorded ID, says nothing (issue 12, behaviour 7).
func TestAdopted(t *testing.T) {
	t.Parallel()

	f, svc, top := ensured(t, false)
	if top.Adopted || Adopted(top, "here") != "" {
		t.Fatalf("a fresh create was taken for an adoption: %+v", top)
	}

	f.interrupt(top.ID)

	again, err := svc.Ensure(t.Context(), threeListeners(false), "", nil)
	if err != nil || again.ID != top.ID || !again.Adopted {
		t.Fatalf("Ensure = %+v, %v; want %s adopted", again, err, top.ID)
	}

	warning := Adopted(again, "project-1 in RegionOne")
	for _, want := range []string{top.ID, "lb-web", "project-1 in RegionOne", "adopted", again.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")} {
		if again.CreatedAt.IsZero() || !strings.Contains(warning, want) {
			t.Errorf("warning %q does not say %q", warning, want)
		}
	}

	if byID, err := svc.Ensure(t.Context(), threeListeners(false), top.ID, nil); err != nil || byID.Adopted {
		t.Fatalf("update by the recorded ID: %+v, %v", byID, err)
	}
}
