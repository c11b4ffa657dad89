package identity

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The tests of issue 26 for the identity: a create adopts only what an interrupted create of an
// identity left (item 1), the service user keeps its roles (item 6), and a destroy looks in
// every region the identity was applied in (item 11). The server group (item 7) is in
// nova_test.go, acting as the user (item 9) in asuser_test.go.

// mutations are the writes api saw, authentications left out.
func mutations(api *cloudtest.API) []string {
	var out []string

	for _, w := range api.Writes() {
		if !strings.HasSuffix(w, "/auth/tokens") {
			out = append(out, w)
		}
	}

	return out
}

// Item 1: an identity of the name that an interrupted create did not leave is refused before
// anything is written: no grant, no quota, no password reset, no credential, trust, server
// group or keypair. The first case is the issue's: an identity with application_credential =
// false, finished, has no credential, which the old rule took for an interrupted create.
func TestEnsureRefusesAnIdentityItMayNotAdopt(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name              string
		project, user     naming.Mark
		claim             cloud.Claim
		wantPart, wantSay string
	}{
		{name: "not made by this provider (Unikorn's, a person's)", claim: cloud.ClaimForeign, wantSay: "did not make it"},
		{
			name: "another configuration's finished identity", project: naming.MadeFor(Type).Done(), user: interrupted,
			claim: cloud.ClaimFinished, wantSay: "finished unikorn_identity of another configuration",
		},
		{
			name: "made for a unikorn_project", project: naming.MadeFor("unikorn_project"), claim: cloud.ClaimOtherKind,
			wantSay: "for a unikorn_project",
		},
		{
			name: "an interrupted create, but a user not made for an identity", project: interrupted,
			claim: cloud.ClaimForeign, wantPart: "user",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f, c := adoptable(t)
			p := marked(project("p-1", "unikorn-identity-foo"), tc.project)
			f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{p}})
			f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{identityUser(tc.user)}})

			out, err := NewService(c, nil).Ensure(context.Background(), Spec{
				Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas(), NoApplicationCredential: true,
				ServerGroupPolicy: DefaultServerGroupPolicy, SSHPublicKey: "ssh-ed25519 AAAA me",
			}, Prior{})

			var exists *cloud.ExistsError
			if !errors.As(err, &exists) || exists.Claim != tc.claim {
				t.Fatalf("Ensure = %+v, %v; want an ExistsError of claim %v", out, err, tc.claim)
			}

			switch tc.wantPart {
			case "":
				for _, want := range []string{"p-1", "unikorn-identity-foo", tc.wantSay, "terraform import unikorn_identity.<address> p-1"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q does not say %q", err, want)
					}
				}
			default:
				if exists.ID != "u-1" || !strings.Contains(err.Error(), `part of the unikorn_identity "foo"`) {
					t.Errorf("%q does not refuse the user u-1 as a part of the identity", err)
				}
			}

			if out.ProjectID != "" {
				t.Fatalf("the refused identity would be recorded: %+v", out)
			}

			if got := mutations(f); len(got) > 0 {
				t.Fatalf("refusing, Ensure still changed the cloud: %v", got)
			}
		})
	}
}

// Item 1: what an interrupted create left (project and user with the identity's creation mark)
// is adopted and completed: the completion mark goes on the project as the very last write,
// after the credential (or its absence) and the trust.
func TestEnsureCompletesAnAdoptedCreateLast(t *testing.T) {
	t.Parallel()

	for _, noCredential := range []bool{false, true} {
		t.Run(map[bool]string{false: "with a credential", true: "without one"}[noCredential], func(t *testing.T) {
			t.Parallel()

			f, c := adoptable(t)

			out, err := NewService(c, nil).Ensure(context.Background(), Spec{
				Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas(), NoApplicationCredential: noCredential,
			}, Prior{})
			if err != nil {
				t.Fatal(err)
			}

			if out.ProjectID != "p-1" || out.UserID != "u-1" || out.TrustID != "t-1" {
				t.Fatalf("Ensure = %+v; want p-1 and u-1 adopted, trust t-1", out)
			}

			writes := mutations(f)
			if last := writes[len(writes)-1]; last != "PATCH /v3/projects/p-1" {
				t.Fatalf("the last write is %s, want the completion mark on the project: %v", last, writes)
			}

			done := f.Last(t, "PATCH /v3/projects/p-1").JSON(t, "project")
			if done[naming.MarkCompletedKey] != naming.MarkCompletedValue || len(done) != 1 {
				t.Fatalf("completion written as %v, want only the completion mark", done)
			}

			if i := slices.Index(writes, "POST /v3/OS-TRUST/trusts"); i < 0 {
				t.Fatalf("no trust made: %v", writes)
			}
		})
	}
}

