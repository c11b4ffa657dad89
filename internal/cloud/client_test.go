package cloud

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
)

func TestNewRegionChecks(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		catalog     map[string][]string
		mutate      func(*Config)
		wantRegions []string
		wantDefault string
		wantErr     string
		wantMissing map[string][]string // region → missing services
		wantKnown   []string
	}{
		{
			name:        "one region with every service",
			catalog:     map[string][]string{"RegionOne": allServices},
			wantRegions: []string{"RegionOne"}, wantDefault: "RegionOne",
		},
		{
			name: "two regions, volumev3 and volume accepted for block storage",
			catalog: map[string][]string{
				"RegionOne": {"compute", "network", "image", "load-balancer", "volumev3"},
				"RegionTwo": {"compute", "network", "image", "load-balancer", "volume"},
			},
			mutate:      func(c *Config) { c.Regions = []string{"RegionTwo", "RegionOne"} },
			wantRegions: []string{"RegionTwo", "RegionOne"}, wantDefault: "RegionOne",
		},
		{
			name:        "default region from the only catalog region",
			catalog:     map[string][]string{"Solo": allServices},
			mutate:      func(c *Config) { c.Region = "" },
			wantRegions: []string{"Solo"}, wantDefault: "Solo",
		},
		{
			name:        "default region is the first served one",
			catalog:     map[string][]string{"A": allServices, "B": allServices},
			mutate:      func(c *Config) { c.Region = ""; c.Regions = []string{"B", "A"} },
			wantRegions: []string{"B", "A"}, wantDefault: "B",
		},
		{
			name:      "served region missing from the catalog",
			catalog:   map[string][]string{"RegionOne": allServices, "RegionTwo": allServices},
			mutate:    func(c *Config) { c.Regions = []string{"RegionOne", "RegionThree"} },
			wantErr:   `region "RegionThree" is not in the Keystone catalog (regions in the catalog: RegionOne, RegionTwo)`,
			wantKnown: []string{"RegionOne", "RegionTwo"},
		},
		{
			name:        "region lacking services",
			catalog:     map[string][]string{"RegionOne": {"compute", "network", "image"}},
			wantErr:     `region "RegionOne" has no public endpoint in the Keystone catalog for: load-balancer, block-storage`,
			wantMissing: map[string][]string{"RegionOne": {"load-balancer", "block-storage (block-storage, volumev3 or volume)"}},
		},
		{
			name:    "default region not served",
			catalog: map[string][]string{"A": allServices, "B": allServices},
			mutate:  func(c *Config) { c.Region = "A"; c.Regions = []string{"B"} },
			wantErr: `the default region "A" is not among the served regions`,
		},
		{
			name:    "no region and an ambiguous catalog",
			catalog: map[string][]string{"A": allServices, "B": allServices},
			mutate:  func(c *Config) { c.Region = "" },
			wantErr: "no region configured",
		},
		{
			name:    "admin interface has no endpoints",
			catalog: map[string][]string{"RegionOne": allServices},
			mutate:  func(c *Config) { c.EndpointType = "admin" },
			wantErr: `region "RegionOne" has no admin endpoint`,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, tt.catalog)

			c, err := newTestClient(t, f, tt.mutate)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error %q, got %v", tt.wantErr, err)
				}

				var regionErr *RegionError
				if tt.wantMissing != nil || tt.wantKnown != nil {
					if !errors.As(err, &regionErr) {
						t.Fatalf("want a *RegionError, got %T", err)
					}

					if want := tt.wantMissing[regionErr.Region]; tt.wantMissing != nil && !slices.Equal(regionErr.MissingServices, want) {
						t.Errorf("missing services %q, want %q", regionErr.MissingServices, want)
					}

					if tt.wantKnown != nil && !slices.Equal(regionErr.Known, tt.wantKnown) {
						t.Errorf("known regions %q, want %q", regionErr.Known, tt.wantKnown)
					}
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if !slices.Equal(c.Regions(), tt.wantRegions) || c.DefaultRegion() != tt.wantDefault {
				t.Errorf("regions %q default %q, want %q %q", c.Regions(), c.DefaultRegion(), tt.wantRegions, tt.wantDefault)
			}

			if c.ServiceUserID() != fakeUserID {
				t.Errorf("service user %q", c.ServiceUserID())
			}
		})
	}
}

