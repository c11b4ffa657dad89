package identity

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// identityProjectInFake serves project p-1 (unikorn-identity-foo) of the managed domain, an
// identity this provider made (finished), and the empty lists of a project with no tenant
// objects.
func identityProjectInFake(f *cloudtest.API) {
	f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": marked(project("p-1", "unikorn-identity-foo"), finished)})

	empty := map[string]map[string]any{
		"/compute/v2.1/servers/detail":          {"servers": []any{}},
		"/compute/v2.1/os-server-groups":        {"server_groups": []any{}},
		"/lb/v2.0/lbaas/loadbalancers":          {"loadbalancers": []any{}},
		"/network/v2.0/floatingips":             {"floatingips": []any{}},
		"/network/v2.0/routers":                 {"routers": []any{}},
		"/network/v2.0/networks":                {"networks": []any{}},
		"/network/v2.0/ports":                   {"ports": []any{}},
		"/network/v2.0/security-groups":         {"security_groups": []any{}},
		"/v3/OS-TRUST/trusts":                   {"trusts": []any{}},
		"/v3/users":                             {"users": []any{}},
		"/v3/users/u-1/application_credentials": {"application_credentials": []any{}},
		"/volume/v3/volumes/detail":             {"volumes": []any{}},
	}

	for path, body := range empty {
		f.Reply("GET", path, 200, body)
	}

	for _, role := range []string{"r-member", "r-lb", "r-manager"} {
		f.Reply("PUT", "/v3/projects/p-1/users/"+fakeServiceUser+"/roles/"+role, 204, nil)
	}
}

// deleteOrder lists the deletions of a whole identity; dependencies lists pairs of them that
// must come in that order.
var (
	deleteOrder = []string{
		"DELETE /compute/v2.1/os-keypairs/unikorn-openstack-provider",
		"DELETE /compute/v2.1/os-server-groups/sg-1",
		"DELETE /v3/OS-TRUST/trusts/t-1",
		"DELETE /v3/users/u-1/application_credentials/ac-1",
		"DELETE /v3/users/u-1",
		"DELETE /network/v2.0/security-groups/sec-default",
		"DELETE /compute/v2.1/os-quota-sets/p-1",
		"DELETE /network/v2.0/quotas/p-1",
		"DELETE /volume/v3/os-quota-sets/p-1",
		"DELETE /lb/v2.0/lbaas/quotas/p-1",
		"DELETE /v3/projects/p-1",
	}
	deleteDependencies = [][2]string{
		{"DELETE /compute/v2.1/os-keypairs/unikorn-openstack-provider", "DELETE /v3/OS-TRUST/trusts/t-1"},
		{"DELETE /v3/OS-TRUST/trusts/t-1", "DELETE /v3/users/u-1"},
		{"DELETE /v3/users/u-1/application_credentials/ac-1", "DELETE /v3/users/u-1"},
		{"DELETE /network/v2.0/security-groups/sec-default", "DELETE /v3/projects/p-1"},
		{"DELETE /v3/users/u-1", "DELETE /v3/projects/p-1"},
	}
)