// Item 1: a finished identity is never marked again by an update (one this provider did not make,
// imported, is never marked either: TestEnsureAdoptsAnIdentityMadeElsewhereReadOnly).
func TestEnsureNeverMarksWhatItDidNotMake(t *testing.T) {
	t.Parallel()

	for _, m := range []naming.Mark{naming.MadeFor(Type).Done()} {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()

			f, c := adoptable(t)
			p := marked(project("p-1", "unikorn-identity-foo"), m)
			f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": p})
			f.Reply("PATCH", "/v3/projects/p-1", 200, map[string]any{"project": p})
			f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{identityUser(naming.Mark{})}})

			prior := Prior{Ref: Ref{ProjectID: "p-1", UserID: "u-1", Roles: DefaultRoles}}
			if _, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, prior); err != nil {
				t.Fatal(err)
			}

			for _, r := range f.Requests() {
				if r.Method == http.MethodPatch && strings.Contains(string(r.Body), naming.MarkCompletedKey) {
					t.Fatalf("an update marked the identity: %s %s", r, r.Body)
				}
			}
		})
	}
}

// Item 1: the creates of the project and the user whose answers were lost recover only what
// this create may own: a foreign object of the name that shows up instead is refused, and
// nothing is posted again.
func TestEnsureLostAnswersRecoverOnlyTheirOwn(t *testing.T) {
	t.Parallel()

	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

	t.Run("project", func(t *testing.T) {
		t.Parallel()

		f, c := adoptable(t)
		f.Sequence("GET", "/v3/projects", map[string]any{"projects": []any{}},
			map[string]any{"projects": []any{project("p-other", "unikorn-identity-foo")}})
		f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{}})
		f.Reply("POST", "/v3/projects", http.StatusBadGateway, map[string]any{"error": "bad gateway"})

		out, err := NewService(c, nil).Ensure(ctx, Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "p-other" || out.ProjectID != "" {
			t.Fatalf("Ensure = %+v, %v; want the foreign p-other refused", out, err)
		}

		if got := mutations(f); !slices.Equal(got, []string{"POST /v3/projects"}) {
			t.Fatalf("writes %v, want the one POST of the project", got)
		}
	})

	t.Run("user", func(t *testing.T) {
		t.Parallel()

		f, c := adoptable(t)
		f.Sequence("GET", "/v3/users", map[string]any{"users": []any{}},
			map[string]any{"users": []any{identityUser(naming.Mark{})}})
		f.Reply("POST", "/v3/users", http.StatusBadGateway, map[string]any{"error": "bad gateway"})

		out, err := NewService(c, nil).Ensure(ctx, Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "u-1" || exists.Part == "" {
			t.Fatalf("Ensure = %+v, %v; want the foreign user u-1 refused as a part", out, err)
		}

		if f.Count("POST /v3/users") != 1 || f.Count("PATCH /v3/users/u-1") != 0 {
			t.Fatalf("the foreign user was posted again or used: %v", mutations(f))
		}
	})
}

// Item 1: Read's re-find by name takes only what an interrupted create of an identity left: a
// finished or foreign project of the name is not this identity, which is gone; a user of the
// name not made for an identity is no user of it.
func TestObserveReFindsOnlyWhatItMayOwn(t *testing.T) {
	t.Parallel()

	for _, m := range []naming.Mark{{}, naming.MadeFor(Type).Done(), naming.MadeFor("unikorn_project")} {
		t.Run("project "+m.String(), func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			c := fakeCloud(t, f)
			f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{marked(project("p-1", "unikorn-identity-foo"), m)}})

			out, err := NewService(c, nil).Observe(context.Background(), Ref{ProjectID: "p-gone", Name: "foo"}, nil)
			if err != nil || out != nil {
				t.Fatalf("Observe = %+v, %v; want the identity gone", out, err)
			}
		})
	}

	t.Run("user", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		c := fakeCloud(t, f)
		f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": marked(project("p-1", "unikorn-identity-foo"), interrupted.Done())})
		f.Reply("GET", "/v3/role_assignments", 200, map[string]any{"role_assignments": []any{}})
		f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{identityUser(naming.Mark{})}})
		quotasInFake(f, map[string]any{}, map[string]any{})

		out, err := NewService(c, nil).Observe(context.Background(), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-gone"}, nil)
		if err != nil || out == nil || out.UserID != "" {
			t.Fatalf("Observe = %+v, %v; want p-1 without a user", out, err)
		}
	})
}

// Item 6: dropping a role from the identity revokes it from the identity's user only: the
// service user keeps manager and the member roles, which the privileged scope needs to refresh
// and delete the identity's load balancers.
func TestEnsureKeepsTheServiceUsersRoles(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)
	prior := Prior{Ref: Ref{ProjectID: "p-1", UserID: "u-1", Roles: DefaultRoles}}

	if _, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: []string{RoleMember}, Quotas: UnlimitedQuotas()}, prior); err != nil {
		t.Fatal(err)
	}

	for _, role := range []string{"r-lb", "r-member", "r-manager"} {
		if n := f.Count("DELETE /v3/projects/p-1/users/" + fakeServiceUser + "/roles/" + role); n != 0 {
			t.Errorf("revoked %s from the service user", role)
		}

		if n := f.Count("PUT /v3/projects/p-1/users/" + fakeServiceUser + "/roles/" + role); n != 1 {
			t.Errorf("granted %s to the service user %d times, want once", role, n)
		}
	}

	if f.Count("DELETE /v3/projects/p-1/users/u-1/roles/r-lb") != 1 || f.Count("DELETE /v3/projects/p-1/users/u-1/roles/r-member") != 0 {
		t.Fatalf("want load-balancer_member revoked from the identity's user only: %v", mutations(f))
	}
}

