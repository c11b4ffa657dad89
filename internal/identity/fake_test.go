package identity

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The service user and managed domain of the fake cloud.
const (
	fakeServiceUser = "svc"
	fakeDomainID    = "dom-1"
)

// keystone is a Keystone client of api, whose endpoint is /v3/.
func keystone(api *cloudtest.API) *gophercloud.ServiceClient {
	return api.ServiceClient("/v3/", "/v3/")
}

// fakeCloud makes api a whole cloud behind Keystone, with a catalog of one region whose
// services live under /compute/v2.1, /network/v2.0, /lb/v2.0, /volume/v3 and /image/v2, the
// managed domain and the three roles, and returns a cloud.Client authenticated against it.
// Every token is accepted.
func fakeCloud(t *testing.T, api *cloudtest.API) *cloud.Client {
	t.Helper()

	return fakeCloudWith(t, api, fakeOptions{})
}

// fakeOptions change what fakeCloudWith serves.
type fakeOptions struct {
	// alsoInCatalog are regions of the catalog that the client does not serve: region R's
	// services live under /R/compute/v2.1, /R/network/v2.0, and so on.
	alsoInCatalog []string
	// userAuth, when set, answers the authentications of identity users (a password of a user
	// other than the service user) instead of accepting them.
	userAuth func(w http.ResponseWriter, userID, password string)
}

// fakeCloudWith is fakeCloud with opts.
func fakeCloudWith(t *testing.T, api *cloudtest.API, opts fakeOptions) *cloud.Client {
	t.Helper()

	endpoint := func(typ, path string) map[string]any {
		endpoints := []any{map[string]any{
			"id": typ + "-public", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": api.URL() + path,
		}}

		for _, region := range opts.alsoInCatalog {
			if typ == "identity" {
				break
			}

			endpoints = append(endpoints, map[string]any{
				"id": typ + "-public-" + region, "interface": "public", "region": region, "region_id": region,
				"url": api.URL() + "/" + region + path,
			})
		}

		return map[string]any{"type": typ, "name": typ, "id": typ, "endpoints": endpoints}
	}

	catalog := []any{
		endpoint("identity", "/v3"),
		endpoint("compute", "/compute/v2.1"),
		endpoint("network", "/network/v2.0"),
		endpoint("load-balancer", "/lb/v2.0"),
		endpoint("block-storage", "/volume/v3"),
		endpoint("image", "/image/v2"),
	}

	api.On("POST", "/v3/auth/tokens", func(w http.ResponseWriter, r *http.Request) {
		token := map[string]any{
			"methods":    []string{"password"},
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"user":       map[string]any{"id": fakeServiceUser, "name": "svc", "domain": map[string]any{"id": "default", "name": "Default"}},
			"project":    map[string]any{"id": "svc-project", "name": "service", "domain": map[string]any{"id": "default", "name": "Default"}},
			"catalog":    catalog,
		}

		// A token scoped to the managed domain (by its name or ID) names it, as Keystone's do.
		var req struct {
			Auth struct {
				Identity struct {
					Password struct {
						User struct{ ID, Name, Password string } `json:"user"`
					} `json:"password"`
				} `json:"identity"`
				Scope struct {
					Domain *struct{ ID, Name string } `json:"domain"`
				} `json:"scope"`
			} `json:"auth"`
		}

		if json.NewDecoder(r.Body).Decode(&req) == nil && req.Auth.Scope.Domain != nil {
			if d := req.Auth.Scope.Domain; d.ID != fakeDomainID && d.Name != "managed" {
				cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401}})
				return
			}

			delete(token, "project")
			token["domain"] = map[string]any{"id": fakeDomainID, "name": "managed"}
		}

		if u := req.Auth.Identity.Password.User; opts.userAuth != nil && u.ID != "" && u.ID != fakeServiceUser {
			opts.userAuth(w, u.ID, u.Password)
			return
		}

		w.Header().Set("X-Subject-Token", "tok-"+time.Now().Format(time.RFC3339Nano))
		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"token": token})
	})
	api.Reply("GET", "/v3/domains", 200, map[string]any{"domains": []any{map[string]any{"id": fakeDomainID, "name": "managed"}}})
	api.Reply("GET", "/v3/roles", 200, map[string]any{"roles": []any{
		map[string]any{"id": "r-member", "name": RoleMember},
		map[string]any{"id": "r-lb", "name": RoleLoadBalancerMember},
		map[string]any{"id": "r-manager", "name": RoleManager},
	}})

	c, err := cloud.New(context.Background(), cloud.Config{
		AuthURL: api.URL() + "/v3", UserName: "svc", UserDomainName: "Default", Password: "pw",
		ProjectName: "service", Region: "RegionOne", Domain: "managed", MaxRetries: new(0),
	})
	if err != nil {
		t.Fatalf("cloud client against the fake: %v", err)
	}

	return c
}

// project is a Keystone project of the managed domain.
func project(id, name string, tags ...string) map[string]any {
	if tags == nil {
		tags = []string{}
	}

	return map[string]any{"id": id, "name": name, "domain_id": fakeDomainID, "enabled": true, "description": "", "tags": tags}
}

// marked is obj (a Keystone project or user of the fake) carrying the marks m in its extra
// attributes, as Keystone shows them.
func marked(obj map[string]any, m naming.Mark) map[string]any {
	for k, v := range m.Properties() {
		obj[k] = v
	}

	return obj
}

// identityUser is the user u-1 of identity foo, carrying the marks m.
func identityUser(m naming.Mark) map[string]any {
	return marked(map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain_id": fakeDomainID, "enabled": true}, m)
}

// interrupted is the mark of what an interrupted create of an identity left; finished, of an
// identity this provider made.
var (
	interrupted = naming.MadeFor(Type)
	finished    = interrupted.Done()
)
