package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	fakeUserID       = "svc-user-id"
	fakeUserName     = "svc"
	fakeUserDomain   = "Default"
	fakeBaseProject  = "svc-project-id"
	fakeBaseProjName = "service"
	fakePassword     = "s3cret-Sentinel-Password-4711" //nolint:gosec // test sentinel
)

// fakeCloud is a Keystone (plus catalog endpoints) on httptest. Tokens are "tok-N"; each
// records the scope it was issued for.
type fakeCloud struct {
	srv *httptest.Server

	// catalog maps a region to the service types it offers.
	catalog map[string][]string

	mu         sync.Mutex
	next       int
	tokens     map[string]string // token → scope key
	revoked    map[string]bool   // tokens answered with 401
	tokenPosts map[string]int    // scope key → POST /v3/auth/tokens
	trusts     []map[string]any
	domains    []map[string]any
	requests   []fakeRequest
	authDelay  time.Duration
	denied     map[string]bool  // scope keys answered with 401
	service    http.HandlerFunc // answers everything under a catalog endpoint; nil = 200 {}
}

type fakeRequest struct {
	Method, Path, Token string
	Header              http.Header
}

func newFakeCloud(t *testing.T, catalog map[string][]string) *fakeCloud {
	t.Helper()

	return newFakeCloudServer(t, catalog, httptest.NewServer)
}

// newFakeCloudServer starts the fake with httptest.NewServer or httptest.NewTLSServer.
func newFakeCloudServer(t *testing.T, catalog map[string][]string, start func(http.Handler) *httptest.Server) *fakeCloud {
	t.Helper()

	f := &fakeCloud{
		catalog:    catalog,
		tokens:     map[string]string{},
		revoked:    map[string]bool{},
		tokenPosts: map[string]int{},
		domains: []map[string]any{
			{"id": "dom-managed-id", "name": "managed", "enabled": true},
			{"id": "default", "name": "Default", "enabled": true},
		},
	}
	f.srv = start(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)

	return f
}

func (f *fakeCloud) authURL() string { return f.srv.URL + "/v3" }

// config holds complete credentials for this cloud.
func (f *fakeCloud) config() Config {
	return Config{
		AuthURL:        f.authURL(),
		UserName:       fakeUserName,
		UserDomainName: fakeUserDomain,
		Password:       fakePassword,
		ProjectName:    fakeBaseProjName,
		Region:         "RegionOne",
		Domain:         "managed",
	}
}

func (f *fakeCloud) posts(scope string) int {
	f.mu.Lock()
	defer f.mu.Unlock()

	return f.tokenPosts[scope]
}

func (f *fakeCloud) setService(h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.service = h
}

// scopeOf is the scope a token was issued for.
func (f *fakeCloud) scopeOf(token string) string {
	f.mu.Lock()
	defer f.mu.Unlock()

	return f.tokens[token]
}

func (f *fakeCloud) revokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()

	for tok := range f.tokens {
		f.revoked[tok] = true
	}
}

func (f *fakeCloud) seen() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()

	return append([]fakeRequest(nil), f.requests...)
}

// endpointPath is where a service of a region lives on the fake server.
func endpointPath(region, service string) string {
	version := map[string]string{
		"compute": "v2.1", "network": "v2.0", "image": "v2", "load-balancer": "v2.0",
		"block-storage": "v3", "volumev3": "v3", "volume": "v3",
	}[service]

	// No "v<digit>" inside the service segment: gophercloud takes the first such match as
	// the version when it inspects an endpoint.
	segment := strings.NewReplacer("volumev3", "cinder3", "volume", "cinder").Replace(service)

	return "/" + region + "/" + segment + "/" + version
}

func (f *fakeCloud) catalogJSON() []map[string]any {
	byType := map[string][]map[string]any{}

	var order []string

	for region, services := range f.catalog {
		for _, svc := range services {
			if _, ok := byType[svc]; !ok {
				order = append(order, svc)
			}

			for _, iface := range []string{"public", "internal"} {
				byType[svc] = append(byType[svc], map[string]any{
					"id": region + svc + iface, "region": region, "region_id": region,
					"interface": iface, "url": f.srv.URL + endpointPath(region, svc),
				})
			}
		}
	}

	var identity []map[string]any
	for region := range f.catalog {
		identity = append(identity, map[string]any{
			"id": "ks-" + region, "region": region, "region_id": region, "interface": "public", "url": f.srv.URL + "/v3",
		})
	}

	out := []map[string]any{{"id": "keystone", "type": "identity", "name": "keystone", "endpoints": identity}}

	for _, svc := range order {
		out = append(out, map[string]any{"id": svc, "type": svc, "name": svc + "-svc", "endpoints": byType[svc]})
	}

	return out
}

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Method: r.Method, Path: r.URL.Path, Token: r.Header.Get("X-Auth-Token"), Header: r.Header.Clone()})
	f.mu.Unlock()

	switch {
	case r.URL.Path == "/v3/auth/tokens" && r.Method == http.MethodPost:
		f.issueToken(w, r)

		return
	}

	if !f.authorized(w, r) {
		return
	}

	switch {
	case r.URL.Path == "/v3/OS-TRUST/trusts":
		if got := r.URL.Query().Get("trustee_user_id"); got != fakeUserID {
			http.Error(w, "wrong trustee filter "+got, http.StatusBadRequest)

			return
		}

		f.mu.Lock()
		body := map[string]any{"trusts": f.trusts, "links": map[string]any{}}
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, body)
	case r.URL.Path == "/v3/domains":
		name := r.URL.Query().Get("name")

		var out []map[string]any

		for _, d := range f.domains {
			if name == "" || d["name"] == name {
				out = append(out, d)
			}
		}

		writeJSON(w, http.StatusOK, map[string]any{"domains": out, "links": map[string]any{}})
	case strings.HasPrefix(r.URL.Path, "/v3/domains/"):
		id := strings.TrimPrefix(r.URL.Path, "/v3/domains/")
		for _, d := range f.domains {
			if d["id"] == id {
				writeJSON(w, http.StatusOK, map[string]any{"domain": d})

				return
			}
		}

		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "Could not find domain"}})
	default:
		f.mu.Lock()
		service := f.service
		f.mu.Unlock()

		if service != nil {
			service(w, r)

			return
		}

		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

