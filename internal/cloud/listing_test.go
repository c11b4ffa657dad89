package cloud

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// thing is an object of a test kind: found by its ID and its name.
type thing struct{ ID, Name, Status string }

// listingOf is a listing of things whose every List call is counted and answers list().
func listingOf(calls *atomic.Int32, list func() []thing) Listing[thing] {
	return Listing[thing]{
		Kind: "thing",
		List: func(context.Context, *Tenant) ([]thing, error) {
			calls.Add(1)

			return list(), nil
		},
		Keys: func(o thing) []string { return []string{o.ID, o.Name} },
	}
}

// privilegedTenant is project p1 in RegionOne of a client on a fake cloud, in the privileged scope.
func privilegedTenant(t *testing.T) (*Client, *Tenant) {
	t.Helper()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	c := mustClient(t, f, nil)

	tenant, err := c.Tenant(t.Context(), "p1", "RegionOne", Privileged)
	if err != nil {
		t.Fatal(err)
	}

	return c, tenant
}

func TestListingAnswersFromOneListing(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var calls atomic.Int32

	l := listingOf(&calls, func() []thing { return []thing{{"id-a", "a", ""}, {"id-b", "b", ""}, {"id-b2", "b", ""}} })

	var wg sync.WaitGroup

	for range 20 { // reads at once wait for the one listing
		wg.Add(1)

		go func() {
			defer wg.Done()

			if obj, exists, ok, err := l.FindOne(t.Context(), tenant, "id-a"); err != nil || !ok || !exists || obj.Name != "a" {
				t.Errorf("FindOne(id-a) = %v %v %v %v", obj, exists, ok, err)
			}
		}()
	}

	wg.Wait()

	if found, ok, err := l.Find(t.Context(), tenant, "b"); err != nil || !ok || len(found) != 2 {
		t.Errorf("Find(b) = %v %v %v, want both objects named b", found, ok, err)
	}

	if _, exists, ok, err := l.FindOne(t.Context(), tenant, "id-gone"); err != nil || !ok || exists {
		t.Errorf("FindOne(id-gone) = %v %v %v, want answered: not there", exists, ok, err)
	}

	if calls.Load() != 1 {
		t.Errorf("%d listings, want 1", calls.Load())
	}
}

// TestListingNeverHidesAWrite: after a write by the process, the listing answers nothing about
// what it touched, by any key, and still answers for the rest.
func TestListingNeverHidesAWrite(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var calls atomic.Int32

	l := listingOf(&calls, func() []thing { return []thing{{"id-a", "a", ""}, {"id-b", "b", ""}} })

	tenant.Wrote("thing", "id-a") // e.g. deleted by ID: its name no longer answers from the listing either
	tenant.Wrote("thing", "c")    // created: the listing taken before knows nothing of it

	for _, key := range []string{"id-a", "a", "c"} {
		if _, ok, err := l.Find(t.Context(), tenant, key); ok || err != nil {
			t.Errorf("Find(%s) answered from the listing after a write (err %v)", key, err)
		}
	}

	if found, ok, err := l.Find(t.Context(), tenant, "b"); !ok || err != nil || len(found) != 1 {
		t.Errorf("Find(b) = %v %v %v, want the untouched object from the listing", found, ok, err)
	}

	tenant.WroteAll("thing")

	if _, ok, _ := l.Find(t.Context(), tenant, "b"); ok {
		t.Error("Find(b) answered after a write of every object of the kind")
	}

	// Another project's listing is its own.
	other := &Tenant{session: tenant.session, projectID: "p2", region: "RegionOne"}
	if _, ok, _ := l.Find(t.Context(), other, "b"); ok {
		t.Error("a tenant whose token is not scoped to its project was answered from a listing")
	}
}

