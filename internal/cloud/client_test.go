package cloud

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestCatalogAndResolveRegion(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices, "RegionTwo": allServices, "Unserved": allServices})

	c := mustClient(t, f, func(c *Config) { c.Regions = []string{"RegionTwo", "RegionOne"}; c.Region = "RegionOne" })

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

func TestServiceClients(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{
		"RegionOne": allServices,
		"RegionTwo": {"compute", "network", "image", "load-balancer", "volumev3"},
	})
	headers := f.serviceHeaders()

	c := mustClient(t, f, func(c *Config) { c.Regions = []string{"RegionOne", "RegionTwo"} })

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
			sc := mustService(t, tt.get, tt.region)

			if !strings.HasPrefix(sc.Endpoint, f.url+tt.wantPath) {
				t.Errorf("endpoint %s, want %s", sc.Endpoint, f.url+tt.wantPath)
			}

			again, _ := tt.get(tt.region)
			if again == sc || again.Endpoint != sc.Endpoint || again.ProviderClient != sc.ProviderClient {
				t.Error("want a fresh copy of the same cached client")
			}

			if _, err := sc.Get(t.Context(), sc.ServiceURL("probe"), nil, nil); err != nil {
				t.Fatal(err)
			}

			seen := headers(tt.wantPath + "/probe")
			if len(seen) != 1 {
				t.Fatalf("%d probes reached %s, want 1", len(seen), tt.wantPath)
			}

			for k, v := range tt.wantHeader {
				if got := seen[0].Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}

	if _, err := s.Compute("Elsewhere"); err == nil || !strings.Contains(err.Error(), "RegionOne, RegionTwo") {
		t.Errorf("unserved region: %v", err)
	}

	id, err := s.Keystone()
	if err != nil || id.Endpoint != f.url+"/v3/" {
		t.Errorf("identity client: %v %v", id, err)
	}
}

func TestRequestCountAndStrings(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	c := mustClient(t, f, nil)

	before := c.RequestCount()
	if before != 1 || c.RequestCountByMethod()["POST"] != 1 {
		t.Errorf("after New: %d requests %v, want the one token POST", before, c.RequestCountByMethod())
	}

	s, err := c.Privileged(t.Context(), "p9")
	if err != nil {
		t.Fatal(err)
	}

	net := mustService(t, s.Network, "")

	if _, err := net.Get(t.Context(), net.ServiceURL("networks"), nil, nil); err != nil {
		t.Fatal(err)
	}

	if got := c.RequestCount(); got != before+2 {
		t.Errorf("%d requests, want %d", got, before+2)
	}

	if got := c.RequestCountByMethod(); got["GET"] != 1 || got["POST"] != 2 {
		t.Errorf("per method: %v", got)
	}

	ks, err := s.Keystone()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := ks.Get(t.Context(), ks.ServiceURL("domains", "no-such-domain"), nil, nil); err == nil {
		t.Fatal("GET of an unknown domain: no error")
	}

	if got := []int64{c.RefusedCount(http.MethodGet), c.RefusedCount(http.MethodPost), c.RefusedCount("BREW")}; got[0] != 1 || got[1] != 0 || got[2] != 0 {
		t.Errorf("refused GET, POST, BREW: %v, want [1 0 0]", got)
	}

	for _, text := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(s), fmt.Sprintf("%#v", s)} {
		if strings.Contains(text, fakePassword) || strings.Contains(text, "tok-") {
			t.Errorf("secret printed: %s", text)
		}
	}
}

// newFakeCloudTLS serves the fake over TLS (unrecorded) and returns the server's certificate.
func newFakeCloudTLS(t *testing.T, catalog map[string][]string) (*fakeCloud, *x509.Certificate) {
	t.Helper()

	f := newFakeKeystone(catalog)
	srv := httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.url = srv.URL

	return f, srv.Certificate()
}

func TestNewWithTLS(t *testing.T) {
	t.Parallel()

	f, cert := newFakeCloudTLS(t, map[string][]string{"RegionOne": allServices})

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
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
