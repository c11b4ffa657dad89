package identity

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// The tests of issue 12's behaviours for the identity: re-finds are announced and Delete acts
// on recorded IDs only (3), a tainted identity can be destroyed (4), adoption is announced and
// never a takeover (7), the trust is the identity user's own (8), quotas record what the cloud
// holds (11), and lost creates are recovered (12, 6).

// adoptable is a fake cloud holding what adoptableIdentity says.
func adoptable(t *testing.T) (*cloudtest.API, *cloud.Client) {
	t.Helper()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	adoptableIdentity(f)

	return f, c
}

// deletable is a fake cloud holding project p-1 (identityProjectInFake) and its user u-1.
func deletable(t *testing.T) (*cloudtest.API, *cloud.Client) {
	t.Helper()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	identityProjectInFake(f)
	f.Reply("GET", "/v3/users/u-1", 200, map[string]any{"user": map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}})

	return f, c
}

// onlyTokens fails the test when api saw a mutation other than authentications.
func onlyTokens(t *testing.T, api *cloudtest.API, what string) {
	t.Helper()

	if got := api.Writes(); slices.ContainsFunc(got, func(m string) bool { return !strings.HasSuffix(m, "/auth/tokens") }) {
		t.Fatalf("%s: %v", what, got)
	}
}

// quotasInFake answers the quota reads of project p-1 with body for every service.
func quotasInFake(f *cloudtest.API, compute, network map[string]any) {
	f.Reply("GET", "/volume/v3/os-quota-sets/p-1", 200, map[string]any{"quota_set": map[string]any{}})
	f.Reply("GET", "/compute/v2.1/os-quota-sets/p-1", 200, map[string]any{"quota_set": compute})
	f.Reply("GET", "/lb/v2.0/lbaas/quotas/p-1", 200, map[string]any{"quota": map[string]any{}})
	f.Reply("GET", "/network/v2.0/quotas/p-1", 200, map[string]any{"quota": network})
}

// credentialStore is a stateful Keystone of user u-1's application credentials: listed by
// name, made by POST (with failPOSTs first POSTs made but answered 502, as a lost answer),
// deleted by DELETE.
type credentialStore struct {
	mu        sync.Mutex
	all       []map[string]any
	next      int
	failPOSTs int
}

