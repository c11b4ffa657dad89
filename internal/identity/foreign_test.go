package identity

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The tests of issue 27 for the core of an identity this provider did not make (foreign.go): an
// identity as Unikorn's region service makes it is adopted read-only once imported. Its user's
// password is never reset, no trust, credential, keypair or server group is written, and what
// would break it is refused before any write.

// unikornKey is the public key of the keypair Unikorn made for the identity's user.
const unikornKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIUnikornMadeThisKeyForItsIdentityUser"

// unikornCloud is a fake cloud holding identity foo as Unikorn's region service makes it
// (provider.go:CreateIdentity): project p-1 and user u-1 without any mark of this provider, the
// project tagged organization=org-u and project=proj-u, the user holding member and
// load-balancer_member, its application credential ac-u (unikorn-identity-foo, "IaaS lifecycle
// management"), the server group sg-u (soft-anti-affinity) and the user's keypair
// unikorn-openstack-provider; no trust. The service user already holds its roles on the project,
// so that nothing but what a test asks for is written. An authentication as u-1 fails the test:
// nothing may act as the identity's user (its password is Unikorn's).
func unikornCloud(t *testing.T) (*cloudtest.API, *cloud.Client, *unikornHeld) {
	t.Helper()

	f := cloudtest.New(t)
	c := fakeCloudWith(t, f, fakeOptions{userAuth: func(w http.ResponseWriter, userID, _ string) {
		t.Errorf("authenticated as the identity's user %s", userID)
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401}})
	}})

	h := &unikornHeld{credentials: []map[string]any{{
		"id": "ac-u", "name": "unikorn-identity-foo", "description": "IaaS lifecycle management", "project_id": "p-1",
		"roles": []any{map[string]any{"id": "r-member", "name": RoleMember}, map[string]any{"id": "r-lb", "name": RoleLoadBalancerMember}},
	}}}
	h.serve(f)

	p := project("p-1", "unikorn-identity-foo", "organization=org-u", "project=proj-u")
	f.Reply("GET", "/v3/projects/p-1", 200, map[string]any{"project": p})
	f.Reply("GET", "/v3/projects", 200, map[string]any{"projects": []any{p}})
	f.Reply("PATCH", "/v3/projects/p-1", 200, map[string]any{"project": p})

	user := map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true}
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{user}})
	f.Reply("GET", "/v3/users/u-1", 200, map[string]any{"user": user})
	f.Reply("GET", "/v3/OS-TRUST/trusts", 200, map[string]any{"trusts": []any{}})

	for _, role := range []string{"r-member", "r-lb", "r-manager"} {
		for _, u := range []string{fakeServiceUser, "u-1"} {
			f.Reply("PUT", "/v3/projects/p-1/users/"+u+"/roles/"+role, 204, nil)
			f.Reply("DELETE", "/v3/projects/p-1/users/"+u+"/roles/"+role, 204, nil)
		}
	}

	quotasInFake(f, map[string]any{"instances": -1, "cores": -1, "ram": -1}, map[string]any{})

	for _, path := range []string{"/volume/v3/os-quota-sets/p-1", "/compute/v2.1/os-quota-sets/p-1", "/network/v2.0/quotas/p-1"} {
		f.Reply("PUT", path, 200, map[string]any{"quota_set": map[string]any{}, "quota": map[string]any{}})
	}

	f.Reply("PUT", "/lb/v2.0/lbaas/quotas/p-1", 202, map[string]any{"quota": map[string]any{}})
	f.Reply("GET", "/compute/v2.1/os-server-groups", 200, map[string]any{"server_groups": []any{map[string]any{
		"id": "sg-u", "name": "unikorn-identity-foo", "policy": DefaultServerGroupPolicy, "members": []string{},
	}}})
	// Nova shows another user's keypair to admin only, with user_id: the service user has none.
	f.On("GET", "/compute/v2.1/os-keypairs/"+naming.KeypairName, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("user_id") != "u-1" {
			cloudtest.WriteJSON(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404}})
			return
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"keypair": map[string]any{
			"name": naming.KeypairName, "public_key": unikornKey + "\n", "user_id": "u-1", "type": "ssh",
		}})
	})

	return f, c, h
}

