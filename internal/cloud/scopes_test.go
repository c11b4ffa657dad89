package cloud

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
)

// expiredTrust is a trust on project that ran out an hour ago.
func expiredTrust(id, project string) map[string]any {
	trust := fakeTrust(id, project)
	trust["expires_at"] = time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z")

	return trust
}

func TestIdentityTrustLookup(t *testing.T) {
	t.Parallel()

	expired := expiredTrust("t-expired", "p1")

	tests := []struct {
		name      string
		trusts    []map[string]any
		wantTrust string
		wantErr   []string
	}{
		{"none", []map[string]any{fakeTrust("t-other", "p2"), expired}, "", []string{"no Keystone trust", fakeUserID, "project p1"}},
		{"one", []map[string]any{fakeTrust("t-other", "p2"), fakeTrust("t-one", "p1"), expired}, "t-one", nil},
		{"two", []map[string]any{fakeTrust("t-a", "p1"), fakeTrust("t-b", "p1")}, "", []string{"2 Keystone trusts", "t-a", "t-b", "project p1"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
			f.setTrusts(tt.trusts...)
			headers := f.serviceHeaders()

			c := mustClient(t, f, nil)

			s, err := c.Identity(t.Context(), "p1")
			if tt.wantErr != nil {
				wantErrorContaining(t, err, tt.wantErr...)

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if s.ProjectID() != "p1" || f.posts("trust:"+tt.wantTrust) != 1 {
				t.Errorf("session %v, %d trust-scoped token requests", s, f.posts("trust:"+tt.wantTrust))
			}

			if again, err := c.Identity(t.Context(), "p1"); err != nil || again != s || f.posts("trust:"+tt.wantTrust) != 1 {
				t.Errorf("identity session not cached: %v %v", again, err)
			}

			defer func() {
				// After ForgetProject the trust is looked up and consumed again.
				c.ForgetProject("p1")

				if again, err := c.Identity(t.Context(), "p1"); err != nil || again == s || f.posts("trust:"+tt.wantTrust) != 2 {
					t.Errorf("after ForgetProject: %v %v, %d trust-scoped token requests", again, err, f.posts("trust:"+tt.wantTrust))
				}
			}()

			// Requests made in the identity scope carry the trust-scoped token.
			compute := mustService(t, s.Compute, "")

			if _, err := servers.List(compute, nil).AllPages(t.Context()); err != nil {
				t.Fatal(err)
			}

			seen := headers(endpointPath("RegionOne", "compute") + "/servers/detail")
			if len(seen) != 1 || f.scopeOf(seen[0].Get("X-Auth-Token")) != "trust:"+tt.wantTrust {
				t.Errorf("%d server listings, the first with a token of scope %q; want one in the trust scope",
					len(seen), f.scopeOf(seen[0].Get("X-Auth-Token")))
			}
		})
	}
}

func TestOneTrustListingServesEveryProject(t *testing.T) {
	t.Parallel()

	const n = 6

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	trusts := make([]map[string]any, 0, n)
	for i := range n {
		trusts = append(trusts, fakeTrust(fmt.Sprintf("t-p%d", i), fmt.Sprintf("p%d", i)))
	}

	f.setTrusts(trusts...)

	c := mustClient(t, f, nil)

	// The identity scopes of n projects, bound at the same time, plus an import's listing.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)

	for i := range n {
		wg.Add(1)

		go func() {
			defer wg.Done()

			tenant, err := c.Tenant(t.Context(), fmt.Sprintf("p%d", i), "", AsIdentity)
			if err == nil && tenant.Session().ProjectID() != tenant.ProjectID() {
				err = fmt.Errorf("tenant %s bound to the session of %s", tenant, tenant.Session().ProjectID())
			}

			mu.Lock()
			defer mu.Unlock()

			errs = append(errs, err)
		}()
	}

	wg.Wait()

	if projects, err := c.TrustedProjects(t.Context()); err != nil || len(projects) != n {
		t.Errorf("TrustedProjects() = %q, %v; want the %d projects", projects, err, n)
	}

	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}

	if got := f.listings(); got != 1 {
		t.Errorf("%d trust listings for %d projects, want 1", got, n)
	}

	for i := range n {
		if got := f.posts(fmt.Sprintf("trust:t-p%d", i)); got != 1 {
			t.Errorf("project p%d: %d trust-scoped token requests, want 1", i, got)
		}
	}
}