func (f *fakeCloud) authorized(w http.ResponseWriter, r *http.Request) bool {
	tok := r.Header.Get("X-Auth-Token")

	f.mu.Lock()
	_, known := f.tokens[tok]
	revoked := f.revoked[tok]
	f.mu.Unlock()

	if !known || revoked {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})

		return false
	}

	return true
}

// issueToken answers POST /v3/auth/tokens. A wrong password gets a 401 whose body echoes the
// request, to prove that the password never reaches an error message.
func (f *fakeCloud) issueToken(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)

	var req struct {
		Auth struct {
			Identity struct {
				Methods  []string `json:"methods"`
				Password struct {
					User struct {
						ID       string `json:"id"`
						Name     string `json:"name"`
						Password string `json:"password"`
					} `json:"user"`
				} `json:"password"`
			} `json:"identity"`
			Scope map[string]map[string]any `json:"scope"`
		} `json:"auth"`
	}

	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)

		return
	}

	user := req.Auth.Identity.Password.User
	if user.Password != fakePassword || (user.ID != fakeUserID && user.Name != fakeUserName) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
			"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication. You sent: " + string(raw),
		}})

		return
	}

	scope := "unscoped"
	token := map[string]any{
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"methods":    []string{"password"},
		"user":       map[string]any{"id": fakeUserID, "name": fakeUserName, "domain": map[string]any{"id": "default", "name": fakeUserDomain}},
	}

	switch s := req.Auth.Scope; {
	case s["project"] != nil:
		id, _ := s["project"]["id"].(string)
		if name, _ := s["project"]["name"].(string); name == fakeBaseProjName {
			id = fakeBaseProject
		}

		scope = "project:" + id
		token["project"] = map[string]any{"id": id, "name": id, "domain": map[string]any{"id": "default"}}
	case s["domain"] != nil:
		id, _ := s["domain"]["id"].(string)
		scope = "domain:" + id
		token["domain"] = map[string]any{"id": id, "name": id}
	case s["OS-TRUST:trust"] != nil:
		id, _ := s["OS-TRUST:trust"]["id"].(string)
		scope = "trust:" + id
	}

	if scope != "unscoped" {
		token["catalog"] = f.catalogJSON()
	}

	f.mu.Lock()
	denied := f.denied[scope]
	f.mu.Unlock()

	if denied {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
			"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication.",
		}})

		return
	}

	f.mu.Lock()
	delay := f.authDelay
	f.next++
	tok := fmt.Sprintf("tok-%d", f.next)
	f.tokens[tok] = scope
	f.tokenPosts[scope]++
	f.mu.Unlock()

	time.Sleep(delay)

	w.Header().Set("X-Subject-Token", tok)
	writeJSON(w, http.StatusCreated, map[string]any{"token": token})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// allServices is a region with every required service.
var allServices = []string{"compute", "network", "image", "load-balancer", "block-storage"}

// newTestClient authenticates against f with fast retries.
func newTestClient(t *testing.T, f *fakeCloud, mutate func(*Config)) (*Client, error) {
	t.Helper()

	cfg := f.config()
	if mutate != nil {
		mutate(&cfg)
	}

	s, err := resolveSettings(cfg)
	if err != nil {
		return nil, err
	}

	return newClient(t.Context(), s, fastRetryTuning(s.maxRetries, nil))
}

// fastRetryTuning retries without sleeping; the delays it would have slept are passed to
// record when given.
func fastRetryTuning(maxRetries int, record func(time.Duration)) retryTuning {
	tuning := defaultRetryTuning(maxRetries)
	tuning.initialBackoff = time.Millisecond
	tuning.maxBackoff = 4 * time.Millisecond
	tuning.sleep = func(ctx context.Context, d time.Duration) error {
		if record != nil {
			record(d)
		}

		return ctx.Err()
	}

	return tuning
}