// unikornHeld is the stateful part of unikornCloud: the role assignments and the application
// credentials of u-1.
type unikornHeld struct {
	mu          sync.Mutex
	credentials []map[string]any
}

func (h *unikornHeld) serve(f *cloudtest.API) {
	assignment := func(user, roleID, role string) map[string]any {
		return map[string]any{
			"role":  map[string]any{"id": roleID, "name": role},
			"scope": map[string]any{"project": map[string]any{"id": "p-1"}},
			"user":  map[string]any{"id": user, "name": user, "domain": map[string]any{"id": fakeDomainID}},
		}
	}

	f.On("GET", "/v3/role_assignments", func(w http.ResponseWriter, r *http.Request) {
		all := []any{}
		if r.URL.Query().Get("scope.project.id") != "p-1" {
			cloudtest.WriteJSON(w, 200, map[string]any{"role_assignments": all})
			return
		}

		switch r.URL.Query().Get("user.id") {
		case "u-1":
			all = append(all, assignment("u-1", "r-member", RoleMember), assignment("u-1", "r-lb", RoleLoadBalancerMember))
		case fakeServiceUser:
			all = append(all, assignment(fakeServiceUser, "r-manager", RoleManager), assignment(fakeServiceUser, "r-member", RoleMember),
				assignment(fakeServiceUser, "r-lb", RoleLoadBalancerMember))
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"role_assignments": all})
	})
	f.On("GET", "/v3/users/u-1/application_credentials", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()

		out := []any{}

		for _, ac := range h.credentials {
			if name := r.URL.Query().Get("name"); name == "" || ac["name"] == name {
				out = append(out, ac)
			}
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"application_credentials": out})
	})
	f.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/v3/users/u-1/application_credentials/")

		h.mu.Lock()
		defer h.mu.Unlock()

		i := slices.IndexFunc(h.credentials, func(ac map[string]any) bool { return ok && ac["id"] == id })

		switch {
		case i < 0:
			cloudtest.WriteJSON(w, 404, map[string]any{"error": map[string]any{"code": 404}})
		case r.Method == http.MethodGet:
			cloudtest.WriteJSON(w, 200, map[string]any{"application_credential": h.credentials[i]})
		case r.Method == http.MethodDelete:
			h.credentials = slices.Delete(h.credentials, i, i+1)
			w.WriteHeader(http.StatusNoContent)
		default:
			cloudtest.WriteJSON(w, 405, map[string]any{"error": map[string]any{"code": 405}})
		}
	}))
}

// instant is the test's context, in which every wait returns at once.
func instant(t *testing.T) context.Context {
	t.Helper()

	return cloud.WithSleeper(t.Context(), cloudtest.Instant)
}

// imported is the state an import of unikornCloud's identity records (Observe, then the state):
// what Ensure starts from.
var imported = Prior{Ref: Ref{
	ProjectID: "p-1", Name: "foo", UserID: "u-1", ApplicationCredentialID: "ac-u", Roles: DefaultRoles, CheckNova: true,
}, Quotas: UnlimitedQuotas()}

// mirror is a spec that mirrors unikornCloud's identity.
func mirror() Spec {
	return Spec{
		Name: "foo", OrganizationID: "org-u", ProjectID: "proj-u", Roles: DefaultRoles, Quotas: UnlimitedQuotas(),
		ServerGroupPolicy: DefaultServerGroupPolicy, SSHPublicKey: unikornKey,
	}
}