// TestListingAfterWroteEverything: a write of everything in the tenant (a force_destroy)
// silences every kind's listing of the tenant, and only the tenant's.
func TestListingAfterWroteEverything(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var calls atomic.Int32

	l := listingOf(&calls, func() []thing { return []thing{{"id-a", "a", ""}} })

	if _, ok, err := l.Find(t.Context(), tenant, "a"); !ok || err != nil {
		t.Fatalf("Find(a) before the write: ok %v, err %v", ok, err)
	}

	otherRegion := &Tenant{session: tenant.session, projectID: tenant.projectID, region: "RegionTwo"}

	tenant.WroteEverything()

	if _, ok, _ := l.Find(t.Context(), tenant, "a"); ok {
		t.Error("Find(a) answered from the listing after a write of everything in the tenant")
	}

	if _, ok, err := l.Find(t.Context(), otherRegion, "a"); !ok || err != nil {
		t.Errorf("Find(a) in another region: ok %v, err %v, want answered", ok, err)
	}
}

func TestListingNeedsATenantScopedToItsProject(t *testing.T) {
	t.Parallel()

	c, tenant := privilegedTenant(t)

	var calls atomic.Int32

	l := listingOf(&calls, func() []thing { return []thing{{"id-a", "a", ""}} })

	// The service user's own project (the admin scope under the cloud-admin model) naming p1.
	admin := &Tenant{session: c.Base(), projectID: "p1", region: "RegionOne"}

	for _, tt := range []*Tenant{nil, NewTenant(nil, "p1", "RegionOne"), admin} {
		if _, ok, err := l.Find(t.Context(), tt, "a"); ok || err != nil {
			t.Errorf("Find on %v answered (err %v)", tt, err)
		}
	}

	if calls.Load() != 0 {
		t.Errorf("%d listings, want none", calls.Load())
	}

	tenant.Wrote("thing", "x") // and a write on them is a no-op
	NewTenant(nil, "p1", "RegionOne").Wrote("thing", "x")
}

// roundsOf are rounds of things whose List calls are counted, each answering list(names).
func roundsOf(calls *atomic.Int32, list func(names []string) []thing) Rounds[thing] {
	return Rounds[thing]{
		Kind:     "thing",
		Interval: time.Second,
		List: func(_ context.Context, _ *Tenant, names []string) ([]thing, error) {
			calls.Add(1)

			return list(names), nil
		},
		Name: func(o thing) string { return o.Name },
		ID:   func(o thing) string { return o.ID },
	}
}

// TestRoundsServeManyWaitersWithOneListing: waiters that wait together share each round's one
// listing; each gets the objects of its own name.
func TestRoundsServeManyWaitersWithOneListing(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var (
		calls atomic.Int32
		mu    sync.Mutex
		asked [][]string
	)

	r := roundsOf(&calls, func(names []string) []thing {
		mu.Lock()
		asked = append(asked, slices.Clone(names))
		mu.Unlock()

		out := make([]thing, 0, len(names))
		for _, n := range names {
			out = append(out, thing{"id-" + n, n, "ACTIVE"})
		}

		return append(out, thing{"id-other", "other", "ACTIVE"})
	})

	// The loop's first wait lasts until every waiter has registered.
	release := make(chan struct{})
	ctx := WithSleeper(t.Context(), func(context.Context, time.Duration) error { <-release; return nil })
	names := []string{"a", "b", "c", "d"}

	var wg sync.WaitGroup

	for _, n := range names {
		wg.Add(1)

		go func() {
			defer wg.Done()

			got, ok, err := r.Next(ctx, tenant, n, time.Now())
			if err != nil || !ok || len(got) != 1 || got[0].Name != n {
				t.Errorf("Next(%s) = %v %v %v", n, got, ok, err)
			}
		}()
	}

	for waiting := 0; waiting < len(names); {
		time.Sleep(10 * time.Millisecond)

		loop := r.loop(tenant.run(), tenant.listingKey("thing"))
		loop.mu.Lock()
		waiting = len(loop.waiters)
		loop.mu.Unlock()
	}

	close(release)
	wg.Wait()

	if calls.Load() != 1 || len(asked) != 1 || !slices.Equal(asked[0], names) {
		t.Errorf("%d listings for %v, want one for all four names", calls.Load(), asked)
	}
}

