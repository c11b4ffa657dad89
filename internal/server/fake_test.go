package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// fakeAPI is Nova, Neutron and Keystone on httptest: handlers by "METHOD /path", every
// request recorded. Unhandled requests answer 404, like a missing object.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	requests []fakeCall
}

type fakeCall struct {
	Method, Path string
	Query        map[string][]string
	Body         []byte
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
	f.requests = append(f.requests, fakeCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body})
	h := f.routes[r.Method+" "+r.URL.Path]
	f.mu.Unlock()

	if h == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"message": "not found", "code": 404}})
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
	f.on(method, path, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, status, body) })
}

// serverReads answers the reads of server srv-1 with the bodies in turn, repeating the last one.
func (f *fakeAPI) serverReads(bodies ...any) {
	var mu sync.Mutex

	n := 0

	f.on("GET", "/compute/servers/srv-1", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		i := min(n, len(bodies)-1)
		n++
		mu.Unlock()

		writeJSON(w, http.StatusOK, bodies[i])
	})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)

	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

func (f *fakeAPI) client(prefix, resourceBase string) *gophercloud.ServiceClient {
	return &gophercloud.ServiceClient{
		ProviderClient: &gophercloud.ProviderClient{TokenID: "fake-token", HTTPClient: *f.srv.Client()},
		Endpoint:       f.srv.URL + prefix,
		ResourceBase:   f.srv.URL + resourceBase,
	}
}

// service is a Service of project p1 in RegionOne against the fake.
func (f *fakeAPI) service() *Service {
	return &Service{
		projectID: "p1",
		region:    "RegionOne",
		compute:   f.client("/compute/", "/compute/"),
		network:   f.client("/network/", "/network/v2.0/"),
		keystone:  f.client("/identity/", "/identity/"),
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

// last is the last "METHOD /path" request.
func (f *fakeAPI) last(call string) fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()

	for i := len(f.requests) - 1; i >= 0; i-- {
		if r := f.requests[i]; r.Method+" "+r.Path == call {
			return r
		}
	}

	f.t.Fatalf("no request %s; calls: %v", call, f.requests)

	return fakeCall{}
}

// body decodes the request body, returning the object under key.
func (c fakeCall) body(t *testing.T, key string) map[string]any {
	t.Helper()

	var out map[string]any
	if err := json.Unmarshal(c.Body, &out); err != nil {
		t.Fatalf("decoding %s %s body %q: %v", c.Method, c.Path, c.Body, err)
	}

	if key == "" {
		return out
	}

	inner, ok := out[key].(map[string]any)
	if !ok {
		t.Fatalf("%s %s body has no %q object: %s", c.Method, c.Path, key, c.Body)
	}

	return inner
}

// Builders of API objects.

func novaServer(id, name, status string, extra map[string]any) map[string]any {
	s := map[string]any{
		"id": id, "name": name, "status": status, "tenant_id": "p1", "user_id": "u1",
		"flavor":   map[string]any{"original_name": "m1.tiny", "vcpus": 1, "ram": 512, "disk": 1},
		"image":    map[string]any{"id": "img-1"},
		"metadata": map[string]any{},
		"addresses": map[string]any{
			"net": []any{map[string]any{"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"}},
		},
		"server_groups": []any{},
	}

	for k, v := range extra {
		s[k] = v
	}

	return s
}

func withFloating(srv map[string]any, addr string) map[string]any {
	out := map[string]any{}
	for k, v := range srv {
		out[k] = v
	}

	out["addresses"] = map[string]any{"net": []any{
		map[string]any{"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
		map[string]any{"addr": addr, "version": 4, "OS-EXT-IPS:type": "floating", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
	}}

	return out
}

func neutronPort(id, name, deviceID string, groups []string) map[string]any {
	return map[string]any{
		"id": id, "name": name, "network_id": "net-1", "device_id": deviceID, "mac_address": "fa:16:3e:00:00:01",
		"fixed_ips":             []any{map[string]any{"subnet_id": "sub-1", "ip_address": "10.0.0.5"}},
		"security_groups":       groups,
		"allowed_address_pairs": []any{},
		"project_id":            "p1",
	}
}

func keystoneProject() map[string]any {
	return map[string]any{"project": map[string]any{
		"id": "p1", "name": "unikorn-identity-team", "tags": []string{"organization=org-1", "project=proj-1", "other"},
	}}
}