func TestCatalogAndResolveRegion(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices, "RegionTwo": allServices, "Unserved": allServices})

	c, err := newTestClient(t, f, func(c *Config) { c.Regions = []string{"RegionTwo", "RegionOne"}; c.Region = "RegionOne" })
	if err != nil {
		t.Fatal(err)
	}

	cat := c.Catalog()
	if len(cat) != 2 || cat[0].Name != "RegionTwo" || cat[1].Name != "RegionOne" {
		t.Fatalf("catalog regions: %+v", cat)
	}

	var types []string
	for _, svc := range cat[0].Services {
		types = append(types, svc.Type)

		if svc.Type == "identity" {
			continue
		}

		if len(svc.Endpoints) != 2 || svc.Endpoints[0].Interface != "internal" || svc.Endpoints[1].Interface != "public" {
			t.Errorf("%s endpoints: %+v", svc.Type, svc.Endpoints)
		}
	}

	if want := []string{"block-storage", "compute", "identity", "image", "load-balancer", "network"}; !slices.Equal(types, want) {
		t.Errorf("services %q, want %q (sorted)", types, want)
	}

	cat[0].Services[0].Type = "mutated"
	if c.Catalog()[0].Services[0].Type == "mutated" {
		t.Error("Catalog() exposes its internal slice")
	}

	for _, tc := range []struct{ in, want, err string }{
		{"", "RegionOne", ""},
		{"RegionTwo", "RegionTwo", ""},
		{"Unserved", "", `region "Unserved" is not served by this provider (served regions: RegionTwo, RegionOne)`},
	} {
		got, err := c.ResolveRegion(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("ResolveRegion(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestAuthFailureNeverShowsThePassword(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	tests := []struct {
		name     string
		password string
		mutate   func(*Config)
		wantUser string
	}{
		{"wrong password by user name", "wrong-" + fakePassword, nil, "svc@Default"},
		{"wrong password by user ID", fakePassword + "-wrong", func(c *Config) {
			c.UserName, c.UserDomainName, c.UserID, c.ProjectDomainID = "", "", "someone", "default"
		}, "someone"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			_, err := newTestClient(t, f, func(c *Config) {
				c.Password = tt.password
				if tt.mutate != nil {
					tt.mutate(c)
				}
			})

			var authErr *AuthError
			if !errors.As(err, &authErr) {
				t.Fatalf("want *AuthError, got %T %v", err, err)
			}

			if authErr.Method != "password" || authErr.AuthURL != f.authURL() || authErr.User != tt.wantUser {
				t.Errorf("auth error fields: %+v", authErr)
			}

			msg := err.Error()
			for _, want := range []string{"password authentication against " + f.authURL(), "for user " + tt.wantUser, "invalid credentials", "401"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}

			// The fake echoes the request body into its 401: nothing printable may keep it.
			printed := []string{msg, fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", authErr.Err), authErr.Err.Error()}
			for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
				printed = append(printed, e.Error())
			}

			var code gophercloud.ErrUnexpectedResponseCode
			if errors.As(err, &code) {
				printed = append(printed, string(code.Body))
			}

			for _, text := range printed {
				if strings.Contains(text, tt.password) {
					t.Fatalf("the password leaked: %s", text)
				}
			}
		})
	}
}

func TestAuthFailureUnreachable(t *testing.T) {
	t.Parallel()

	s, err := resolveSettings(Config{AuthURL: "http://127.0.0.1:1/v3", UserID: "u", Password: fakePassword, Region: "R"})
	if err != nil {
		t.Fatal(err)
	}

	_, err = newClient(t.Context(), s, fastRetryTuning(0, nil))

	var authErr *AuthError
	if !errors.As(err, &authErr) || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), fakePassword) {
		t.Fatalf("want an AuthError naming the URL, got %v", err)
	}
}