// Item 11: the regions an identity is applied in are recorded on its project before the first
// write in any of them.
func TestEnsureRecordsTheRegionsBeforeWritingInThem(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)

	if _, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{}); err != nil {
		t.Fatal(err)
	}

	writes := mutations(f)
	record := slices.IndexFunc(f.Requests(), func(r cloudtest.Call) bool {
		return r.String() == "PATCH /v3/projects/p-1" && strings.Contains(string(r.Body), `"`+leftovers.RegionsKey+`":["RegionOne"]`)
	})
	quota := slices.IndexFunc(f.Requests(), func(r cloudtest.Call) bool { return r.String() == "PUT /compute/v2.1/os-quota-sets/p-1" })

	if record < 0 || quota < 0 || record > quota {
		t.Fatalf("the regions must be recorded before the quotas are set: %v", writes)
	}
}

// twoRegionProject is a fake cloud serving RegionOne, whose catalog also has RegionTwo, holding
// the identity project p-1 recorded as applied in RegionOne, RegionTwo and RegionGone (no longer
// in the catalog), with the server s-2 in RegionTwo (a stateful Nova there: deleted by DELETE).
func twoRegionProject(t *testing.T) (*cloudtest.API, *cloud.Client) {
	t.Helper()

	f := cloudtest.New(t)
	c := fakeCloudWith(t, f, fakeOptions{alsoInCatalog: []string{"RegionTwo"}})
	identityProjectInFake(f)

	p := marked(project("p-1", "unikorn-identity-foo"), finished)
	p[leftovers.RegionsKey] = []string{"RegionGone", "RegionOne", "RegionTwo"}
	f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": p})

	for path, body := range map[string]map[string]any{
		"/compute/v2.1/os-server-groups": {"server_groups": []any{}},
		"/lb/v2.0/lbaas/loadbalancers":   {"loadbalancers": []any{}},
		"/network/v2.0/floatingips":      {"floatingips": []any{}},
		"/network/v2.0/routers":          {"routers": []any{}},
		"/network/v2.0/networks":         {"networks": []any{}},
		"/network/v2.0/ports":            {"ports": []any{}},
		"/network/v2.0/security-groups":  {"security_groups": []any{}},
		"/volume/v3/volumes/detail":      {"volumes": []any{}},
	} {
		f.Reply("GET", "/RegionTwo"+path, 200, body)
	}

	var (
		mu   sync.Mutex
		gone bool
	)

	f.On("GET", "/RegionTwo/compute/v2.1/servers/detail", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()

		all := []any{}
		if !gone {
			all = append(all, map[string]any{"id": "s-2", "name": "web", "tenant_id": "p-1", "status": "ACTIVE"})
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"servers": all})
	})
	f.On("DELETE", "/RegionTwo/compute/v2.1/servers/s-2", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		gone = true
		mu.Unlock()

		w.WriteHeader(http.StatusNoContent)
	})

	return f, c
}

// Item 11: a destroy looks in every region the identity was applied in, also one the provider
// no longer serves: a server in it refuses the destroy without force_destroy, and goes with it.
// A recorded region that the catalog no longer has is passed over, and said so.
func TestDeleteLooksInEveryRegionTheIdentityWasAppliedIn(t *testing.T) {
	t.Parallel()

	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)
	ref := Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles}

	t.Run("refused", func(t *testing.T) {
		t.Parallel()

		f, c := twoRegionProject(t)

		_, err := NewService(c, nil).Delete(ctx, ref, false)

		var le *LeftoversError
		if !errors.As(err, &le) || len(le.Objects) != 1 || le.Objects[0].Region != "RegionTwo" || le.Objects[0].ID != "s-2" {
			t.Fatalf("Delete: %v; want the server s-2 of RegionTwo named as a leftover", err)
		}

		if f.Count("DELETE /v3/projects/p-1") != 0 {
			t.Fatal("the project was deleted")
		}
	})

	t.Run("force_destroy", func(t *testing.T) {
		t.Parallel()

		f, c := twoRegionProject(t)

		notices, err := NewService(c, nil).Delete(ctx, ref, true)
		if err != nil {
			t.Fatal(err)
		}

		if f.Count("DELETE /RegionTwo/compute/v2.1/servers/s-2") != 1 || f.Count("DELETE /v3/projects/p-1") != 1 {
			t.Fatalf("want s-2 deleted in RegionTwo, then the project: %v", mutations(f))
		}

		if len(notices) != 1 || !strings.Contains(notices[0].Detail, "RegionGone") {
			t.Fatalf("notices %+v, want one about RegionGone", notices)
		}
	})
}
