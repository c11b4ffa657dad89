package federation

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// fakeCloud makes api a Keystone (at /v3; the catalog names the other services a region must
// have, which the tests never call) that accepts every token, and returns a cloud.Client
// authenticated against it with the retrying transport of a real run (one retry of an
// idempotent request).
func fakeCloud(t *testing.T, api *cloudtest.API) *cloud.Client {
	t.Helper()

	endpoint := func(typ, path string) map[string]any {
		return map[string]any{"type": typ, "name": typ, "id": typ, "endpoints": []any{map[string]any{
			"id": typ + "-public", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": api.URL() + path,
		}}}
	}

	catalog := []any{endpoint("identity", "/v3"), endpoint("compute", "/compute/v2.1"), endpoint("network", "/network/v2.0"),
		endpoint("load-balancer", "/lb/v2.0"), endpoint("block-storage", "/volume/v3"), endpoint("image", "/image/v2")}

	api.On("POST", "/v3/auth/tokens", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Subject-Token", "tok")
		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"token": map[string]any{
			"methods":    []string{"password"},
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"user":       map[string]any{"id": "svc", "name": "svc", "domain": map[string]any{"id": "default", "name": "Default"}},
			"project":    map[string]any{"id": "svc-project", "name": "service", "domain": map[string]any{"id": "default", "name": "Default"}},
			"catalog":    catalog,
		}})
	})

	c, err := cloud.New(context.Background(), cloud.Config{
		AuthURL: api.URL() + "/v3", UserName: "svc", UserDomainName: "Default", Password: "pw",
		ProjectName: "service", Region: "RegionOne", MaxRetries: new(1),
	})
	if err != nil {
		t.Fatalf("cloud client against the fake: %v", err)
	}

	return c
}

// keystoneFederation is a fake of OS-FEDERATION's objects created by PUT (identity providers,
// mappings, protocols) as Keystone keeps them: a PUT onto an object that exists is a 409. lose
// lists the paths whose first PUT acts and then loses its answer (a proxy's 502).
type keystoneFederation struct {
	mu      sync.Mutex
	objects map[string]bool
	lose    map[string]bool
}

func newKeystoneFederation(api *cloudtest.API, lose ...string) *keystoneFederation {
	k := &keystoneFederation{objects: map[string]bool{}, lose: map[string]bool{}}
	for _, p := range lose {
		k.lose[p] = true
	}

	api.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		defer k.mu.Unlock()

		p := r.URL.Path

		switch r.Method {
		case http.MethodPut:
			switch {
			case k.objects[p]:
				cloudtest.WriteJSON(w, http.StatusConflict, map[string]any{"error": map[string]any{"code": 409, "message": "Conflict"}})
			case k.lose[p]:
				k.objects[p], k.lose[p] = true, false
				cloudtest.WriteJSON(w, http.StatusBadGateway, nil)
			default:
				k.objects[p] = true
				cloudtest.WriteJSON(w, http.StatusCreated, k.body(p))
			}
		case http.MethodGet:
			if !k.objects[p] {
				cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
				return
			}

			cloudtest.WriteJSON(w, http.StatusOK, k.body(p))
		default:
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
		}
	}))

	return k
}

// rules is the one mapping rule of the tests, as Keystone's JSON.
const rules = `[{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"email"}]}]`

// body is what Keystone answers of the object at p.
func (k *keystoneFederation) body(p string) map[string]any {
	id := p[strings.LastIndex(p, "/")+1:]

	switch {
	case strings.Contains(p, "/protocols/"):
		return map[string]any{"protocol": map[string]any{"id": id, "mapping_id": naming.FederationMapping("idp-1")}}
	case strings.Contains(p, "/mappings/"):
		return map[string]any{"mapping": map[string]any{"id": id, "rules": []any{map[string]any{
			"local": []any{map[string]any{"user": map[string]any{"name": "{0}"}}}, "remote": []any{map[string]any{"type": "email"}},
		}}}}
	}

	return map[string]any{"identity_provider": map[string]any{"id": id, "domain_id": "d-sso", "description": "", "enabled": true,
		"remote_ids": []string{"https://idp.example"}}}
}

// TestCreateRecoversAnIdentityProviderWhoseAnswerWasLost: the first PUT of the identity provider
// (and of its mapping and protocol) makes it and its answer is lost. The PUT is not sent again
// (a repeat would meet it as a 409, which said "exists: import it", forever); the create reads it
// back and goes on (issue 26, item 8).
func TestCreateRecoversAnIdentityProviderWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()

	idp := "/v3/OS-FEDERATION/identity_providers/idp-1"
	mapping := "/v3/OS-FEDERATION/mappings/" + naming.FederationMapping("idp-1")
	protocol := idp + "/protocols/openid"

	api := cloudtest.New(t)
	c := fakeCloud(t, api)
	newKeystoneFederation(api, idp, mapping, protocol)

	svc, err := NewService(c)
	if err != nil {
		t.Fatal(err)
	}

	ctx := cloud.WithSleeper(context.Background(), cloudtest.Instant)

	out, err := svc.Ensure(ctx, Spec{IDPID: "idp-1", DomainID: "d-sso", Enabled: true, RemoteIDs: []string{"https://idp.example"},
		Protocol: "openid", Rules: rules}, "")
	if err != nil {
		t.Fatalf("create: %v after %v", err, api.Calls())
	}

	if out.IDPID != "idp-1" || out.Protocol != "openid" || out.MappingID != naming.FederationMapping("idp-1") {
		t.Fatalf("got %+v", out)
	}

	for _, p := range []string{idp, mapping, protocol} {
		if n := api.Count("PUT " + p); n != 1 {
			t.Errorf("PUT %s sent %d times, want once (%v)", p, n, api.Calls())
		}
	}
}

// TestCreateRefusesAnExistingIdentityProvider: an identity provider of the ID exists; the create
// looks first and refuses it (it carries no marks: import it) with nothing sent.
func TestCreateRefusesAnExistingIdentityProvider(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	api.Reply("GET", "/v3/OS-FEDERATION/identity_providers/idp-1", 200, map[string]any{"identity_provider": map[string]any{"id": "idp-1"}})

	svc := &Service{newAdmin(api)}

	_, err := svc.Ensure(context.Background(), Spec{IDPID: "idp-1", Protocol: "openid", Rules: rules}, "")

	var exists *cloud.ExistsError
	if !errors.As(err, &exists) || exists.ID != "idp-1" || !strings.Contains(err.Error(), "terraform import unikorn_federation.<address> idp-1") {
		t.Fatalf("got %v, want an ExistsError naming idp-1 and its import", err)
	}

	if writes := api.Writes(); len(writes) != 0 {
		t.Fatalf("a refused create made %v", writes)
	}
}

// newAdmin is the cloud-admin Keystone client of api, without a cloud.Client (no retries).
func newAdmin(api *cloudtest.API) *domain.Admin {
	return &domain.Admin{Keystone: api.ServiceClient("/v3/", "/v3/"), ProjectID: "svc-project", UserID: "svc"}
}