func TestDelete(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		// cloud adds to the fake project p-1 of identityProjectInFake.
		cloud func(f *cloudtest.API)
		check func(t *testing.T, f *cloudtest.API, deletes []string, err error)
	}{
		{
			name: "refuses with leftovers and touches nothing",
			cloud: func(f *cloudtest.API) {
				f.Reply("GET", "/network/v2.0/networks", 200, map[string]any{"networks": []any{
					map[string]any{"id": "n-1", "name": "network-web", "project_id": "p-1"},
				}})
			},
			check: func(t *testing.T, f *cloudtest.API, deletes []string, err error) {
				t.Helper()

				var le *LeftoversError
				if !errors.As(err, &le) {
					t.Fatalf("err = %v, want a LeftoversError", err)
				}

				if len(le.Objects) != 1 || le.Objects[0].ID != "n-1" || le.Objects[0].Region != "RegionOne" ||
					!strings.Contains(err.Error(), `network "network-web" (n-1)`) {
					t.Fatalf("leftovers %+v / %q, want network n-1 in RegionOne", le.Objects, err)
				}

				if len(deletes) > 0 || f.Count("GET /v3/users/u-1") > 0 || f.Count("GET /v3/users") > 0 {
					t.Fatalf("refusing, Delete still went on (calls %v)", f.Calls())
				}
			},
		},
		{
			name: "in dependency order, and not found is success",
			cloud: func(f *cloudtest.API) {
				f.Reply("GET", "/v3/users/u-1", 200, map[string]any{"user": map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}})
				f.Reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{
					map[string]any{"id": "t-1", "trustor_user_id": "u-1", "trustee_user_id": fakeServiceUser, "project_id": "p-1", "impersonation": true},
				}})
				f.Reply("GET", "/v3/users/u-1/application_credentials", 200, map[string]any{"application_credentials": []any{
					map[string]any{"id": "ac-1", "name": "unikorn-identity-foo", "project_id": "p-1"},
				}})
				f.Reply("GET", "/compute/v2.1/os-server-groups", 200, map[string]any{"server_groups": []any{
					map[string]any{"id": "sg-1", "name": "unikorn-identity-foo"},
				}})
				f.Reply("GET", "/network/v2.0/security-groups", 200, map[string]any{"security_groups": []any{
					map[string]any{"id": "sec-default", "name": "default", "project_id": "p-1"},
				}})
				// Every DELETE is unhandled, so it answers 404: already gone is success.
			},
			check: func(t *testing.T, _ *cloudtest.API, deletes []string, err error) {
				t.Helper()

				if err != nil {
					t.Fatal(err)
				}

				for _, want := range deleteOrder {
					if !slices.Contains(deletes, want) {
						t.Fatalf("%s missing from %v", want, deletes)
					}
				}

				for i, pair := range deleteDependencies {
					if slices.Index(deletes, pair[0]) > slices.Index(deletes, pair[1]) {
						t.Fatalf("rule %d: %s must come before %s: %v", i, pair[0], pair[1], deletes)
					}
				}

				if deletes[len(deletes)-1] != "DELETE /v3/projects/p-1" {
					t.Fatalf("the project must go last: %v", deletes)
				}
			},
		},
		{
			// The first apply died before making the user: GET /v3/users/u-1 is a 404 and the
			// list by name is empty.
			name:  "without a user still deletes the project",
			cloud: func(*cloudtest.API) {},
			check: func(t *testing.T, f *cloudtest.API, deletes []string, err error) {
				t.Helper()

				if err != nil {
					t.Fatal(err)
				}

				if f.Count("DELETE /v3/projects/p-1") != 1 || deletes[len(deletes)-1] != "DELETE /v3/projects/p-1" {
					t.Fatalf("the project was not deleted last: %v", deletes)
				}
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			c := fakeCloud(t, f)
			identityProjectInFake(f)
			tt.cloud(f)

			_, err := NewService(c, nil).Delete(context.Background(), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles, CheckNova: true}, false)

			var deletes []string

			for _, call := range f.Calls() {
				if strings.HasPrefix(call, "DELETE ") {
					deletes = append(deletes, call)
				}
			}

			tt.check(t, f, deletes, err)
		})
	}
}

// adoptableIdentity serves the project p-1 and user u-1 of identity foo as an apply that died
// after making them leaves them (with the identity's creation mark, without its completion
// mark), and accepts every later step of Ensure: the credential ac-1, the trust t-1 and the
// project's completion mark.
func adoptableIdentity(f *cloudtest.API) {
	p := marked(project("p-1", "unikorn-identity-foo"), interrupted)
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{p}})
	f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": p})
	f.Reply("PATCH", "/v3/projects/p-1", 200, map[string]any{"project": p})
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{identityUser(interrupted)}})

	for _, user := range []string{fakeServiceUser, "u-1"} {
		for _, role := range []string{"r-member", "r-lb", "r-manager"} {
			f.Reply("PUT", "/v3/projects/p-1/users/"+user+"/roles/"+role, 204, nil)
		}
	}

	f.Reply("PUT", "/volume/v3/os-quota-sets/p-1", 200, map[string]any{"quota_set": map[string]any{}})
	f.Reply("PUT", "/compute/v2.1/os-quota-sets/p-1", 200, map[string]any{"quota_set": map[string]any{}})
	f.Reply("PUT", "/lb/v2.0/lbaas/quotas/p-1", 202, map[string]any{"quota": map[string]any{}})
	f.Reply("PUT", "/network/v2.0/quotas/p-1", 200, map[string]any{"quota": map[string]any{}})
	f.Reply("GET", "/v3/users/u-1/application_credentials", 200, map[string]any{"application_credentials": []any{}})
	f.Reply("PATCH", "/v3/users/u-1", 200, map[string]any{"user": map[string]any{"id": "u-1"}})
	f.Reply("POST", "/v3/users/u-1/application_credentials", 201, map[string]any{"application_credential": map[string]any{
		"id": "ac-1", "name": "unikorn-identity-foo", "secret": "the-secret", "project_id": "p-1",
	}})
	f.Reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{}})
	f.Reply("POST", "/v3/OS-TRUST/trusts", 201, map[string]any{"trust": map[string]any{"id": "t-1", "project_id": "p-1"}})
}

