package provider_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	unikorn "github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// TestVersionReported: the provider's version is the user agent of every OpenStack request
// (Keystone's and a service's) and is in the log line of Configure; a dev build says so.
// Against a fake Keystone and compute on httptest: no CLI, no cloud. (The install tests show
// the same of a released binary against the local cloud, through tools/faultproxy.)
func TestVersionReported(t *testing.T) {
	// Configure falls back to the environment for what the configuration leaves out (the
	// regions, the domain, clouds.yaml): an acceptance shell's must not reach this cloud.
	for _, name := range []string{
		"OS_AUTH_URL", "OS_CACERT", "OS_CLIENT_CONFIG_FILE", "OS_CLOUD", "OS_ENDPOINT_TYPE", "OS_INSECURE", "OS_INTERFACE",
		"OS_PASSWORD", "OS_PROJECT_DOMAIN_ID", "OS_PROJECT_DOMAIN_NAME", "OS_PROJECT_ID", "OS_PROJECT_NAME", "OS_REGION_NAME",
		"OS_TENANT_ID", "OS_TENANT_NAME", "OS_USERNAME", "OS_USER_DOMAIN_ID", "OS_USER_DOMAIN_NAME", "OS_USER_ID",
		"UNIKORN_DOMAIN", "UNIKORN_MAX_RETRIES", "UNIKORN_REGIONS",
	} {
		t.Setenv(name, "")
	}

	for _, tc := range []struct {
		version, note string
	}{
		{version: "1.2.3"},
		{version: "dev", note: "a development build"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			cloud := newVersionCloud(t)

			var logs bytes.Buffer

			ctx := tflogtest.RootLogger(t.Context(), &logs)
			server := providerserver.NewProtocol6(unikorn.New(tc.version)())()

			schema, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}

			config := nullObject(t, schema.Provider.Block, map[string]string{
				"auth_url": cloud.URL + "/v3", "user_name": "svc", "password": "pw", "user_domain_name": "Default",
				"project_name": "service", "project_domain_name": "Default", "region": "RegionOne",
			})

			resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: config})
			if err != nil || hasError(resp.Diagnostics) {
				t.Fatalf("configure: %v %v", err, protoDiagnostics(resp.Diagnostics))
			}

			read, err := server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
				TypeName: "unikorn_flavors",
				Config:   nullObject(t, schema.DataSourceSchemas["unikorn_flavors"].Block, nil),
			})
			if err != nil || hasError(read.Diagnostics) {
				t.Fatalf("read unikorn_flavors: %v %v", err, protoDiagnostics(read.Diagnostics))
			}

			want := "terraform-provider-unikorn/" + tc.version + " "
			agents := cloud.agents()

			if !hasRequest(agents, "POST /v3/auth/tokens") || !hasRequest(agents, "GET /RegionOne/compute/v2.1/flavors/detail") {
				t.Fatalf("want a token request and a flavor listing, got %v", agents)
			}

			for req, ua := range agents {
				if !strings.HasPrefix(ua, want) {
					t.Errorf("%s: User-Agent %q, want it to start %q", req, ua, want)
				}
			}

			entries, err := tflogtest.MultilineJSONDecode(&logs)
			if err != nil {
				t.Fatal(err)
			}

			var line map[string]any

			for _, e := range entries {
				if msg, _ := e["@message"].(string); strings.HasPrefix(msg, "Unikorn provider configured") {
					line = e
				}
			}

			if line == nil || line["version"] != tc.version || line["@level"] != "info" {
				t.Fatalf("no info line \"Unikorn provider configured\" with version %q in %v", tc.version, entries)
			}

			if msg, _ := line["@message"].(string); (tc.note != "") != strings.Contains(msg, "development build") {
				t.Errorf("log line %q: a dev build must say it is one, a release must not", msg)
			}
		})
	}
}

// versionCloud is a Keystone that issues project tokens with a one-region catalog, and
// services that answer every request with an empty listing; it records each request's
// User-Agent.
type versionCloud struct {
	*httptest.Server

	mu   sync.Mutex
	seen map[string]string // "METHOD /path" → User-Agent (the last one)
}

func newVersionCloud(t *testing.T) *versionCloud {
	t.Helper()

	c := &versionCloud{seen: map[string]string{}}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)

	return c
}

func (c *versionCloud) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)

	c.mu.Lock()
	c.seen[r.Method+" "+r.URL.Path] = r.UserAgent()
	c.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")

	if r.Method == http.MethodPost && r.URL.Path == "/v3/auth/tokens" {
		var catalog []map[string]any

		for _, svc := range []string{"identity", "compute", "network", "image", "load-balancer", "block-storage"} {
			url := c.URL + "/RegionOne/" + svc + "/" + map[string]string{
				"identity": "v3", "compute": "v2.1", "network": "v2.0", "image": "v2", "load-balancer": "v2.0", "block-storage": "v3",
			}[svc]
			if svc == "identity" {
				url = c.URL + "/v3"
			}

			catalog = append(catalog, map[string]any{"id": svc, "type": svc, "name": svc, "endpoints": []map[string]any{
				{"id": svc + "-public", "region": "RegionOne", "region_id": "RegionOne", "interface": "public", "url": url},
			}})
		}

		w.Header().Set("X-Subject-Token", "token")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"token": map[string]any{
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"methods":    []string{"password"},
			"user":       map[string]any{"id": "svc-id", "name": "svc", "domain": map[string]any{"id": "default", "name": "Default"}},
			"project":    map[string]any{"id": "service-id", "name": "service", "domain": map[string]any{"id": "default"}},
			"roles":      []map[string]any{{"id": "admin-id", "name": "admin"}},
			"catalog":    catalog,
		}})

		return
	}

	_, _ = w.Write([]byte(`{"flavors": []}`))
}

func (c *versionCloud) agents() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()

	out := map[string]string{}
	for k, v := range c.seen {
		out[k] = v
	}

	return out
}

func hasRequest(agents map[string]string, req string) bool {
	_, ok := agents[req]

	return ok
}

// nullObject is a configuration of block with the given string attributes set and every
// other attribute null.
func nullObject(t *testing.T, block *tfprotov6.SchemaBlock, set map[string]string) *tfprotov6.DynamicValue {
	t.Helper()

	typ, ok := block.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("schema block of type %T", block.ValueType())
	}

	values := map[string]tftypes.Value{}

	for name, attrType := range typ.AttributeTypes {
		if v, ok := set[name]; ok {
			values[name] = tftypes.NewValue(tftypes.String, v)
		} else {
			values[name] = tftypes.NewValue(attrType, nil)
		}
	}

	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}

	return &dv
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}

	return false
}

func protoDiagnostics(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}

	return strings.Join(out, "; ")
}
