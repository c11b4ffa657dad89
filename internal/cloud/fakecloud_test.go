package cloud

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

const (
	fakeUserID       = "svc-user-id"
	fakeUserName     = "svc"
	fakeUserDomain   = "Default"
	fakeBaseProject  = "svc-project-id"
	fakeBaseProjName = "service"
	fakePassword     = "s3cret-Sentinel-Password-4711" //nolint:gosec // test sentinel

	// trustListing is the request that lists the service user's trusts.
	trustListing = "GET /v3/OS-TRUST/trusts"
)

// fakeCloud is a Keystone (plus catalog endpoints) behind the cloudtest recorder. Tokens are
// "tok-N"; each records the scope it was issued for.
type fakeCloud struct {
	api *cloudtest.API // records every request; nil for the TLS fake
	url string

	// catalog maps a region to the service types it offers.
	catalog map[string][]string

	mu         sync.Mutex
	next       int
	tokens     map[string]string // token → scope key
	revoked    map[string]bool   // tokens answered with 401
	tokenPosts map[string]int    // scope key → POST /v3/auth/tokens
	trusts     []map[string]any
	domains    []map[string]any
	// projects are the Keystone projects by ID; one not listed reads as an identity project
	// of the managed domain called unikorn-identity-<id>.
	projects  map[string]map[string]any
	authDelay time.Duration
	denied    map[string]bool     // scope keys answered with 401
	roles     map[string][]string // scope key → the roles its tokens name (none: no roles)
	service   http.HandlerFunc    // answers everything under a catalog endpoint; nil = 200 {}
}

func newFakeKeystone(catalog map[string][]string) *fakeCloud {
	return &fakeCloud{
		catalog:    catalog,
		tokens:     map[string]string{},
		revoked:    map[string]bool{},
		tokenPosts: map[string]int{},
		domains: []map[string]any{
			{"id": "dom-managed-id", "name": "managed", "enabled": true},
			{"id": "default", "name": "Default", "enabled": true},
		},
	}
}

// newFakeCloud serves the fake on a cloudtest.API, which records every request.
func newFakeCloud(t *testing.T, catalog map[string][]string) *fakeCloud {
	t.Helper()

	f := newFakeKeystone(catalog)
	f.api = cloudtest.New(t)
	f.api.Fallback(http.HandlerFunc(f.serve))
	f.url = f.api.URL()

	return f
}

// fakeTrust is a live trust from the identity's user to the service user on project.
func fakeTrust(id, project string) map[string]any {
	return map[string]any{
		"id": id, "project_id": project, "trustee_user_id": fakeUserID, "trustor_user_id": "identity-user",
		"impersonation": true, "expires_at": nil,
	}
}

// setTrusts replaces the trusts Keystone holds.
func (f *fakeCloud) setTrusts(trusts ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.trusts = trusts
}

// listings is how many times the trusts were listed.
func (f *fakeCloud) listings() int { return f.api.Count(trustListing) }