// TestEnsureAdoptsAfterACrash: the project and user exist (an earlier apply died after making
// them; the user's password is lost). Ensure adopts both, resets the password to act as the
// user, issues the credential and the trust, and makes no twin.
func TestEnsureAdoptsAfterACrash(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	adoptableIdentity(f)

	out, err := NewService(c, nil).Ensure(context.Background(), Spec{
		Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas(),
	}, Prior{})
	if err != nil {
		t.Fatal(err)
	}

	if out.ProjectID != "p-1" || out.UserID != "u-1" || out.ApplicationCredentialID != "ac-1" ||
		out.ApplicationCredentialSecret != "the-secret" || out.TrustID != "t-1" {
		t.Fatalf("Ensure = %+v", out)
	}

	if f.Count("POST /v3/projects") != 0 || f.Count("POST /v3/users") != 0 {
		t.Fatalf("made a twin: %v", f.Calls())
	}

	password, _ := f.Last(t, "PATCH /v3/users/u-1").JSON(t, "user")["password"].(string)
	if len(password) < 40 {
		t.Fatalf("password reset to %q", password)
	}

	// The user authenticated with that password, scoped to the project.
	var userAuth bool

	for _, r := range f.Requests() {
		if r.Method == "POST" && r.Path == "/v3/auth/tokens" && strings.Contains(string(r.Body), password) &&
			strings.Contains(string(r.Body), `"u-1"`) && strings.Contains(string(r.Body), `"p-1"`) {
			userAuth = true
		}
	}

	if !userAuth {
		t.Fatal("no project-scoped authentication as the user with the new password")
	}

	ac := f.Last(t, "POST /v3/users/u-1/application_credentials").JSON(t, "application_credential")
	if acRoles, _ := ac["roles"].([]any); ac["unrestricted"] != false || len(acRoles) != 2 {
		t.Fatalf("application credential created with %v", ac)
	}

	trust := f.Last(t, "POST /v3/OS-TRUST/trusts").JSON(t, "trust")
	if trust["impersonation"] != true || trust["trustor_user_id"] != "u-1" || trust["trustee_user_id"] != fakeServiceUser ||
		trust["project_id"] != "p-1" {
		t.Fatalf("trust created with %v", trust)
	}

	roles, _ := trust["roles"].([]any)

	var ids []string

	for _, r := range roles {
		m, _ := r.(map[string]any)
		id, _ := m["id"].(string)
		ids = append(ids, id)
	}

	slices.Sort(ids)

	if !slices.Equal(ids, []string{"r-lb", "r-member"}) {
		t.Fatalf("trust roles %v", ids)
	}

	// Quotas went to every service, unlimited.
	for _, call := range []string{
		"PUT /volume/v3/os-quota-sets/p-1", "PUT /compute/v2.1/os-quota-sets/p-1",
		"PUT /lb/v2.0/lbaas/quotas/p-1", "PUT /network/v2.0/quotas/p-1",
	} {
		if f.Count(call) != 1 {
			t.Fatalf("%s: %d calls", call, f.Count(call))
		}
	}
}

