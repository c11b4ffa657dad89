package project

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// lookupMeta is the provider's client bundle as the package sees it, over a fake cloud.
type lookupMeta struct{ c *cloud.Client }

func (m lookupMeta) Cloud() *cloud.Client           { return m.c }
func (lookupMeta) IdentityConfig() *identity.Config { return identity.NewConfig(nil) }

// TestProjectLookup reads the data source unikorn_project on the fake Keystone: a project made
// by hand (no mark) is shown as an import shows it, by ID and by name in its domain, with null
// quotas and without writing anything; one of Keystone's Default domain is refused.
func TestProjectLookup(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	k, c := newKeystone(t, api)
	k.put("projects", object("p-1", "team", naming.Mark{}, "team=a"))
	admin := object("p-admin", "admin", naming.Mark{})
	admin["domain_id"] = "default"
	k.put("projects", admin)

	ctx := cloud.WithSleeper(context.Background(), cloudtest.Instant)

	for _, config := range []map[string]string{{"id": "p-1"}, {"name": "team", "domain_id": managedDomain}} {
		resp := lookUp(ctx, t, c, config)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%v: %v", config, resp.Diagnostics)
		}

		for attr, want := range map[string]string{"id": "p-1", "name": "team", "domain_id": managedDomain, "user_domain_id": managedDomain} {
			var got types.String
			if resp.State.GetAttribute(ctx, path.Root(attr), &got); got.ValueString() != want {
				t.Errorf("%v: %s = %s, want %q", config, attr, got, want)
			}
		}

		var quotas types.Object
		if resp.State.GetAttribute(ctx, path.Root("quotas"), &quotas); !quotas.IsNull() {
			t.Errorf("%v: quotas = %s, want null (a project made by hand)", config, quotas)
		}
	}

	if w := keystoneWrites(api); len(w) > 0 {
		t.Fatalf("a look-up wrote: %v", w)
	}

	resp := lookUp(ctx, t, c, map[string]string{"id": "p-admin"})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "Default domain") {
		t.Fatalf("a project of the Default domain: %v, want a refusal", resp.Diagnostics)
	}
}

// lookUp reads the data source unikorn_project on c with the configuration attrs.
func lookUp(ctx context.Context, t *testing.T, c *cloud.Client, attrs map[string]string) *datasource.ReadResponse {
	t.Helper()

	ds := NewProjectLookup()
	cr := &datasource.ConfigureResponse{}
	ds.(datasource.DataSourceWithConfigure).Configure(ctx, datasource.ConfigureRequest{ProviderData: lookupMeta{c}}, cr) //nolint:forcetypeassert // the kit's

	s := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, s)

	null := tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)
	config := tfsdk.State{Schema: s.Schema, Raw: null}

	for a, v := range attrs {
		if d := config.SetAttribute(ctx, path.Root(a), v); d.HasError() {
			t.Fatal(d)
		}
	}

	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: null}}
	ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config.Raw}}, resp)

	return resp
}
