package identity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The project found by name (exactly: no near miss) gets the spec's description and tags, and
// the served regions recorded.
func TestEnsureProjectUpdatesTheFoundOne(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	// Keystone here matches fuzzily: the near-miss name must not be adopted.
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{
		project("p-near", "unikorn-identity-foo2"),
		project("p-1", "unikorn-identity-foo", "organization=org", "keep=me"),
	}, "links": map[string]any{}})
	f.Reply("PATCH", "/v3/projects/p-1", 200, map[string]any{"project": project("p-1", "unikorn-identity-foo", "keep=me", "organization=org2", "project=proj")})

	found, err := lookupProject(context.Background(), keystone(f), fakeDomainID, "", "foo")
	if err != nil || found == nil || found.ID != "p-1" {
		t.Fatalf("lookupProject = %v, %v; want p-1", found, err)
	}

	p, err := ensureProject(context.Background(), keystone(f), fakeDomainID,
		Spec{Name: "foo", OrganizationID: "org2", ProjectID: "proj"}, found, []string{"RegionOne"}, true)
	if err != nil {
		t.Fatal(err)
	}

	if p.ID != "p-1" {
		t.Fatalf("updated %s, want p-1", p.ID)
	}

	if n := f.Count("POST /v3/projects"); n != 0 {
		t.Fatalf("created a twin (%d POSTs)", n)
	}

	tags, _ := f.Last(t, "PATCH /v3/projects/p-1").JSON(t, "project")["tags"].([]any)

	var got []string

	for _, tag := range tags {
		s, _ := tag.(string)
		got = append(got, s)
	}

	if want := []string{"keep=me", "organization=org2", "project=proj"}; !slices.Equal(got, want) {
		t.Fatalf("tags sent %v, want %v (foreign tags kept, ours replaced)", got, want)
	}
}

func TestEnsureProjectCreatesWhenOnlyNearMisses(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{project("p-near", "unikorn-identity-foo-bar")}})
	f.Reply("POST", "/v3/projects", 201, map[string]any{"project": project("p-new", "unikorn-identity-foo", "organization=o")})

	found, err := lookupProject(context.Background(), keystone(f), fakeDomainID, "", "foo")
	if err != nil || found != nil {
		t.Fatalf("lookupProject = %v, %v; want none (only near misses)", found, err)
	}

	p, err := ensureProject(context.Background(), keystone(f), fakeDomainID, Spec{Name: "foo", OrganizationID: "o"}, nil,
		[]string{"RegionOne", "RegionTwo"}, true)
	if err != nil {
		t.Fatal(err)
	}

	if p.ID != "p-new" {
		t.Fatalf("got %s, want the new project", p.ID)
	}

	// Made with the identity's creation mark (no completion mark) and the served regions.
	body := f.Last(t, "POST /v3/projects").JSON(t, "project")
	if body["name"] != "unikorn-identity-foo" || body["domain_id"] != fakeDomainID ||
		body[naming.MarkKindKey] != Type || body[naming.MarkCompletedKey] != nil ||
		fmt.Sprint(body[leftovers.RegionsKey]) != "[RegionOne RegionTwo]" {
		t.Fatalf("created %v", body)
	}
}

func TestEnsureProjectDuplicatesAreAnError(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{
		project("p-b", "unikorn-identity-foo"), project("p-a", "unikorn-identity-foo"),
	}})

	_, err := lookupProject(context.Background(), keystone(f), fakeDomainID, "", "foo")

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) {
		t.Fatalf("err = %v, want a DuplicateError", err)
	}

	if !slices.Equal(dup.IDs, []string{"p-a", "p-b"}) || !strings.Contains(err.Error(), "p-a, p-b") {
		t.Fatalf("duplicate error %q does not name both IDs", err)
	}

	if f.Count("POST /v3/projects") != 0 {
		t.Fatal("created a project despite the duplicates")
	}
}