// TestEnsureRefreshesTheTrustListing: the run's trust listing (which the identity scopes of
// every tenant resource read) was taken before the trust existed; once Ensure has made the
// trust, or tried to (a refused create leaves the listing stale too), the next look lists the
// trusts again and finds it. A create whose answer was lost (a 500 after Keystone made the
// trust) is recovered: the trust is found again, and Ensure succeeds.
func TestEnsureRefreshesTheTrustListing(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct {
		name    string
		status  int
		wantErr bool
	}{
		{name: "trust made", status: 201},
		{name: "trust create answer lost", status: 500},
		{name: "trust create refused", status: 400, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ctx := context.Background()
			f := cloudtest.New(t)
			c := fakeCloud(t, f)
			adoptableIdentity(f)

			none := map[string]any{"trusts": []any{}}
			f.Sequence("GET", "/v3/OS-TRUST/trusts", none, none, map[string]any{"trusts": []any{
				map[string]any{"id": "t-1", "trustor_user_id": "u-1", "trustee_user_id": fakeServiceUser, "project_id": "p-1", "impersonation": true},
			}})
			f.Reply("POST", "/v3/OS-TRUST/trusts", tt.status, map[string]any{"trust": map[string]any{"id": "t-1", "project_id": "p-1"}})

			if before, err := c.TrustedProjects(ctx); err != nil || len(before) != 0 {
				t.Fatalf("TrustedProjects before = %v, %v; want none", before, err)
			}

			_, err := NewService(c, nil).Ensure(ctx, Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Ensure: %v, want error %v", err, tt.wantErr)
			}

			after, err := c.TrustedProjects(ctx)
			if err != nil || !slices.Equal(after, []string{"p-1"}) {
				t.Fatalf("TrustedProjects after = %v, %v; want p-1 (the trust listing must be taken again)", after, err)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, idOrName, wantID, wantName, wantErr string
	}{
		{name: "by project ID", idOrName: "p-1", wantID: "p-1", wantName: "foo"},
		{name: "by name", idOrName: "foo", wantID: "p-1", wantName: "foo"},
		{name: "by project name", idOrName: "unikorn-identity-foo", wantID: "p-1", wantName: "foo"},
		{name: "not an identity's project", idOrName: "p-other", wantErr: "not an identity project"},
		{name: "missing", idOrName: "bar", wantErr: `no identity project with the ID or name "bar"`},
		{name: "neither an ID nor a name", idOrName: "Not A Name", wantErr: "no identity project"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			c := fakeCloud(t, f)
			f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": project("p-1", "unikorn-identity-foo")})
			f.Reply("GET", "/v3/projects/p-other", 200, map[string]any{"project": project("p-other", "someone-else")})
			f.On("GET", "/v3/projects", func(w http.ResponseWriter, r *http.Request) {
				all := []any{}
				if r.URL.Query().Get("name") == "unikorn-identity-foo" {
					all = append(all, project("p-1", "unikorn-identity-foo"))
				}

				cloudtest.WriteJSON(w, 200, map[string]any{"projects": all})
			})

			got, err := NewService(c, nil).Locate(context.Background(), tt.idOrName)

			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Locate(%q) = %+v, %v; want an error containing %q", tt.idOrName, got, err, tt.wantErr)
				}
			case err != nil || got.ID != tt.wantID || got.ProjectID != tt.wantID || got.Name != tt.wantName:
				t.Fatalf("Locate(%q) = %+v, %v; want %s named %s", tt.idOrName, got, err, tt.wantID, tt.wantName)
			}

			if tt.idOrName == "Not A Name" && f.Count("GET /v3/projects") != 0 {
				t.Fatal("a string that cannot be an identity's name was looked up as one")
			}
		})
	}
}

func TestList(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{
		project("p-1", "unikorn-identity-foo"), project("p-x", "a-human-project"), project("p-2", "unikorn-identity-bar"),
	}})

	got, err := NewService(c, nil).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	want := []cloud.Located{{ID: "p-1", ProjectID: "p-1", Name: "foo"}, {ID: "p-2", ProjectID: "p-2", Name: "bar"}}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %+v, want %+v", got, want)
	}

	if q := f.Last(t, "GET /v3/projects").Query.Get("domain_id"); q != fakeDomainID {
		t.Fatalf("listed the projects of domain %q, want the managed domain %s", q, fakeDomainID)
	}
}
