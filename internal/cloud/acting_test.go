package cloud

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// keystoneRoles answers the role listing and the service user's role assignments on a project
// (holding the names given), and records the grants made.
type keystoneRoles struct {
	mu      sync.Mutex
	held    []string
	granted []string
}

func (k *keystoneRoles) serve(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()

	switch {
	case r.URL.Path == "/v3/role_assignments":
		var out []map[string]any
		for _, n := range k.held {
			out = append(out, map[string]any{"role": map[string]any{"id": "r-" + n, "name": n}, "scope": map[string]any{"project": map[string]any{"id": "p1"}}})
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"role_assignments": out, "links": map[string]any{}})
	case r.URL.Path == "/v3/roles":
		var out []map[string]any
		for _, n := range []string{"admin", "member", "reader", "manager", "load-balancer_member"} {
			out = append(out, map[string]any{"id": "r-" + n, "name": n})
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"roles": out, "links": map[string]any{}})
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v3/projects/p1/users/"+fakeUserID+"/roles/"):
		k.granted = append(k.granted, strings.TrimPrefix(r.URL.Path, "/v3/projects/p1/users/"+fakeUserID+"/roles/"))
		w.WriteHeader(http.StatusNoContent)
	default:
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{})
	}
}

// TestActAsIdentityMadeElsewhere: an identity this provider did not make (no creation mark on
// its project) and without a trust is acted in as the service user, which first grants itself
// the privileged roles it lacks there; never as its user. One that this provider made and whose
// trust is gone is an error: its objects must not silently become the service user's.
func TestActAsIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	t.Run("made elsewhere: the service user, granted what it lacks", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		k := &keystoneRoles{held: []string{"manager", "member", "reader"}} // Unikorn grants manager only (implying member)
		f.setService(k.serve)

		c := mustClient(t, f, nil)

		tenant, err := c.Tenant(t.Context(), "p1", "", AsIdentity)
		if err != nil {
			t.Fatal(err)
		}

		if !tenant.AsServiceUser() || f.scopeOf(tenantToken(t, tenant)) != "project:p1" {
			t.Fatalf("AsServiceUser %v, scope %s; want the service user in the project", tenant.AsServiceUser(), f.scopeOf(tenantToken(t, tenant)))
		}

		if len(k.granted) != 1 || k.granted[0] != "r-load-balancer_member" {
			t.Fatalf("granted %v; want only load-balancer_member (member and manager are held)", k.granted)
		}

		// A read in the same run checks nothing again.
		if _, err := c.Tenant(t.Context(), "p1", "", Privileged); err != nil || f.api.Count("GET /v3/role_assignments") != 1 {
			t.Fatalf("privileged bind: %v, %d assignment listings; want one per run", err, f.api.Count("GET /v3/role_assignments"))
		}
	})

	t.Run("made by this provider: its trust is missing", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		k := &keystoneRoles{}
		f.setService(k.serve)
		f.projects = map[string]map[string]any{"p1": {
			"id": "p1", "name": "unikorn-identity-x", "domain_id": "dom-managed-id",
			naming.MarkKindKey: "unikorn_identity", naming.MarkCompletedKey: "true",
		}}

		c := mustClient(t, f, nil)

		_, err := c.Tenant(t.Context(), "p1", "", AsIdentity)

		var noTrust *NoTrustError
		if !errors.As(err, &noTrust) || len(k.granted) != 0 {
			t.Fatalf("err %v, granted %v; want a NoTrustError and no grant", err, k.granted)
		}
	})

	t.Run("with a trust: as the identity's user", func(t *testing.T) {
		t.Parallel()

		f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
		f.setTrusts(fakeTrust("t-p1", "p1"))

		c := mustClient(t, f, nil)

		tenant, err := c.Tenant(t.Context(), "p1", "", AsIdentity)
		if err != nil || tenant.AsServiceUser() || f.scopeOf(tenantToken(t, tenant)) != "trust:t-p1" {
			t.Fatalf("%v, AsServiceUser %v; want the trust's scope", err, tenant.AsServiceUser())
		}
	})
}

// tenantToken is the token the tenant's session sends.
func tenantToken(t *testing.T, tenant *Tenant) string {
	t.Helper()

	sc, err := tenant.Compute()
	if err != nil {
		t.Fatal(err)
	}

	return sc.Token()
}