func TestTrustMadeAfterTheListing(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	c := mustClient(t, f, nil)

	steps := []struct {
		trusted            []string // the projects with a trust when the step runs
		project, wantTrust string
		wantErr            string
		wantListings       int
	}{
		// The first identity scope takes the listing.
		{trusted: []string{"p1"}, project: "p1", wantTrust: "t-p1", wantListings: 1},
		// p2's trust is made after it (by another identity's create): found by one re-list.
		{trusted: []string{"p1", "p2"}, project: "p2", wantTrust: "t-p2", wantListings: 2},
		// A project with no trust lists once more, then fails.
		{trusted: []string{"p1", "p2", "p4"}, project: "p3", wantListings: 3,
			wantErr: "no Keystone trust to the service user " + fakeUserID + " on project p3"},
		// A project in the listing at hand does not list again.
		{trusted: []string{"p1", "p2", "p4"}, project: "p4", wantTrust: "t-p4", wantListings: 3},
	}

	for _, step := range steps {
		var trusts []map[string]any
		for _, project := range step.trusted {
			trusts = append(trusts, fakeTrust("t-"+project, project))
		}

		f.setTrusts(trusts...)

		s, err := c.Identity(t.Context(), step.project)

		switch {
		case step.wantErr != "":
			wantErrorContaining(t, err, step.wantErr)
		case err != nil:
			t.Errorf("Identity(%s): %v", step.project, err)
		case s.ProjectID() != step.project || f.posts("trust:"+step.wantTrust) != 1:
			t.Errorf("Identity(%s) = %v after %d token requests with %s", step.project, s, f.posts("trust:"+step.wantTrust), step.wantTrust)
		}

		if got := f.listings(); got != step.wantListings {
			t.Errorf("after Identity(%s): %d trust listings, want %d", step.project, got, step.wantListings)
		}
	}
}

func TestTrustReplacedSinceTheListing(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name         string
		now          []map[string]any // the trusts once the listing was taken (t-old is then refused)
		wantTrust    string
		wantErr      []string
		wantListings int
	}{
		{
			name: "replaced: the new trust is found by one re-list", now: []map[string]any{fakeTrust("t-new", "p1")},
			wantTrust: "t-new", wantListings: 2,
		},
		{
			name: "deleted: both failures are reported", now: nil,
			wantErr: []string{`scoped to trust "t-old"`, "HTTP 401", "no Keystone trust"}, wantListings: 3,
		},
		{
			name: "still listed: the refusal stands, unretried", now: []map[string]any{fakeTrust("t-old", "p1")},
			wantErr: []string{`scoped to trust "t-old"`, "HTTP 401"}, wantListings: 2,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
			f.setTrusts(fakeTrust("t-old", "p1"))

			c := mustClient(t, f, nil)

			if _, err := c.TrustedProjects(t.Context()); err != nil {
				t.Fatal(err)
			}

			f.mu.Lock()
			f.trusts = tt.now
			f.denied = map[string]bool{"trust:t-old": true}
			f.mu.Unlock()

			s, err := c.Identity(t.Context(), "p1")

			switch {
			case tt.wantErr != nil:
				wantErrorContaining(t, err, tt.wantErr...)
			case err != nil:
				t.Fatal(err)
			case s.ProjectID() != "p1" || f.posts("trust:"+tt.wantTrust) != 1:
				t.Errorf("session %v, %d token requests with %s", s, f.posts("trust:"+tt.wantTrust), tt.wantTrust)
			}

			if got := f.listings(); got != tt.wantListings {
				t.Errorf("%d trust listings, want %d", got, tt.wantListings)
			}
		})
	}
}