func TestLookupProjectByIDThenName(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	// GET /v3/projects/gone is unhandled: 404.
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{project("p-2", "unikorn-identity-foo")}})

	p, err := lookupProject(context.Background(), keystone(f), fakeDomainID, "gone", "foo")
	if err != nil || p == nil || p.ID != "p-2" {
		t.Fatalf("lookupProject = %v, %v; want p-2 re-found by name", p, err)
	}

	f.Reply("GET", "/v3/projects/other", 200, map[string]any{"project": map[string]any{"id": "other", "name": "x", "domain_id": "elsewhere"}})

	if _, err := lookupProject(context.Background(), keystone(f), fakeDomainID, "other", ""); err == nil ||
		!strings.Contains(err.Error(), "not in the managed domain") {
		t.Fatalf("err = %v, want a refusal of a project outside the managed domain", err)
	}
}

func TestEnsureUserAdoptsOrCreates(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{
		map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true},
	}})

	found, err := lookupUser(ctx, keystone(f), fakeDomainID, "", "unikorn-identity-foo")
	if err != nil || found == nil {
		t.Fatalf("lookupUser = %v, %v; want u-1", found, err)
	}

	u, password, err := ensureUser(ctx, keystone(f), fakeDomainID, "foo", "p-1", found)
	if err != nil || u.ID != "u-1" || password != "" || len(f.Writes()) != 0 {
		t.Fatalf("ensureUser = %v, %q, %v (writes %v); want the found u-1 as it is and no password", u, password, err, f.Writes())
	}

	g := cloudtest.New(t)
	g.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{}})
	g.Reply("POST", "/v3/users", 201, map[string]any{"user": map[string]any{"id": "u-new", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}})

	u, password, err = ensureUser(ctx, keystone(g), fakeDomainID, "foo", "p-1", nil)
	if err != nil || u.ID != "u-new" || len(password) < 40 {
		t.Fatalf("ensureUser = %v, %d-character password, %v; want a new user with a long random password", u, len(password), err)
	}

	sent := g.Last(t, "POST /v3/users").JSON(t, "user")
	if sent["password"] != password || sent["default_project_id"] != "p-1" || sent["domain_id"] != fakeDomainID ||
		sent[naming.MarkKindKey] != Type {
		t.Fatalf("user created with %v", sent)
	}
}

func TestEnsureUserErrorHidesPassword(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{}})
	// A server that echoes the request into its error.
	f.On("POST", "/v3/users", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		cloudtest.WriteJSON(w, 400, map[string]any{"error": map[string]any{"message": "bad request: " + string(body)}})
	})

	_, _, err := ensureUser(context.Background(), keystone(f), fakeDomainID, "foo", "p-1", nil)
	if err == nil {
		t.Fatal("expected an error")
	}

	sent, _ := f.Last(t, "POST /v3/users").JSON(t, "user")["password"].(string)
	if sent == "" {
		t.Fatal("no password sent")
	}
	if strings.Contains(err.Error(), sent) {
		t.Fatalf("the error shows the password: %v", err)
	}
}

func TestFindTrustsFilters(t *testing.T) {
	t.Parallel()

	past := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z")

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{
		map[string]any{"id": "t-ok", "trustor_user_id": "u-1", "trustee_user_id": "svc", "project_id": "p-1", "impersonation": true},
		map[string]any{"id": "t-other-user", "trustor_user_id": "u-2", "trustee_user_id": "svc", "project_id": "p-1"},
		map[string]any{"id": "t-other-project", "trustor_user_id": "u-1", "trustee_user_id": "svc", "project_id": "p-9"},
		map[string]any{"id": "t-expired", "trustor_user_id": "u-1", "trustee_user_id": "svc", "project_id": "p-1", "expires_at": past},
	}})

	got, err := findTrusts(context.Background(), keystone(f), "svc", "u-1", "p-1")
	if err != nil || len(got) != 1 || got[0].ID != "t-ok" {
		t.Fatalf("findTrusts = %+v, %v; want only t-ok", got, err)
	}

	all, err := findTrusts(context.Background(), keystone(f), "svc", "u-1", "")
	if err != nil || len(all) != 2 {
		t.Fatalf("findTrusts on any project = %+v, %v; want t-ok and t-other-project", all, err)
	}
}