func TestConcurrentScopesAuthenticateOnce(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.authDelay = 20 * time.Millisecond

	c, err := newTestClient(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}

	const n = 20

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		sessions = map[*Session]bool{}
		errs     []error
	)

	for i := range n {
		wg.Add(1)

		go func() {
			defer wg.Done()

			project := "p1"
			if i%2 == 1 {
				project = "p2"
			}

			s, err := c.Privileged(t.Context(), project)

			mu.Lock()
			defer mu.Unlock()

			if err != nil {
				errs = append(errs, err)

				return
			}

			sessions[s] = true
		}()
	}

	wg.Wait()

	if len(errs) > 0 {
		t.Fatal(errs)
	}

	if len(sessions) != 2 {
		t.Errorf("want 2 distinct sessions, got %d", len(sessions))
	}

	for _, scope := range []string{"project:p1", "project:p2"} {
		if got := f.posts(scope); got != 1 {
			t.Errorf("%d token requests for %s, want 1", got, scope)
		}
	}

	// The configured project is reused, not re-authenticated.
	s, err := c.Privileged(t.Context(), fakeBaseProject)
	if err != nil || s.ProjectID() != fakeBaseProject || f.posts("project:"+fakeBaseProject) != 1 {
		t.Errorf("base project session: %v %v, %d token requests", s, err, f.posts("project:"+fakeBaseProject))
	}

	if _, err := c.Privileged(t.Context(), ""); err == nil {
		t.Error("empty project ID accepted")
	}
}

func TestServiceClients(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{
		"RegionOne": allServices,
		"RegionTwo": {"compute", "network", "image", "load-balancer", "volumev3"},
	})

	c, err := newTestClient(t, f, func(c *Config) { c.Regions = []string{"RegionOne", "RegionTwo"} })
	if err != nil {
		t.Fatal(err)
	}

	s, err := c.Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	type getter func(string) (*gophercloud.ServiceClient, error)

	tests := []struct {
		name, region, wantPath string
		get                    getter
		wantHeader             map[string]string
	}{
		{"compute default region", "", endpointPath("RegionOne", "compute"), s.Compute,
			map[string]string{"X-OpenStack-Nova-API-Version": "2.88", "OpenStack-API-Version": "compute 2.88"}},
		{"network", "RegionTwo", endpointPath("RegionTwo", "network"), s.Network, nil},
		{"image", "RegionTwo", endpointPath("RegionTwo", "image"), s.Image, nil},
		{"load balancer", "RegionOne", endpointPath("RegionOne", "load-balancer"), s.LoadBalancer,
			map[string]string{"OpenStack-API-Version": "load-balancer 2.22"}},
		{"block storage by block-storage", "RegionOne", endpointPath("RegionOne", "block-storage"), s.BlockStorage, nil},
		{"block storage by volumev3", "RegionTwo", endpointPath("RegionTwo", "volumev3"), s.BlockStorage, nil},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := tt.get(tt.region)
			if err != nil {
				t.Fatal(err)
			}

			if !strings.HasPrefix(sc.Endpoint, f.srv.URL+tt.wantPath) {
				t.Errorf("endpoint %s, want %s", sc.Endpoint, f.srv.URL+tt.wantPath)
			}

			again, _ := tt.get(tt.region)
			if again == sc || again.Endpoint != sc.Endpoint || again.ProviderClient != sc.ProviderClient {
				t.Error("want a fresh copy of the same cached client")
			}

			url := sc.ServiceURL("probe")
			if _, err := sc.Get(t.Context(), url, nil, nil); err != nil {
				t.Fatal(err)
			}

			var last fakeRequest
			for _, r := range f.seen() {
				if strings.HasSuffix(r.Path, "/probe") && strings.HasPrefix(r.Path, tt.wantPath) {
					last = r
				}
			}

			for k, v := range tt.wantHeader {
				if got := last.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}

	if _, err := s.Compute("Elsewhere"); err == nil || !strings.Contains(err.Error(), "RegionOne, RegionTwo") {
		t.Errorf("unserved region: %v", err)
	}

	id, err := s.Keystone()
	if err != nil || id.Endpoint != f.srv.URL+"/v3/" {
		t.Errorf("identity client: %v %v", id, err)
	}
}

func TestReauthenticatesOnceOn401(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	c, err := newTestClient(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}

	s, err := c.Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	compute, err := s.Compute("")
	if err != nil {
		t.Fatal(err)
	}

	// The token expires behind our back: one re-authentication, then the request succeeds.
	f.revokeAll()

	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err != nil {
		t.Fatalf("after reauth: %v", err)
	}

	if got := f.posts("project:p1"); got != 2 {
		t.Errorf("%d token requests for p1, want 2 (initial + one reauth)", got)
	}

	// A service that keeps answering 401 gets exactly one more re-authentication, then an error.
	f.setService(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401}})
	})

	_, err = compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil)
	if err == nil {
		t.Fatal("want an error")
	}

	if got := f.posts("project:p1"); got != 3 {
		t.Errorf("%d token requests for p1, want 3", got)
	}
}

