package identity

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// fakeAPI is an OpenStack API on httptest: handlers by "METHOD /path", every request
// recorded. Unhandled requests answer 404, like a missing object.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	requests []fakeCall
}

type fakeCall struct {
	Method, Path, Query string
	Body                []byte
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()

	f := &fakeAPI{t: t, routes: map[string]http.HandlerFunc{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)

	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(body)))

	f.mu.Lock()
	f.requests = append(f.requests, fakeCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body})
	h := f.routes[r.Method+" "+r.URL.Path]
	f.mu.Unlock()

	if h == nil {
		http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
		return
	}

	h(w, r)
}

// on sets the handler of method and path.
func (f *fakeAPI) on(method, path string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.routes[method+" "+path] = h
}

// reply answers method and path with status and body as JSON.
func (f *fakeAPI) reply(method, path string, status int, body any) {
	f.on(method, path, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, status, body)
	})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)

	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

// client is a service client whose endpoint is the fake's prefix (e.g. "/v3/").
func (f *fakeAPI) client(prefix string) *gophercloud.ServiceClient {
	return &gophercloud.ServiceClient{
		ProviderClient: &gophercloud.ProviderClient{TokenID: "fake-token", HTTPClient: *f.srv.Client()},
		Endpoint:       f.srv.URL + prefix,
	}
}

// calls lists the recorded requests as "METHOD /path".
func (f *fakeAPI) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	out := make([]string, len(f.requests))
	for i, r := range f.requests {
		out[i] = r.Method + " " + r.Path
	}

	return out
}

// count is how often "METHOD /path" was requested.
func (f *fakeAPI) count(call string) int {
	n := 0

	for _, c := range f.calls() {
		if c == call {
			n++
		}
	}

	return n
}

// bodyOf is the body of the last "METHOD /path" request, decoded.
func (f *fakeAPI) bodyOf(call string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()

	for i := len(f.requests) - 1; i >= 0; i-- {
		r := f.requests[i]
		if r.Method+" "+r.Path == call {
			var out map[string]any
			_ = json.Unmarshal(r.Body, &out)

			return out
		}
	}

	return nil
}

// member is m[key] as a JSON object; it fails the test if it is not one.
func member(t *testing.T, m map[string]any, key string) map[string]any {
	t.Helper()

	v, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("%q is %T, not an object, in %v", key, m[key], m)
	}

	return v
}

// The service user and managed domain of the fake cloud.
const (
	fakeServiceUser = "svc"
	fakeDomainID    = "dom-1"
)

// cloudClient turns the fake into a whole cloud behind Keystone, with a catalog of one region
// whose services live under /compute/v2.1, /network/v2.0, /lb/v2.0, /volume/v3 and /image/v2,
// and returns a cloud.Client authenticated against it. Every token is accepted.
func (f *fakeAPI) cloudClient(t *testing.T) *cloud.Client {
	t.Helper()

	endpoint := func(typ, path string) map[string]any {
		return map[string]any{"type": typ, "name": typ, "id": typ, "endpoints": []any{map[string]any{
			"id": typ + "-public", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": f.srv.URL + path,
		}}}
	}

	catalog := []any{
		endpoint("identity", "/v3"),
		endpoint("compute", "/compute/v2.1"),
		endpoint("network", "/network/v2.0"),
		endpoint("load-balancer", "/lb/v2.0"),
		endpoint("block-storage", "/volume/v3"),
		endpoint("image", "/image/v2"),
	}

	f.on("POST", "/v3/auth/tokens", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Subject-Token", "tok-"+time.Now().Format(time.RFC3339Nano))
		writeJSON(w, http.StatusCreated, map[string]any{"token": map[string]any{
			"methods":    []string{"password"},
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"user":       map[string]any{"id": fakeServiceUser, "name": "svc", "domain": map[string]any{"id": "default", "name": "Default"}},
			"project":    map[string]any{"id": "svc-project", "name": "service", "domain": map[string]any{"id": "default", "name": "Default"}},
			"catalog":    catalog,
		}})
	})
	f.reply("GET", "/v3/domains", 200, map[string]any{"domains": []any{map[string]any{"id": fakeDomainID, "name": "managed"}}})
	f.reply("GET", "/v3/roles", 200, map[string]any{"roles": []any{
		map[string]any{"id": "r-member", "name": RoleMember},
		map[string]any{"id": "r-lb", "name": RoleLoadBalancerMember},
		map[string]any{"id": "r-manager", "name": RoleManager},
	}})

	c, err := cloud.New(context.Background(), cloud.Config{
		AuthURL: f.srv.URL + "/v3", UserName: "svc", UserDomainName: "Default", Password: "pw",
		ProjectName: "service", Region: "RegionOne", Domain: "managed", MaxRetries: -1,
	})
	if err != nil {
		t.Fatalf("cloud client against the fake: %v", err)
	}

	return c
}
