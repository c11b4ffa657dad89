package identity

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// identityProjectInFake serves project p-1 (unikorn-identity-foo) of the managed domain and
// the empty lists of a project with no tenant objects.
func identityProjectInFake(f *fakeAPI) {
	f.reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": map[string]any{
		"id": "p-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true,
	}})

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
	}

	for path, body := range empty {
		f.reply("GET", path, 200, body)
	}

	for _, role := range []string{"r-member", "r-lb", "r-manager"} {
		f.reply("PUT", "/v3/projects/p-1/users/"+fakeServiceUser+"/roles/"+role, 204, nil)
	}
}

func TestDeleteRefusesWithLeftoversAndTouchesNothing(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	c := f.cloudClient(t)
	identityProjectInFake(f)

	f.reply("GET", "/network/v2.0/networks", 200, map[string]any{"networks": []any{
		map[string]any{"id": "n-1", "name": "network-web", "project_id": "p-1"},
	}})

	err := NewService(c, nil).Delete(context.Background(), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles}, false)

	var le *LeftoversError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a LeftoversError", err)
	}

	if len(le.Leftovers) != 1 || le.Leftovers[0].ID != "n-1" || le.Leftovers[0].Region != "RegionOne" ||
		!strings.Contains(err.Error(), `network "network-web" (n-1)`) {
		t.Fatalf("leftovers %+v / %q, want network n-1 in RegionOne", le.Leftovers, err)
	}

	for _, call := range f.calls() {
		if strings.HasPrefix(call, "DELETE ") || strings.HasPrefix(call, "GET /v3/users") {
			t.Fatalf("refusing, Delete still ran %s (calls %v)", call, f.calls())
		}
	}
}

func TestDeleteOrderAndNotFoundIsSuccess(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	c := f.cloudClient(t)
	identityProjectInFake(f)

	f.reply("GET", "/v3/users/u-1", 200, map[string]any{"user": map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}})
	f.reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{
		map[string]any{"id": "t-1", "trustor_user_id": "u-1", "trustee_user_id": fakeServiceUser, "project_id": "p-1", "impersonation": true},
	}})
	f.reply("GET", "/v3/users/u-1/application_credentials", 200, map[string]any{"application_credentials": []any{
		map[string]any{"id": "ac-1", "name": "unikorn-identity-foo", "project_id": "p-1"},
	}})
	f.reply("GET", "/compute/v2.1/os-server-groups", 200, map[string]any{"server_groups": []any{
		map[string]any{"id": "sg-1", "name": "unikorn-identity-foo"},
	}})
	f.reply("GET", "/network/v2.0/security-groups", 200, map[string]any{"security_groups": []any{
		map[string]any{"id": "sec-default", "name": "default", "project_id": "p-1"},
	}})
	// Every DELETE is unhandled, so it answers 404: already gone is success.

	if err := NewService(c, nil).Delete(context.Background(), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles}, false); err != nil {
		t.Fatal(err)
	}

	var deletes []string

	for _, call := range f.calls() {
		if strings.HasPrefix(call, "DELETE ") {
			deletes = append(deletes, call)
		}
	}

	order := []string{
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

	for _, want := range order {
		if !slices.Contains(deletes, want) {
			t.Fatalf("%s missing from %v", want, deletes)
		}
	}

	// Dependency order where it matters.
	for i, pair := range [][2]string{
		{"DELETE /compute/v2.1/os-keypairs/unikorn-openstack-provider", "DELETE /v3/OS-TRUST/trusts/t-1"},
		{"DELETE /v3/OS-TRUST/trusts/t-1", "DELETE /v3/users/u-1"},
		{"DELETE /v3/users/u-1/application_credentials/ac-1", "DELETE /v3/users/u-1"},
		{"DELETE /network/v2.0/security-groups/sec-default", "DELETE /v3/projects/p-1"},
		{"DELETE /v3/users/u-1", "DELETE /v3/projects/p-1"},
	} {
		if slices.Index(deletes, pair[0]) > slices.Index(deletes, pair[1]) {
			t.Fatalf("rule %d: %s must come before %s: %v", i, pair[0], pair[1], deletes)
		}
	}

	if deletes[len(deletes)-1] != "DELETE /v3/projects/p-1" {
		t.Fatalf("the project must go last: %v", deletes)
	}
}