// untouchedByEnsure fails the test when api saw a write of what belongs to the identity's user:
// its password, a trust, an application credential, a keypair or a server group; or a mark.
func untouchedByEnsure(t *testing.T, api *cloudtest.API) {
	t.Helper()

	for _, r := range api.Requests() {
		w := r.String()

		switch {
		case r.Method == http.MethodGet:
		case r.Method == http.MethodPatch && r.Path == "/v3/users/u-1":
			t.Errorf("wrote the identity's user (a password reset): %s %s", w, r.Body)
		case strings.HasPrefix(r.Path, "/v3/OS-TRUST/"):
			t.Errorf("wrote a trust: %s", w)
		case strings.Contains(r.Path, "/application_credentials"):
			t.Errorf("wrote an application credential: %s", w)
		case strings.Contains(r.Path, "/os-keypairs"), strings.Contains(r.Path, "/os-server-groups"):
			t.Errorf("wrote Nova's keypair or server group: %s", w)
		case strings.Contains(string(r.Body), naming.MarkKindKey) || strings.Contains(string(r.Body), naming.MarkCompletedKey):
			t.Errorf("marked the identity: %s %s", w, r.Body)
		}
	}
}

// An apply of an imported identity made elsewhere, with a configuration that mirrors it and
// changes a quota, sets the quota and nothing of its user's: no password reset, no trust, no
// credential, keypair or server group written (issue 27, item 1). What it holds is recorded:
// Unikorn's credential by its ID, without a secret; its server group and keypair.
func TestEnsureAdoptsAnIdentityMadeElsewhereReadOnly(t *testing.T) {
	t.Parallel()

	f, c, _ := unikornCloud(t)
	spec := mirror()
	spec.Quotas = UnlimitedQuotas()
	spec.Quotas[QuotaCompute]["instances"] = 10

	out, err := NewService(c, nil).Ensure(instant(t), spec, imported)
	if err != nil {
		t.Fatal(err)
	}

	untouchedByEnsure(t, f)

	if f.Count("PUT /compute/v2.1/os-quota-sets/p-1") != 1 {
		t.Errorf("the configured quota was not set: %v", mutations(f))
	}

	if out.MadeByProvider || out.ApplicationCredentialID != "ac-u" || out.ApplicationCredentialSecret != "" || out.TrustID != "" ||
		out.UserID != "u-1" || out.ServerGroups["RegionOne"] != "sg-u" || out.ServerGroupPolicy != DefaultServerGroupPolicy ||
		!sameKey(out.SSHPublicKey, unikornKey) || !slices.Equal(out.Keypairs, []string{"RegionOne"}) {
		t.Fatalf("Ensure = %+v; want what Unikorn made, as it is", out)
	}

	for _, w := range mutations(f) {
		if strings.HasPrefix(w, "PUT /v3/projects/p-1/users/u-1/") || strings.HasPrefix(w, "DELETE /v3/projects/p-1/users/u-1/") {
			t.Errorf("changed the roles of the identity's user, which it already held: %s", w)
		}
	}
}

// What the configuration asks for that would break the identity's maker is refused, on the
// attribute that asks for it, before anything is written (issue 27, item 1).
func TestEnsureRefusesWhatWouldBreakAnIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	expires := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)

	for _, tc := range []struct {
		name      string
		change    func(s *Spec)
		noCred    bool
		attribute string
		say       string
	}{
		{name: "another key", change: func(s *Spec) { s.SSHPublicKey = "ssh-ed25519 AAAAOther" }, attribute: "ssh_public_key", say: "replacing the keypair"},
		{name: "no key", change: func(s *Spec) { s.SSHPublicKey = "" }, attribute: "ssh_public_key", say: "deleting the keypair"},
		{name: "another policy", change: func(s *Spec) { s.ServerGroupPolicy = "affinity" }, attribute: "server_group", say: "from soft-anti-affinity to affinity"},
		{name: "no server group", change: func(s *Spec) { s.ServerGroupPolicy = "" }, attribute: "server_group", say: "deleting its server group"},
		{name: "an expiry", change: func(s *Spec) { s.ExpiresAt = &expires }, attribute: "expires_at", say: "re-issuing its application credential ac-u"},
		{name: "a role dropped", change: func(s *Spec) { s.Roles = []string{RoleMember} }, attribute: "roles", say: "revoking load-balancer_member"},
		{name: "a credential it lacks", noCred: true, change: func(*Spec) {}, attribute: "application_credential", say: "issuing an application credential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f, c, h := unikornCloud(t)
			if tc.noCred {
				h.credentials = nil
			}

			spec := mirror()
			tc.change(&spec)

			_, err := NewService(c, nil).Ensure(instant(t), spec, imported)

			var refused *ForeignError
			if !errors.As(err, &refused) || refused.Attribute != tc.attribute || !strings.Contains(err.Error(), tc.say) ||
				!strings.Contains(err.Error(), "was not made by this provider") {
				t.Fatalf("Ensure: %v; want a refusal on %s saying %q", err, tc.attribute, tc.say)
			}

			if got := mutations(f); len(got) > 0 {
				t.Fatalf("refusing, Ensure still wrote: %v", got)
			}
		})
	}
}