func (f *fakeCloud) authURL() string { return f.url + "/v3" }

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
					"interface": iface, "url": f.url + endpointPath(region, svc),
				})
			}
		}
	}

	var identity []map[string]any
	for region := range f.catalog {
		identity = append(identity, map[string]any{
			"id": "ks-" + region, "region": region, "region_id": region, "interface": "public", "url": f.url + "/v3",
		})
	}

	out := []map[string]any{{"id": "keystone", "type": "identity", "name": "keystone", "endpoints": identity}}

	for _, svc := range order {
		out = append(out, map[string]any{"id": svc, "type": svc, "name": svc + "-svc", "endpoints": byType[svc]})
	}

	return out
}

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v3/auth/tokens" && r.Method == http.MethodPost {
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
		cloudtest.WriteJSON(w, http.StatusOK, body)
	case r.URL.Path == "/v3/domains":
		name := r.URL.Query().Get("name")

		var out []map[string]any

		for _, d := range f.domains {
			if name == "" || d["name"] == name {
				out = append(out, d)
			}
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"domains": out, "links": map[string]any{}})
	case r.URL.Path == "/v3/users" && r.Method == http.MethodGet:
		// Every identity's user is "identity-user" (the trustor of fakeTrust).
		name := r.URL.Query().Get("name")
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"users": []map[string]any{
			{"id": "identity-user", "name": name, "domain_id": r.URL.Query().Get("domain_id")},
		}, "links": map[string]any{}})
	case strings.HasPrefix(r.URL.Path, "/v3/projects/") && r.Method == http.MethodGet:
		id := strings.TrimPrefix(r.URL.Path, "/v3/projects/")

		f.mu.Lock()
		p, listed := f.projects[id]
		f.mu.Unlock()

		switch {
		case !listed:
			p = map[string]any{"id": id, "name": "unikorn-identity-" + id, "domain_id": "dom-managed-id"}
		case p == nil:
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "Could not find project"}})

			return
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"project": p})
	case strings.HasPrefix(r.URL.Path, "/v3/domains/"):
		id := strings.TrimPrefix(r.URL.Path, "/v3/domains/")
		for _, d := range f.domains {
			if d["id"] == id {
				cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"domain": d})

				return
			}
		}

		cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "Could not find domain"}})
	default:
		f.mu.Lock()
		service := f.service
		f.mu.Unlock()

		if service != nil {
			service(w, r)

			return
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{})
	}
}

func (f *fakeCloud) authorized(w http.ResponseWriter, r *http.Request) bool {
	tok := r.Header.Get("X-Auth-Token")

	f.mu.Lock()
	_, known := f.tokens[tok]
	revoked := f.revoked[tok]
	f.mu.Unlock()

	if !known || revoked {
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})

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
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
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
		// Keystone scopes to a domain by its ID or its name; an unknown one is refused.
		id, name := f.domain(s["domain"])
		if id == "" {
			cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
				"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication.",
			}})

			return
		}

		scope = "domain:" + id
		token["domain"] = map[string]any{"id": id, "name": name}
	case s["OS-TRUST:trust"] != nil:
		id, _ := s["OS-TRUST:trust"]["id"].(string)
		scope = "trust:" + id

		// As Keystone: a trust-scoped token names the trust's project (as GET /v3/projects/ID
		// answers it), with its domain.
		f.mu.Lock()
		for _, t := range f.trusts {
			if t["id"] == id {
				project := fmt.Sprint(t["project_id"])
				name := "unikorn-identity-" + project
				if p := f.projects[project]; p != nil {
					name = fmt.Sprint(p["name"])
				}

				token["project"] = map[string]any{"id": project, "name": name,
					"domain": map[string]any{"id": "dom-managed-id", "name": "managed"}}
			}
		}
		f.mu.Unlock()
	}

	if scope != "unscoped" {
		token["catalog"] = f.catalogJSON()
	}

	f.mu.Lock()
	if roles := f.roles[scope]; roles != nil {
		list := make([]any, len(roles))
		for i, r := range roles {
			list[i] = map[string]any{"id": "role-" + r, "name": r}
		}

		token["roles"] = list
	}
	f.mu.Unlock()

	f.mu.Lock()
	denied := f.denied[scope]
	f.mu.Unlock()

	if denied {
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
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
	cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"token": token})
}

// domain is the ID and name of the domain a token scope names by ID or by name; "" for none.
func (f *fakeCloud) domain(scope map[string]any) (id, name string) {
	wantID, _ := scope["id"].(string)
	wantName, _ := scope["name"].(string)

	for _, d := range f.domains {
		if (wantID != "" && d["id"] == wantID) || (wantID == "" && d["name"] == wantName) {
			return fmt.Sprint(d["id"]), fmt.Sprint(d["name"])
		}
	}

	return "", ""
}

// serviceHeaders answers every catalog endpoint with 200 {} and returns the headers of the
// requests it answered for path, in order.
func (f *fakeCloud) serviceHeaders() func(path string) []http.Header {
	var (
		mu   sync.Mutex
		seen = map[string][]http.Header{}
	)

	f.setService(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Clone())
		mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{})
	})

	return func(path string) []http.Header {
		mu.Lock()
		defer mu.Unlock()

		return append([]http.Header(nil), seen[path]...)
	}
}