func TestDeleteWithoutUserStillDeletesTheProject(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	c := f.cloudClient(t)
	identityProjectInFake(f)

	// No user (the first apply died before making it): GET /v3/users/u-1 is a 404 and the
	// list by name is empty.
	if err := NewService(c, nil).Delete(context.Background(), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles}, false); err != nil {
		t.Fatal(err)
	}

	if f.count("DELETE /v3/projects/p-1") != 1 {
		t.Fatalf("the project was not deleted: %v", f.calls())
	}
}

// TestEnsureAdoptsAfterACrash: the project and user exist (an earlier apply died after making
// them; the user's password is lost). Ensure adopts both, resets the password to act as the
// user, issues the credential and the trust, and makes no twin.
func TestEnsureAdoptsAfterACrash(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	c := f.cloudClient(t)

	f.reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{
		map[string]any{"id": "p-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true, "tags": []string{}},
	}})
	f.reply("GET", "/v3/users", 200, map[string]any{"users": []any{
		map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true},
	}})

	for _, user := range []string{fakeServiceUser, "u-1"} {
		for _, role := range []string{"r-member", "r-lb", "r-manager"} {
			f.reply("PUT", "/v3/projects/p-1/users/"+user+"/roles/"+role, 204, nil)
		}
	}

	f.reply("PUT", "/volume/v3/os-quota-sets/p-1", 200, map[string]any{"quota_set": map[string]any{}})
	f.reply("PUT", "/compute/v2.1/os-quota-sets/p-1", 200, map[string]any{"quota_set": map[string]any{}})
	f.reply("PUT", "/lb/v2.0/lbaas/quotas/p-1", 202, map[string]any{"quota": map[string]any{}})
	f.reply("PUT", "/network/v2.0/quotas/p-1", 200, map[string]any{"quota": map[string]any{}})
	f.reply("GET", "/v3/users/u-1/application_credentials", 200, map[string]any{"application_credentials": []any{}})
	f.reply("PATCH", "/v3/users/u-1", 200, map[string]any{"user": map[string]any{"id": "u-1"}})
	f.reply("POST", "/v3/users/u-1/application_credentials", 201, map[string]any{"application_credential": map[string]any{
		"id": "ac-1", "name": "unikorn-identity-foo", "secret": "the-secret", "project_id": "p-1",
	}})
	f.reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{}})
	f.reply("POST", "/v3/OS-TRUST/trusts", 201, map[string]any{"trust": map[string]any{"id": "t-1", "project_id": "p-1"}})

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

	if f.count("POST /v3/projects") != 0 || f.count("POST /v3/users") != 0 {
		t.Fatalf("made a twin: %v", f.calls())
	}

	password, _ := member(t, f.bodyOf("PATCH /v3/users/u-1"), "user")["password"].(string)
	if len(password) < 40 {
		t.Fatalf("password reset to %q", password)
	}

	// The user authenticated with that password, scoped to the project.
	var userAuth bool

	for _, r := range f.requests {
		if r.Method == "POST" && r.Path == "/v3/auth/tokens" && strings.Contains(string(r.Body), password) &&
			strings.Contains(string(r.Body), `"u-1"`) && strings.Contains(string(r.Body), `"p-1"`) {
			userAuth = true
		}
	}

	if !userAuth {
		t.Fatal("no project-scoped authentication as the user with the new password")
	}

	ac := member(t, f.bodyOf("POST /v3/users/u-1/application_credentials"), "application_credential")
	if acRoles, _ := ac["roles"].([]any); ac["unrestricted"] != false || len(acRoles) != 2 {
		t.Fatalf("application credential created with %v", ac)
	}

	trust := member(t, f.bodyOf("POST /v3/OS-TRUST/trusts"), "trust")
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
		if f.count(call) != 1 {
			t.Fatalf("%s: %d calls", call, f.count(call))
		}
	}
}