func TestForgetDropsTheTrustListing(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.setTrusts(fakeTrust("t-p1", "p1"))

	c := mustClient(t, f, nil)

	if _, err := c.Identity(t.Context(), "p1"); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name         string
		forget       func()
		wantListings int
	}{
		{"listing kept", func() {}, 1},
		{"ForgetProject", func() { c.ForgetProject("p1") }, 2},
		{"ForgetProject of another project", func() { c.ForgetProject("p9") }, 3},
		{"ForgetTrusts", c.ForgetTrusts, 4},
		{"listing kept again", func() {}, 4},
	}

	for _, step := range steps {
		step.forget()

		if _, err := c.TrustedProjects(t.Context()); err != nil {
			t.Fatal(err)
		}

		if got := f.listings(); got != step.wantListings {
			t.Errorf("%s: %d trust listings, want %d", step.name, got, step.wantListings)
		}
	}

	// The identity scope dropped by ForgetProject authenticates again, from the cached listing.
	if _, err := c.Identity(t.Context(), "p1"); err != nil || f.posts("trust:t-p1") != 2 || f.listings() != 4 {
		t.Errorf("after ForgetProject: %v, %d token requests, %d listings", err, f.posts("trust:t-p1"), f.listings())
	}

	// ForgetProject keeps the scope as configured.
	c.ForgetProject(fakeBaseProject)

	if _, err := c.Privileged(t.Context(), fakeBaseProject); err != nil || f.posts("project:"+fakeBaseProject) != 1 {
		t.Errorf("base project after ForgetProject: %v, %d token requests", err, f.posts("project:"+fakeBaseProject))
	}
}

func TestTrustedProjects(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	otherTrustee := fakeTrust("t-other-trustee", "p4")
	otherTrustee["trustee_user_id"] = "someone-else"

	f.setTrusts(
		fakeTrust("t1", "p2"), fakeTrust("t2", "p1"), fakeTrust("t3", "p2"), // p2 twice
		expiredTrust("t4", "p3"), otherTrustee, fakeTrust("t5", ""),
	)

	c := mustClient(t, f, nil)

	for range 2 {
		projects, err := c.TrustedProjects(t.Context())
		if err != nil || !slices.Equal(projects, []string{"p2", "p1"}) {
			t.Errorf("TrustedProjects() = %q, %v; want [p2 p1] (distinct, live, in listing order)", projects, err)
		}
	}

	if got := f.listings(); got != 1 {
		t.Errorf("%d trust listings, want 1", got)
	}
}

func TestManagerScope(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, domain, wantScope, wantErr string
	}{
		{"by name", "managed", "domain:dom-managed-id", ""},
		{"by ID", "dom-managed-id", "domain:dom-managed-id", ""},
		{"unknown", "nowhere", "", `managed domain "nowhere" not found`},
		{"not configured", "", "", "UNIKORN_DOMAIN"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

			c := mustClient(t, f, func(c *Config) { c.Domain = tt.domain })

			s, err := c.Manager(t.Context())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error %q, got %v", tt.wantErr, err)
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if s.ProjectID() != "" || f.posts(tt.wantScope) != 1 {
				t.Errorf("manager session %v, %d token requests for %s", s, f.posts(tt.wantScope), tt.wantScope)
			}

			if id, _ := c.ManagedDomainID(t.Context()); id != "dom-managed-id" {
				t.Errorf("domain ID %q", id)
			}

			if again, _ := c.Manager(t.Context()); again != s || f.posts(tt.wantScope) != 1 {
				t.Error("manager session not cached")
			}
		})
	}
}