func TestRoundsPoll(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var (
		calls, gets atomic.Int32
		polls       atomic.Int32
	)

	// BUILD twice, then ACTIVE; "gone" is never listed (its get answers 404).
	r := roundsOf(&calls, func([]string) []thing {
		status := "BUILD"
		if polls.Add(1) > 2 {
			status = "ACTIVE"
		}

		return []thing{{"id-a", "a", status}}
	})

	state := func(o thing) (string, string) { return o.Status, "" }
	spec := PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}}

	got, err := r.Poll(WithSleeper(t.Context(), cloudtest.Instant), tenant, "a", "id-a", spec, state, func(context.Context) (thing, error) {
		gets.Add(1)
		return thing{}, nil
	})
	if err != nil || got.Status != "ACTIVE" || gets.Load() != 0 {
		t.Errorf("Poll = %v %v after %d gets; want ACTIVE from the rounds alone", got, err, gets.Load())
	}

	notFound := gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusNotFound}

	_, err = r.Poll(WithSleeper(t.Context(), cloudtest.Instant), tenant, "gone", "id-gone", PollSpec{Pending: []string{"deleting"}, NotFoundIsTarget: true}, state,
		func(context.Context) (thing, error) { gets.Add(1); return thing{}, notFound })
	if err != nil || gets.Load() != 1 {
		t.Errorf("Poll for a deletion = %v after %d gets; want done after the object was not listed and read 404", err, gets.Load())
	}

	// A state the rounds confirm is read by ID: the read's state is the one acted on.
	failed := roundsOf(&calls, func([]string) []thing { return []thing{{"id-a", "a", "ERROR"}} })
	failed.Confirm = func(o thing) bool { return o.Status == "ERROR" }
	failed.Kind = "failed thing" // a loop of its own: r's may still be ending, and would serve this poll from r's listing

	gets.Store(0)

	got, err = failed.Poll(WithSleeper(t.Context(), cloudtest.Instant), tenant, "a", "id-a", spec, state, func(context.Context) (thing, error) {
		gets.Add(1)
		return thing{"id-a", "a", "ACTIVE"}, nil
	})
	if err != nil || got.Status != "ACTIVE" || gets.Load() != 1 {
		t.Errorf("Poll of a listed ERROR = %v %v after %d gets; want the read's ACTIVE", got, err, gets.Load())
	}

	// Without a cloud behind the tenant the rounds do not serve; Poll reads by itself.
	if _, ok, _ := r.Next(t.Context(), NewTenant(nil, "p1", "RegionOne"), "a", time.Now()); ok {
		t.Error("Next served a tenant without a cloud")
	}

	got, err = r.Poll(WithSleeper(t.Context(), cloudtest.Instant), NewTenant(nil, "p1", "RegionOne"), "a", "id-a", spec, state, func(context.Context) (thing, error) {
		return thing{"id-a", "a", "ACTIVE"}, nil
	})
	if err != nil || got.Status != "ACTIVE" {
		t.Errorf("Poll without a cloud = %v %v", got, err)
	}
}

// TestGrantsFromTokens: with admin on its own project and on the managed domain named in its
// tokens, the service user's grants cost no request beyond the manager scope's token.
func TestGrantsFromTokens(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.roles = map[string][]string{"project:" + fakeBaseProject: {"admin", "member"}, "domain:dom-managed-id": {"admin"}}

	c := mustClient(t, f, nil)
	before := len(f.api.Requests())

	g, err := c.CheckGrants(t.Context(), FeatureQuotas)
	if err != nil || g.Model != CloudAdmin || c.GrantModel() != CloudAdmin {
		t.Fatalf("CheckGrants = %+v, %v", g, err)
	}

	var paths []string
	for _, r := range f.api.Requests()[before:] {
		paths = append(paths, r.String())
	}

	if len(paths) != 1 || paths[0] != "POST /v3/auth/tokens" || f.posts("domain:dom-managed-id") != 1 {
		t.Errorf("requests %v; want only the manager scope's token", paths)
	}

	if id, err := c.ManagedDomainID(t.Context()); err != nil || id != "dom-managed-id" || len(f.api.Requests()) != before+1 {
		t.Errorf("ManagedDomainID = %q, %v with %d more requests", id, err, len(f.api.Requests())-before-1)
	}

	// Without admin on its own project, the assignments are read (and name what is missing).
	f.roles = map[string][]string{"domain:dom-managed-id": {"admin"}}
	c2 := mustClient(t, f, nil)

	_, _ = c2.CheckGrants(WithSleeper(t.Context(), cloudtest.Instant), FeatureQuotas)

	if n := f.api.Count("GET /v3/role_assignments"); n == 0 {
		t.Errorf("%d role assignment listings without admin in the token, want some", n)
	}
}