func (s *credentialStore) serve(f *cloudtest.API) {
	f.On("GET", "/v3/users/u-1/application_credentials", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()

		out := []any{}

		for _, ac := range s.all {
			if name := r.URL.Query().Get("name"); name == "" || ac["name"] == name {
				out = append(out, ac)
			}
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"application_credentials": out})
	})
	f.On("POST", "/v3/users/u-1/application_credentials", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()

		var body struct {
			ApplicationCredential struct {
				Name string `json:"name"`
			} `json:"application_credential"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		s.next++
		id := "ac-new-" + strconv.Itoa(s.next)
		ac := map[string]any{"id": id, "name": body.ApplicationCredential.Name, "project_id": "p-1", "secret": "secret-of-" + id}
		s.all = append(s.all, ac)

		if s.failPOSTs > 0 {
			s.failPOSTs--
			cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"error": "bad gateway"})

			return
		}

		cloudtest.WriteJSON(w, 201, map[string]any{"application_credential": ac})
	})
	f.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/v3/users/u-1/application_credentials/")
		if !ok || r.Method != http.MethodDelete {
			cloudtest.WriteJSON(w, 404, map[string]any{"error": "not found"})
			return
		}

		s.mu.Lock()
		defer s.mu.Unlock()

		s.all = slices.DeleteFunc(s.all, func(ac map[string]any) bool { return ac["id"] == id })
		w.WriteHeader(http.StatusNoContent)
	}))
}

func (s *credentialStore) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	var out []string
	for _, ac := range s.all {
		id, _ := ac["id"].(string)
		out = append(out, id)
	}

	return out
}

// Behaviour 3: Delete acts on the recorded ID only. The recorded project is gone and a newer
// identity carries the name: destroy -refresh=false must not delete the newer one.
func TestDeleteNeverFindsByNameWhatWasRecordedByID(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	// GET /v3/projects/p-old is unhandled: 404.
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{project("p-new", "unikorn-identity-foo")}})
	f.Reply("GET", "/v3/projects/p-new", 200, map[string]any{"project": project("p-new", "unikorn-identity-foo")})

	notices, err := NewService(c, nil).Delete(context.Background(), Ref{ProjectID: "p-old", Name: "foo", UserID: "u-old", Roles: DefaultRoles}, true)
	if err != nil || len(notices) != 0 {
		t.Fatalf("Delete = %v, %v; want done (the recorded project is gone)", notices, err)
	}

	onlyTokens(t, f, "Delete acted on something other than the recorded project")

	if f.Count("GET /v3/projects") != 0 {
		t.Fatalf("Delete looked the identity up by name although its ID was recorded: %v", f.Calls())
	}
}

// Behaviour 3: a re-find by name in Read is announced with both IDs and the new one's age (the
// project found is what an interrupted create of an identity left: ownership_test.go has the
// others).
func TestObserveAnnouncesAReFind(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	again := marked(project("p-1", "unikorn-identity-foo"), interrupted)
	again[createdAtKey] = "2031-02-03T04:05:06Z"
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{again}})
	f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": again})
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{}})
	quotasInFake(f, map[string]any{}, map[string]any{})

	out, err := NewService(c, nil).Observe(context.Background(), Ref{ProjectID: "p-gone", Name: "foo"}, nil)
	if err != nil || out == nil || out.ProjectID != "p-1" {
		t.Fatalf("Observe = %+v, %v; want p-1 re-found by name", out, err)
	}

	if len(out.Notices) != 1 {
		t.Fatalf("notices %+v, want one re-find warning", out.Notices)
	}

	for _, want := range []string{"p-gone", "p-1", "created 2031-02-03T04:05:06Z"} {
		if !strings.Contains(out.Notices[0].Detail, want) {
			t.Fatalf("warning %q does not name %s", out.Notices[0].Detail, want)
		}
	}
}

// Behaviour 4: an identity whose create died before its trust can be destroyed even when the
// admin-only keypair delete is refused: a notice, not a stuck destroy.
func TestDeleteTaintedIdentityWhoseKeypairCannotBeDeleted(t *testing.T) {
	t.Parallel()

	f, c := deletable(t)
	f.Reply("DELETE", "/compute/v2.1/os-keypairs/unikorn-openstack-provider", 403, map[string]any{"forbidden": map[string]any{"message": "policy"}})

	notices, err := NewService(c, nil).Delete(context.Background(),
		Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles, CheckNova: true}, false)
	if err != nil {
		t.Fatalf("Delete: %v; want the identity deleted despite the keypair", err)
	}

	if f.Count("DELETE /v3/projects/p-1") != 1 || f.Count("DELETE /v3/users/u-1") != 1 {
		t.Fatalf("project or user not deleted: %v", f.Calls())
	}

	if len(notices) != 1 || !strings.Contains(notices[0].Detail, "u-1") {
		t.Fatalf("notices %+v, want one naming the keypair of u-1 left behind", notices)
	}
}

// Behaviour 8: the keypair is deleted through the identity's own trust only. Here the only
// trust on the project is another user's: acting through it would delete that user's keypair.
func TestDeleteNeverActsThroughAnotherUsersTrust(t *testing.T) {
	t.Parallel()

	f, c := deletable(t)
	f.Reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{
		map[string]any{"id": "t-other", "trustor_user_id": "u-other", "trustee_user_id": fakeServiceUser, "project_id": "p-1", "impersonation": true},
	}})

	if _, err := NewService(c, nil).Delete(context.Background(),
		Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1", Roles: DefaultRoles, CheckNova: true}, false); err != nil {
		t.Fatal(err)
	}

	for _, r := range f.Requests() {
		if r.Method == http.MethodDelete && strings.Contains(r.Path, "/os-keypairs/") && r.Query.Get("user_id") != "u-1" {
			t.Fatalf("deleted a keypair as another user (%s?%s): the trust of u-other was used", r, r.Query.Encode())
		}

		if r.Method == http.MethodPost && r.Path == "/v3/auth/tokens" && strings.Contains(string(r.Body), "t-other") {
			t.Fatal("authenticated through the trust of another user")
		}
	}

	if f.Count("DELETE /v3/OS-TRUST/trusts/t-other") != 0 {
		t.Fatal("deleted another user's trust")
	}
}

// Behaviour 7 (issue 26, item 1): an identity found by name on create is refused before
// anything changes unless an interrupted create of an identity left it: see ownership_test.go.

// Behaviour 7: an incomplete identity (an interrupted create) is adopted, and the adoption of
// the project and the user is announced with their creation time.
func TestEnsureAnnouncesAdoption(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)

	p := marked(project("p-1", "unikorn-identity-foo"), interrupted)
	p[createdAtKey] = "2031-01-01T00:00:00Z"
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{p}})

	out, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})
	if err != nil {
		t.Fatal(err)
	}

	var details []string
	for _, n := range out.Notices {
		details = append(details, n.Summary+": "+n.Detail)
	}

	all := strings.Join(details, "\n")
	for _, want := range []string{"Keystone project \"unikorn-identity-foo\" (p-1, created 2031-01-01T00:00:00Z)", "Keystone user \"unikorn-identity-foo\" (u-1"} {
		if !strings.Contains(all, want) {
			t.Fatalf("notices lack %q:\n%s", want, all)
		}
	}
}

// Behaviour 7: a credential whose secret is lost is replaced, the old one deleted only once the
// new one exists (a tenant may still use it).
func TestEnsureIssuesTheNewCredentialBeforeDeletingTheOld(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)

	creds := &credentialStore{all: []map[string]any{{"id": "ac-old", "name": "unikorn-identity-foo", "project_id": "p-1"}}}
	creds.serve(f)

	prior := Prior{Ref: Ref{ProjectID: "p-1", UserID: "u-1", ApplicationCredentialID: "ac-old", Roles: DefaultRoles}, Quotas: UnlimitedQuotas()}

	out, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, prior)
	if err != nil {
		t.Fatal(err)
	}

	calls := f.Calls()
	issued := slices.Index(calls, "POST /v3/users/u-1/application_credentials")
	deleted := slices.Index(calls, "DELETE /v3/users/u-1/application_credentials/ac-old")

	if issued < 0 || deleted < 0 || deleted < issued {
		t.Fatalf("the old credential must be deleted after the new one is issued: %v", calls)
	}

	if out.ApplicationCredentialID == "ac-old" || out.ApplicationCredentialSecret == "" || !slices.Equal(creds.ids(), []string{out.ApplicationCredentialID}) {
		t.Fatalf("Ensure = %+v, credentials left %v; want only the new one", out, creds.ids())
	}
}

// Behaviour 12: an application credential made by a POST whose answer was lost cannot be
// used (its secret was in the answer): it is deleted by its ID and another one is issued.
func TestEnsureReplacesACredentialWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)

	creds := &credentialStore{failPOSTs: 1}
	creds.serve(f)

	out, err := NewService(c, nil).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})
	if err != nil {
		t.Fatal(err)
	}

	if f.Count("DELETE /v3/users/u-1/application_credentials/ac-new-1") != 1 {
		t.Fatalf("the credential of the lost answer was not deleted: %v", f.Calls())
	}

	if out.ApplicationCredentialID != "ac-new-2" || out.ApplicationCredentialSecret != "secret-of-ac-new-2" ||
		!slices.Equal(creds.ids(), []string{"ac-new-2"}) {
		t.Fatalf("Ensure = %+v, credentials %v; want only ac-new-2 with its secret", out, creds.ids())
	}
}

// Behaviour 12: a project whose POST was answered 502 after Keystone made it is found by name
// and used: no second POST, no orphan.
func TestEnsureRecoversALostProjectCreate(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)

	var (
		mu   sync.Mutex
		made map[string]any // the project Keystone made, with the extra attributes posted
	)

	f.On("GET", "/v3/projects", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()

		all := []any{}
		if made != nil {
			all = append(all, made)
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"projects": all})
	})
	f.On("POST", "/v3/projects", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Project map[string]any `json:"project"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		mu.Lock()
		made = body.Project
		made["id"] = "p-1"
		mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusBadGateway, map[string]any{"error": "bad gateway"})
	})
	// The user: made by its POST (users are listed as adoptableIdentity says only after it).
	f.Sequence("GET", "/v3/users", map[string]any{"users": []any{}}, map[string]any{"users": []any{}})
	f.Reply("POST", "/v3/users", 201, map[string]any{"user": map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID}})

	out, err := NewService(c, nil).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})
	if err != nil {
		t.Fatal(err)
	}

	if out.ProjectID != "p-1" || f.Count("POST /v3/projects") != 1 {
		t.Fatalf("Ensure = %+v after %d project POSTs; want p-1 recovered from the one POST", out, f.Count("POST /v3/projects"))
	}

	body := f.Last(t, "POST /v3/projects").JSON(t, "project")
	if _, ok := body[createdAtKey].(string); !ok {
		t.Fatalf("the project was made without its creation time: %v", body)
	}
}