// TestIdentityScopeNeedsTheIdentitysOwnTrust: a trust to the service user on the project from
// anyone but the identity's own user is never acted through (DESIGN.md §4).
func TestIdentityScopeNeedsTheIdentitysOwnTrust(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	foreign := fakeTrust("t-foreign", "p1")
	foreign["trustor_user_id"] = "someone-else"
	f.setTrusts(foreign)

	c := mustClient(t, f, nil)

	if _, err := c.Identity(t.Context(), "p1"); err == nil || !strings.Contains(err.Error(), "no Keystone trust") {
		t.Fatalf("err %v; want no trust found (the only one is another user's)", err)
	}

	if f.posts("trust:t-foreign") != 0 {
		t.Fatalf("authenticated through another user's trust")
	}

	f.setTrusts(foreign, fakeTrust("t-own", "p1"))
	c.ForgetTrusts()

	sess, err := c.Identity(t.Context(), "p1")
	if err != nil || f.posts("trust:t-own") != 1 || f.posts("trust:t-foreign") != 0 {
		t.Fatalf("session %v err %v; want the identity's own trust t-own only", sess, err)
	}
}

// TestRecordedTrustorSparesTheManagerScope: with the trustor a resource recorded, binding the
// identity scope acts through that user's live trust, whose token shows the project to be an
// identity's in the managed domain: no manager-scope token, no lookup of the identity's user, no
// read of the project. A project the token shows to be no identity is checked in the manager
// scope, and refused. A recorded trustor that
// holds no trust on the project is not acted on: the user is looked up as before, and another
// user's trust is never authenticated with.
func TestRecordedTrustorSparesTheManagerScope(t *testing.T) {
	t.Parallel()

	const users, project = "GET /v3/users", "GET /v3/projects/p1"

	t.Run("recorded", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		f.setTrusts(fakeTrust("t-p1", "p1"))

		c := mustClient(t, f, nil)
		c.RecordedTrustor("p1", "identity-user")

		if _, err := c.Tenant(t.Context(), "p1", "", AsIdentity); err != nil {
			t.Fatal(err)
		}

		if f.posts("domain:dom-managed-id") != 0 || f.api.Count(users) != 0 || f.posts("trust:t-p1") != 1 || f.api.Count(project) != 0 {
			t.Errorf("%d manager tokens, %d user lookups, %d trust tokens, %d project reads; want 0, 0, 1, 0",
				f.posts("domain:dom-managed-id"), f.api.Count(users), f.posts("trust:t-p1"), f.api.Count(project))
		}

		if got := c.Trustor("p1"); got != "identity-user" {
			t.Errorf("Trustor = %q, want identity-user", got)
		}
	})

	t.Run("not the project's identity", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		f.setTrusts(fakeTrust("t-p1", "p1"))
		f.projects = map[string]map[string]any{"p1": {"id": "p1", "name": "someone-elses", "domain_id": "dom-managed-id"}}

		c := mustClient(t, f, nil)
		c.RecordedTrustor("p1", "identity-user")

		if _, err := c.Tenant(t.Context(), "p1", "", AsIdentity); err == nil || !strings.Contains(err.Error(), "is not an identity") {
			t.Fatalf("err %v; want the project refused as no identity", err)
		}
	})

	t.Run("recorded wrongly", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		foreign := fakeTrust("t-foreign", "p1")
		foreign["trustor_user_id"] = "someone-else"
		f.setTrusts(foreign, fakeTrust("t-own", "p1"))

		c := mustClient(t, f, nil)
		c.RecordedTrustor("p1", "a-deleted-user")

		if _, err := c.Tenant(t.Context(), "p1", "", AsIdentity); err != nil {
			t.Fatal(err)
		}

		if f.api.Count(users) != 1 || f.posts("trust:t-own") != 1 || f.posts("trust:t-foreign") != 0 {
			t.Errorf("%d user lookups, %d own and %d foreign trust tokens; want 1, 1, 0",
				f.api.Count(users), f.posts("trust:t-own"), f.posts("trust:t-foreign"))
		}

		if got := c.Trustor("p1"); got != "identity-user" {
			t.Errorf("Trustor = %q, want the user looked up", got)
		}
	})
}
