// Package cloudtest is the one fake-OpenStack recorder of the unit tests: an httptest server
// that answers "METHOD /path" routes (or hands the request to a stateful fake of a package's
// own), records every request, and builds gophercloud service clients against itself. It is
// imported by tests only.
package cloudtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// Call is one recorded request.
type Call struct {
	Method, Path string
	Query        url.Values
	Body         []byte
}

// String is "METHOD /path".
func (c Call) String() string { return c.Method + " " + c.Path }

// JSON decodes the request body and returns its member key (the whole body for "").
func (c Call) JSON(t *testing.T, key string) map[string]any {
	t.Helper()

	var body map[string]any
	if err := json.Unmarshal(c.Body, &body); err != nil {
		t.Fatalf("%s: body is not a JSON object: %v (%s)", c, err, c.Body)
	}

	if key == "" {
		return body
	}

	m, ok := body[key].(map[string]any)
	if !ok {
		t.Fatalf("%s: body has no object %q: %s", c, key, c.Body)
	}

	return m
}

// API is a fake OpenStack API on httptest. Requests that match a route go to its handler;
// the others to the fallback handler (Fallback), else they answer 404 like a missing object.
type API struct {
	srv *httptest.Server

	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	fallback http.Handler
	calls    []Call
}

// New starts an API that is closed when the test ends.
func New(t *testing.T) *API {
	t.Helper()

	a := &API{routes: map[string]http.HandlerFunc{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)

	return a
}

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))

	a.mu.Lock()
	a.calls = append(a.calls, Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body})
	h := a.routes[r.Method+" "+r.URL.Path]
	fallback := a.fallback
	a.mu.Unlock()

	switch {
	case h != nil:
		h(w, r)
	case fallback != nil:
		fallback.ServeHTTP(w, r)
	default:
		WriteJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"message": "not found", "code": 404}})
	}
}

// URL is the server's base URL.
func (a *API) URL() string { return a.srv.URL }

// Fallback sets the handler of every request that matches no route.
func (a *API) Fallback(h http.Handler) {
	a.mu.Lock()
	defer a.mu.Unlock()

	a.fallback = h
}

// On sets the handler of method and path.
func (a *API) On(method, path string, h http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()

	a.routes[method+" "+path] = h
}

// Reply answers method and path with status and body as JSON.
func (a *API) Reply(method, path string, status int, body any) {
	a.On(method, path, func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, status, body) })
}

// Sequence answers method and path with 200 and the bodies in turn, repeating the last one.
func (a *API) Sequence(method, path string, bodies ...any) {
	var mu sync.Mutex

	n := 0

	a.On(method, path, func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		i := min(n, len(bodies)-1)
		n++
		mu.Unlock()

		WriteJSON(w, http.StatusOK, bodies[i])
	})
}

// Requests are the recorded requests, in order.
func (a *API) Requests() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()

	return append([]Call(nil), a.calls...)
}

// Calls lists the recorded requests as "METHOD /path".
func (a *API) Calls() []string {
	reqs := a.Requests()

	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.String()
	}

	return out
}

// Writes lists the recorded requests other than GETs, as "METHOD /path", in order: what a
// call changed in the cloud.
func (a *API) Writes() []string {
	var out []string

	for _, r := range a.Requests() {
		if r.Method != http.MethodGet {
			out = append(out, r.String())
		}
	}

	return out
}

// Count is how often call ("METHOD /path") was requested.
func (a *API) Count(call string) int {
	n := 0

	for _, c := range a.Calls() {
		if c == call {
			n++
		}
	}

	return n
}

// Last is the last request of call ("METHOD /path"); it fails the test when there was none.
func (a *API) Last(t *testing.T, call string) Call {
	t.Helper()

	reqs := a.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].String() == call {
			return reqs[i]
		}
	}

	t.Fatalf("no request %s among %v", call, a.Calls())

	return Call{}
}

// Reset forgets the recorded requests.
func (a *API) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()

	a.calls = nil
}

// ServiceClient is a gophercloud client of the API under prefix (its endpoint) with
// resourceBase (where its resources live, e.g. "/network/v2.0/"), with a fixed token.
func (a *API) ServiceClient(prefix, resourceBase string) *gophercloud.ServiceClient {
	return &gophercloud.ServiceClient{
		ProviderClient: &gophercloud.ProviderClient{TokenID: "fake-token", HTTPClient: *a.srv.Client()},
		Endpoint:       a.srv.URL + prefix,
		ResourceBase:   a.srv.URL + resourceBase,
	}
}

// WriteJSON answers with status and body as JSON (no body for nil).
func WriteJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)

	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}