// Only application_credential = false deletes the identity's credential, and then a dropped role
// may go too: the one write of what the user holds that the configuration may ask for.
func TestEnsureDropsTheCredentialOfAnIdentityMadeElsewhereOnlyWhenAsked(t *testing.T) {
	t.Parallel()

	f, c, h := unikornCloud(t)
	spec := mirror()
	spec.NoApplicationCredential = true
	spec.Roles = []string{RoleMember}

	out, err := NewService(c, nil).Ensure(instant(t), spec, imported)
	if err != nil {
		t.Fatal(err)
	}

	if f.Count("DELETE /v3/users/u-1/application_credentials/ac-u") != 1 || len(h.credentials) != 0 || out.ApplicationCredentialID != "" {
		t.Fatalf("the credential ac-u was not deleted: %v, %+v", mutations(f), out)
	}

	if f.Count("DELETE /v3/projects/p-1/users/u-1/roles/r-lb") != 1 {
		t.Fatalf("the dropped role was not revoked: %v", mutations(f))
	}

	for _, w := range mutations(f) {
		if w == "PATCH /v3/users/u-1" || strings.Contains(w, "OS-TRUST") || strings.HasPrefix(w, "POST ") || strings.Contains(w, "os-") &&
			!strings.Contains(w, "quota") {
			t.Errorf("wrote what the configuration did not ask for: %s", w)
		}
	}
}

// A refresh of an imported identity made elsewhere shows what it holds, so that drift is visible
// (issue 27, item 4): its roles, its credential (no secret), its server group, and its user's
// keypair read in the admin scope by the user's ID; and writes nothing.
func TestObserveShowsAnIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	f, c, _ := unikornCloud(t)

	out, err := NewService(c, nil).Observe(instant(t), Ref{ProjectID: "p-1", Name: "foo", CheckNova: true}, nil)
	if err != nil {
		t.Fatal(err)
	}

	if got := mutations(f); len(got) > 0 {
		t.Fatalf("a refresh wrote: %v", got)
	}

	if out.MadeByProvider || out.UserID != "u-1" || !slices.Equal(out.Roles, []string{RoleLoadBalancerMember, RoleMember}) ||
		out.ApplicationCredentialID != "ac-u" || out.ApplicationCredentialSecret != "" || out.TrustID != "" ||
		out.OrganizationID != "org-u" || out.UnikornProject != "proj-u" || !out.NovaChecked ||
		out.ServerGroups["RegionOne"] != "sg-u" || out.ServerGroupPolicy != DefaultServerGroupPolicy ||
		out.SSHPublicKey != unikornKey || !slices.Equal(out.Keypairs, []string{"RegionOne"}) {
		t.Fatalf("Observe = %+v; want Unikorn's identity as it is", out)
	}

	if q := f.Last(t, "GET /compute/v2.1/os-keypairs/"+naming.KeypairName).Query.Get("user_id"); q != "u-1" {
		t.Fatalf("the keypair was read with user_id %q, want the identity's user u-1", q)
	}
}