func TestIdentityTrustLookup(t *testing.T) {
	t.Parallel()

	trust := func(id, project string) map[string]any {
		return map[string]any{
			"id": id, "project_id": project, "trustee_user_id": fakeUserID, "trustor_user_id": "identity-user",
			"impersonation": true, "expires_at": nil,
		}
	}

	expired := trust("t-expired", "p1")
	expired["expires_at"] = time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z")

	tests := []struct {
		name      string
		trusts    []map[string]any
		wantTrust string
		wantErr   []string
	}{
		{"none", []map[string]any{trust("t-other", "p2"), expired}, "", []string{"no Keystone trust", fakeUserID, "project p1"}},
		{"one", []map[string]any{trust("t-other", "p2"), trust("t-one", "p1"), expired}, "t-one", nil},
		{"two", []map[string]any{trust("t-a", "p1"), trust("t-b", "p1")}, "", []string{"2 Keystone trusts", "t-a", "t-b", "project p1"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
			f.trusts = tt.trusts

			c, err := newTestClient(t, f, nil)
			if err != nil {
				t.Fatal(err)
			}

			s, err := c.Identity(t.Context(), "p1")
			if tt.wantErr != nil {
				if err == nil {
					t.Fatal("want an error")
				}

				for _, sub := range tt.wantErr {
					if !strings.Contains(err.Error(), sub) {
						t.Errorf("error %q lacks %q", err, sub)
					}
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if s.ProjectID() != "p1" || f.posts("trust:"+tt.wantTrust) != 1 {
				t.Errorf("session %v, %d trust-scoped token requests", s, f.posts("trust:"+tt.wantTrust))
			}

			if again, err := c.Identity(t.Context(), "p1"); err != nil || again != s || f.posts("trust:"+tt.wantTrust) != 1 {
				t.Errorf("identity session not cached: %v %v", again, err)
			}

			defer func() {
				// After ForgetProject the trust is looked up and consumed again.
				c.ForgetProject("p1")

				if again, err := c.Identity(t.Context(), "p1"); err != nil || again == s || f.posts("trust:"+tt.wantTrust) != 2 {
					t.Errorf("after ForgetProject: %v %v, %d trust-scoped token requests", again, err, f.posts("trust:"+tt.wantTrust))
				}
			}()

			// Requests made in the identity scope carry the trust-scoped token.
			compute, err := s.Compute("")
			if err != nil {
				t.Fatal(err)
			}

			if _, err := servers.List(compute, nil).AllPages(t.Context()); err != nil {
				t.Fatal(err)
			}

			seen := f.seen()
			if last := seen[len(seen)-1]; !strings.HasSuffix(last.Path, "/servers/detail") || f.scopeOf(last.Token) != "trust:"+tt.wantTrust {
				t.Errorf("last request %s with a token of scope %q, want the trust scope", last.Path, f.scopeOf(last.Token))
			}
		})
	}
}

func TestManagerScope(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, domain, wantScope, wantErr string
	}{
		{"by name", "managed", "domain:dom-managed-id", ""},
		{"by ID", "dom-managed-id", "domain:dom-managed-id", ""},
		{"unknown", "nowhere", "", `managed domain "nowhere" not found`},
		{"not configured", "", "", "UNIKORN_DOMAIN"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

			c, err := newTestClient(t, f, func(c *Config) { c.Domain = tt.domain })
			if err != nil {
				t.Fatal(err)
			}

			s, err := c.Manager(t.Context())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error %q, got %v", tt.wantErr, err)
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if s.ProjectID() != "" || f.posts(tt.wantScope) != 1 {
				t.Errorf("manager session %v, %d token requests for %s", s, f.posts(tt.wantScope), tt.wantScope)
			}

			if id, _ := c.ManagedDomainID(t.Context()); id != "dom-managed-id" {
				t.Errorf("domain ID %q", id)
			}

			if again, _ := c.Manager(t.Context()); again != s || f.posts(tt.wantScope) != 1 {
				t.Error("manager session not cached")
			}
		})
	}
}