// TestRoundsPace: the next round comes after half the youngest wait, within the bounds.
func TestRoundsPace(t *testing.T) {
	t.Parallel()

	r := Rounds[thing]{Interval: 2 * time.Second, MaxInterval: 8 * time.Second}

	for _, tt := range []struct {
		ages []time.Duration
		want time.Duration
	}{
		{[]time.Duration{0}, 2 * time.Second},                   // a new wait: soon
		{[]time.Duration{10 * time.Second}, 5 * time.Second},    // one wait of 10 s: in 5 s
		{[]time.Duration{60 * time.Second}, 8 * time.Second},    // a long one: at most every 8 s
		{[]time.Duration{60 * time.Second, 0}, 2 * time.Second}, // the youngest sets the pace
		{[]time.Duration{60 * time.Second, 6 * time.Second}, 3 * time.Second},
	} {
		loop := &roundLoop[thing]{waiters: map[*roundWaiter[thing]]struct{}{}}
		for _, age := range tt.ages {
			loop.waiters[&roundWaiter[thing]{since: time.Now().Add(-age)}] = struct{}{}
		}

		if got := r.pause(loop); got < tt.want || got > tt.want+100*time.Millisecond {
			t.Errorf("ages %v: pause %s, want %s", tt.ages, got, tt.want)
		}
	}

	// Between rounds the waiters the last round served are not back yet: their wait sets the
	// pace all the same, not MaxInterval.
	loop := &roundLoop[thing]{waiters: map[*roundWaiter[thing]]struct{}{}, served: time.Now().Add(-4 * time.Second)}
	if got := r.pause(loop); got < 2*time.Second || got > 2*time.Second+100*time.Millisecond {
		t.Errorf("a wait of 4 s served by the last round: pause %s, want 2s", got)
	}
}

// TestRoundsLookSoonAtAYoungWaiter: a waiter that comes while the loop pauses for an old wait
// (the longest pause) has the pause chosen again, from its own wait (the shortest), and the next
// round serves both.
func TestRoundsLookSoonAtAYoungWaiter(t *testing.T) {
	t.Parallel()

	_, tenant := privilegedTenant(t)

	var calls atomic.Int32

	r := roundsOf(&calls, func(names []string) []thing {
		out := make([]thing, 0, len(names))
		for _, n := range names {
			out = append(out, thing{"id-" + n, n, "ACTIVE"})
		}

		return out
	})
	r.MaxInterval = time.Minute

	var (
		mu     sync.Mutex
		pauses []time.Duration
	)

	napping := make(chan struct{}, 1)

	// A pause of the longest kind lasts until it is interrupted; any other ends at once.
	ctx := WithSleeper(t.Context(), func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		pauses = append(pauses, d)
		mu.Unlock()

		if d < r.MaxInterval {
			return nil
		}

		napping <- struct{}{}
		<-ctx.Done()

		return ctx.Err()
	})

	var wg sync.WaitGroup

	wait := func(name string, since time.Time) {
		defer wg.Done()

		if got, ok, err := r.Next(ctx, tenant, name, since); err != nil || !ok || len(got) != 1 {
			t.Errorf("Next(%s) = %v %v %v", name, got, ok, err)
		}
	}

	wg.Add(2)

	go wait("old", time.Now().Add(-time.Hour)) // waited long: the loop pauses the longest

	<-napping

	go wait("young", time.Now())

	wg.Wait()

	mu.Lock()
	defer mu.Unlock()

	// (After the round the loop pauses once more, and ends without waiters.)
	if len(pauses) < 2 || pauses[0] != r.MaxInterval || pauses[1] != r.Interval || calls.Load() != 1 {
		t.Errorf("pauses %v and %d listings; want the longest pause, interrupted, then the shortest, and one listing for both",
			pauses, calls.Load())
	}
}