// Behaviour 6: a trust made while another identical one appeared (a concurrent apply) is
// deleted again, and the error names both.
func TestEnsureRemovesATwinTrust(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)
	f.Reply("GET", "/v3/users/u-1/application_credentials", 200, map[string]any{"application_credentials": []any{}})

	trust := func(id string) map[string]any {
		return map[string]any{"id": id, "trustor_user_id": "u-1", "trustee_user_id": fakeServiceUser, "project_id": "p-1", "impersonation": true}
	}

	f.Sequence("GET", "/v3/OS-TRUST/trusts", map[string]any{"trusts": []any{}}, map[string]any{"trusts": []any{trust("t-other"), trust("t-1")}})
	f.Reply("DELETE", "/v3/OS-TRUST/trusts/t-1", 204, nil)

	_, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})

	var twin *cloud.TwinError
	if !errors.As(err, &twin) || twin.Kept != "t-other" || twin.Removed != "t-1" {
		t.Fatalf("Ensure: %v; want a TwinError keeping t-other and removing t-1", err)
	}

	if f.Count("DELETE /v3/OS-TRUST/trusts/t-1") != 1 || f.Count("DELETE /v3/OS-TRUST/trusts/t-other") != 0 {
		t.Fatalf("want only the trust just made deleted: %v", f.Calls())
	}
}