func TestRequestCountAndStrings(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	c, err := newTestClient(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}

	before := c.RequestCount()
	if before != 1 || c.RequestCountByMethod()["POST"] != 1 {
		t.Errorf("after New: %d requests %v, want the one token POST", before, c.RequestCountByMethod())
	}

	s, err := c.Privileged(t.Context(), "p9")
	if err != nil {
		t.Fatal(err)
	}

	net, err := s.Network("")
	if err != nil {
		t.Fatal(err)
	}

	if _, err := net.Get(t.Context(), net.ServiceURL("networks"), nil, nil); err != nil {
		t.Fatal(err)
	}

	if got := c.RequestCount(); got != before+2 {
		t.Errorf("%d requests, want %d", got, before+2)
	}

	if got := c.RequestCountByMethod(); got["GET"] != 1 || got["POST"] != 2 {
		t.Errorf("per method: %v", got)
	}

	for _, text := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(s), fmt.Sprintf("%#v", s)} {
		if strings.Contains(text, fakePassword) || strings.Contains(text, "tok-") {
			t.Errorf("secret printed: %s", text)
		}
	}
}

func TestScopedAuthFailure(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.denied = map[string]bool{"project:no-role": true}

	c, err := newTestClient(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Privileged(t.Context(), "no-role")

	var authErr *AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("want *AuthError, got %v", err)
	}

	want := `password authentication against ` + f.authURL() + ` for user svc@Default scoped to project "no-role" failed: ` +
		`invalid credentials, or the user has no role on that scope (HTTP 401): The request you have made requires authentication.`
	if err.Error() != want {
		t.Errorf("message\n got  %s\n want %s", err, want)
	}

	// A failure is not cached: once the role is granted, the scope works.
	f.mu.Lock()
	f.denied = nil
	f.mu.Unlock()

	if _, err := c.Privileged(t.Context(), "no-role"); err != nil {
		t.Errorf("after the grant: %v", err)
	}
}

func TestRetriesThroughGophercloud(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	var (
		mu    sync.Mutex
		calls = map[string]int{}
	)

	f.setService(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.Method]++
		first := calls[r.Method] == 1
		mu.Unlock()

		if first {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{})

			return
		}

		writeJSON(w, http.StatusAccepted, map[string]any{"server": map[string]any{"id": "s1"}})
	})

	c, err := newTestClient(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}

	s, err := c.Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	compute, err := s.Compute("")
	if err != nil {
		t.Fatal(err)
	}

	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers", "s1"), nil, &gophercloud.RequestOpts{OkCodes: []int{202}}); err != nil {
		t.Errorf("GET after one 503: %v", err)
	}

	_, err = compute.Post(t.Context(), compute.ServiceURL("servers"), map[string]any{"server": map[string]any{}}, nil, nil)
	if !gophercloud.ResponseCodeIs(err, http.StatusServiceUnavailable) {
		t.Errorf("POST: want the 503 unretried, got %v", err)
	}

	mu.Lock()
	defer mu.Unlock()

	for method, want := range map[string]int{"GET": 2, "POST": 1} {
		if got := calls[method]; got != want {
			t.Errorf("%s reached the service %d times, want %d", method, got, want)
		}
	}
}

func TestNewWithTLS(t *testing.T) {
	t.Parallel()

	f := newFakeCloudServer(t, map[string][]string{"RegionOne": allServices}, httptest.NewTLSServer)

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	yes := true

	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"trusted through cacert_file", func(c *Config) { c.CACertFile = caFile }, ""},
		{"insecure", func(c *Config) { c.Insecure = &yes }, ""},
		{"untrusted certificate fails at once", nil, "certificate"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			cfg := f.config()
			if tt.mutate != nil {
				tt.mutate(&cfg)
			}

			// The public constructor, with the default retry tuning.
			c, err := New(t.Context(), cfg)
			if tt.wantErr != "" {
				var authErr *AuthError
				if !errors.As(err, &authErr) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an AuthError about %q, got %v", tt.wantErr, err)
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if c.DefaultRegion() != "RegionOne" || c.RequestCount() != 1 {
				t.Errorf("default region %q after %d requests", c.DefaultRegion(), c.RequestCount())
			}
		})
	}
}

func TestSleepContext(t *testing.T) {
	t.Parallel()

	if err := sleepContext(t.Context(), time.Millisecond); err != nil {
		t.Errorf("sleep: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	if err := sleepContext(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sleep: %v", err)
	}

	if err := sleepContext(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("zero sleep on a cancelled context: %v", err)
	}
}