func TestConfigRoles(t *testing.T) {
	t.Parallel()

	cfg := NewConfig(map[string]string{RoleLoadBalancerMember: "lb_member"})

	if got := cfg.KeystoneRole(RoleLoadBalancerMember); got != "lb_member" {
		t.Fatalf("mapped role = %q", got)
	}

	if got := cfg.KeystoneRole(RoleMember); got != "member" {
		t.Fatalf("unmapped role = %q", got)
	}

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/roles", 200, map[string]any{"roles": []any{
		map[string]any{"id": "r-m", "name": "member"},
		map[string]any{"id": "r-lb", "name": "lb_member"},
		map[string]any{"id": "r-dom", "name": "manager", "domain_id": "d"}, // domain-specific: not usable
	}})

	ids, err := cfg.roleIDsFor(context.Background(), keystone(f), []string{RoleMember, RoleLoadBalancerMember})
	if err != nil || ids[RoleMember] != "r-m" || ids[RoleLoadBalancerMember] != "r-lb" {
		t.Fatalf("roleIDsFor = %v, %v", ids, err)
	}

	// Cached: no second list.
	if _, err := cfg.roleIDsFor(context.Background(), keystone(f), []string{RoleMember}); err != nil || f.Count("GET /v3/roles") != 1 {
		t.Fatalf("second resolution listed roles again (%d) or failed: %v", f.Count("GET /v3/roles"), err)
	}

	if name, ok := cfg.roleOf("lb_member"); !ok || name != RoleLoadBalancerMember {
		t.Fatalf("roleOf(lb_member) = %q, %v", name, ok)
	}

	_, err = cfg.roleIDsFor(context.Background(), keystone(f), []string{RoleManager})
	if err == nil || !strings.Contains(err.Error(), `"manager"`) || !strings.Contains(err.Error(), "roles argument") {
		t.Fatalf("err = %v, want a missing-role error that names it and the provider argument", err)
	}
}

func TestRandomPassword(t *testing.T) {
	t.Parallel()

	a, err := randomPassword()
	if err != nil {
		t.Fatal(err)
	}

	b, _ := randomPassword()
	if a == b || len(a) != 43 {
		t.Fatalf("passwords %q and %q: want distinct 43-character strings", a, b)
	}
}

// The recorded user is known by its role assignments on the project (one listing naming it):
// no read of the user. A user without any role there is read by ID, its roles listed again.
func TestObserveUserByItsAssignments(t *testing.T) {
	t.Parallel()

	assignment := func(role string) map[string]any {
		return map[string]any{
			"role":  map[string]any{"id": "r-" + role, "name": role},
			"scope": map[string]any{"project": map[string]any{"id": "p-1"}},
			"user":  map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain": map[string]any{"id": fakeDomainID}},
		}
	}
	user := map[string]any{"user": map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}}

	for _, tc := range []struct {
		name        string
		assignments []any
		wantRoles   []string
		wantUserGET int
	}{
		{"assigned", []any{assignment("member"), assignment("load-balancer_member")}, []string{RoleLoadBalancerMember, RoleMember}, 0},
		{"no role left", []any{}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			f.Reply("GET", "/v3/role_assignments", 200, map[string]any{"role_assignments": tc.assignments, "links": map[string]any{}})
			f.Reply("GET", "/v3/users/u-1", 200, user)

			got, roles, err := NewService(nil, NewConfig(nil)).observeUser(context.Background(), keystone(f), fakeDomainID,
				"u-1", "unikorn-identity-foo", &projects.Project{ID: "p-1"})
			if err != nil {
				t.Fatal(err)
			}

			if got == nil || got.ID != "u-1" || !slices.Equal(roles, tc.wantRoles) {
				t.Fatalf("observed %+v with roles %v, want u-1 with %v", got, roles, tc.wantRoles)
			}

			if n := f.Count("GET /v3/users/u-1"); n != tc.wantUserGET {
				t.Fatalf("%d reads of the user, want %d (calls %v)", n, tc.wantUserGET, f.Calls())
			}
		})
	}
}
