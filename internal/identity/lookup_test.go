package identity

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// lookupMeta is the provider's client bundle as the package sees it, over a fake cloud.
type lookupMeta struct{ c *cloud.Client }

func (m lookupMeta) Cloud() *cloud.Client  { return m.c }
func (lookupMeta) IdentityConfig() *Config { return NewConfig(nil) }

// lookUp reads the data source unikorn_identity on c with the configuration attribute attr =
// value.
func lookUp(ctx context.Context, t *testing.T, c *cloud.Client, attr, value string) *datasource.ReadResponse {
	t.Helper()

	ds := NewIdentityLookup()
	cr := &datasource.ConfigureResponse{}
	ds.(datasource.DataSourceWithConfigure).Configure(ctx, datasource.ConfigureRequest{ProviderData: lookupMeta{c}}, cr) //nolint:forcetypeassert // the kit's

	s := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, s)

	for _, secret := range []string{"application_credential_secret", "clouds_yaml", "timeouts"} {
		if _, ok := s.Schema.Attributes[secret]; ok {
			t.Fatalf("the data source exposes %s", secret)
		}
	}

	config := tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
	if d := config.SetAttribute(ctx, path.Root(attr), value); d.HasError() {
		t.Fatal(d)
	}

	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}}
	ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config.Raw}}, resp)

	return resp
}

// The look-up of an identity made elsewhere (unikornCloud: Unikorn's), by ID and by name, shows
// what a refresh of its import shows, and writes nothing.
func TestIdentityLookupShowsAnIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	for _, by := range [][2]string{{"id", "p-1"}, {"name", "foo"}} {
		t.Run(by[0], func(t *testing.T) {
			t.Parallel()

			f, c, _ := unikornCloud(t)
			ctx := instant(t)

			resp := lookUp(ctx, t, c, by[0], by[1])
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}

			if got := mutations(f); len(got) > 0 {
				t.Fatalf("a look-up wrote: %v", got)
			}

			want := map[string]string{
				"id": "p-1", "project_id": "p-1", "name": "foo", "user_id": "u-1", "application_credential_id": "ac-u",
				"organization_id": "org-u", "unikorn_project_id": "proj-u", "server_group_id": "sg-u",
				"keypair_name": "unikorn-openstack-provider", "ssh_public_key": unikornKey,
			}

			for attr, w := range want {
				var got types.String
				if d := resp.State.GetAttribute(ctx, path.Root(attr), &got); d.HasError() || got.ValueString() != w {
					t.Errorf("%s = %s (%v), want %q", attr, got, d, w)
				}
			}

			var made types.Bool
			if resp.State.GetAttribute(ctx, path.Root("made_by_provider"), &made); made.ValueBool() || made.IsNull() {
				t.Errorf("made_by_provider = %s, want false", made)
			}
		})
	}
}

// A look-up of an ID that is no project is refused with the kit's "No identity found".
func TestIdentityLookupMissing(t *testing.T) {
	t.Parallel()

	f, c, _ := unikornCloud(t)
	f.Reply("GET", "/v3/projects/p-2", 404, map[string]any{"error": map[string]any{"code": 404}})

	resp := lookUp(instant(t), t, c, "id", "p-2")
	if !resp.Diagnostics.HasError() || resp.Diagnostics.Errors()[0].Summary() != "No identity found" {
		t.Fatalf("diagnostics %v, want No identity found", resp.Diagnostics)
	}
}