// A refresh of an identity made elsewhere whose server group and keypair are gone shows them
// gone (a made one keeps what is configured, to be repaired).
func TestObserveShowsWhatAnIdentityMadeElsewhereLacks(t *testing.T) {
	t.Parallel()

	f, c, _ := unikornCloud(t)
	f.Reply("GET", "/compute/v2.1/os-server-groups", 200, map[string]any{"server_groups": []any{}})
	f.Reply("GET", "/compute/v2.1/os-keypairs/"+naming.KeypairName, 404, map[string]any{"itemNotFound": map[string]any{"code": 404}})

	out, err := NewService(c, nil).Observe(instant(t), Ref{ProjectID: "p-1", Name: "foo", UserID: "u-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	if !out.NovaChecked || len(out.ServerGroups) != 0 || out.ServerGroupPolicy != "" || out.SSHPublicKey != "" {
		t.Fatalf("Observe = %+v; want no server group and no keypair", out)
	}
}

// An open of unikorn_identity_credential in an identity made elsewhere is refused before
// anything is written: it would reset the password Unikorn logs in with (issue 27, item 3).
func TestIssueCredentialRefusesAnIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	f, c, _ := unikornCloud(t)

	cred, err := NewService(c, nil).IssueCredential(instant(t), "p-1", time.Hour, time.Now())

	var refused *ForeignCredentialError
	if !errors.As(err, &refused) || cred != nil || !strings.Contains(err.Error(), "reset its user's password") ||
		!strings.Contains(err.Error(), "unikorn-identity-foo (project p-1)") {
		t.Fatalf("IssueCredential = %+v, %v; want a refusal naming the identity and the password", cred, err)
	}

	if got := mutations(f); len(got) > 0 {
		t.Fatalf("refusing, IssueCredential still wrote: %v", got)
	}
}

func TestForeignRefusalsNameTheWayOut(t *testing.T) {
	t.Parallel()

	held := Held{Roles: DefaultRoles, CredentialID: "ac-u", ServerGroupPolicy: DefaultServerGroupPolicy, SSHPublicKey: unikornKey}

	for _, tc := range []struct {
		err  *ForeignError
		want []string
	}{
		{keypairRefusal("id", unikornKey, ""), []string{"Set ssh_public_key to the key the identity holds", "removed block", "user_data", "private key"}},
		{keypairRefusal("id", "", unikornKey), []string{"Leave ssh_public_key unset"}},
		{serverGroupRefusal("id", "foo", DefaultServerGroupPolicy, ""), []string{`server_group = { policy = "soft-anti-affinity" }`, "removed block"}},
		{serverGroupRefusal("id", "foo", "", "affinity"), []string{"Leave server_group unset"}},
		{credentialRefusal("id", Held{}, true, nil), []string{"application_credential = false"}},
		{credentialRefusal("id", held, true, ptr(time.Now())), []string{"Remove expires_at"}},
		{rolesRefusal("id", held, []string{RoleMember}, true), []string{"Keep the roles", "application_credential = false"}},
	} {
		if tc.err == nil {
			t.Fatalf("no refusal, want one saying %q", tc.want)
		}

		for _, w := range tc.want {
			if !strings.Contains(tc.err.Error(), w) {
				t.Errorf("%q does not say %q", tc.err, w)
			}
		}
	}

	for _, ok := range []*ForeignError{
		keypairRefusal("id", unikornKey, unikornKey+" a comment"),
		keypairRefusal("id", "", ""),
		serverGroupRefusal("id", "foo", "", ""),
		credentialRefusal("id", Held{}, false, nil),
		credentialRefusal("id", held, true, nil),
		rolesRefusal("id", held, []string{RoleMember, RoleLoadBalancerMember, RoleManager}, true),
		rolesRefusal("id", held, []string{RoleMember}, false),
	} {
		if ok != nil {
			t.Errorf("refused %q", ok)
		}
	}
}