// Behaviour 11: quotas that failed to be set in part are recorded as the cloud holds them,
// never as planned.
func TestEnsureRecordsTheQuotasHeldAfterAFailure(t *testing.T) {
	t.Parallel()

	f, c := adoptable(t)
	f.Reply("PUT", "/network/v2.0/quotas/p-1", 500, map[string]any{"NeutronError": map[string]any{"message": "boom"}})
	quotasInFake(f, map[string]any{"instances": 5}, map[string]any{"port": 50})

	want := UnlimitedQuotas()
	want[QuotaCompute]["instances"] = 5
	want[QuotaNetwork]["port"] = 7

	out, err := NewService(c, nil).Ensure(context.Background(), Spec{Name: "foo", Roles: DefaultRoles, Quotas: want}, Prior{})
	if err == nil || !strings.Contains(err.Error(), "Neutron") {
		t.Fatalf("Ensure: %v; want the Neutron quota failure", err)
	}

	if out.ProjectID != "p-1" || out.Quotas == nil || out.Quotas[QuotaNetwork]["port"] != 50 || out.Quotas[QuotaCompute]["instances"] != 5 {
		t.Fatalf("recorded quotas %v; want what the cloud holds (port 50, instances 5), not the plan's port 7", out.Quotas)
	}
}
