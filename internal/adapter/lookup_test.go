package adapter

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// thingModel is the model of thingResource, the resource a look-up of the tests exposes.
type thingModel struct {
	ID       types.String   `tfsdk:"id"`
	Name     types.String   `tfsdk:"name"`
	DomainID types.String   `tfsdk:"domain_id"`
	Secret   types.String   `tfsdk:"secret"`
	Size     types.Int64    `tfsdk:"size"`
	Tags     types.Set      `tfsdk:"tags"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type thingResource struct{ resource.Resource }

func (thingResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{Attributes: map[string]rschema.Attribute{
		"id":        IDAttribute("ID of the thing."),
		"name":      NameAttribute("thing", "Name of the thing."),
		"domain_id": rschema.StringAttribute{Optional: true, MarkdownDescription: "Domain of the thing. Changing it replaces the thing."},
		"secret":    rschema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "Secret."},
		"size": rschema.Int64Attribute{Optional: true, Computed: true,
			MarkdownDescription: "Size in GiB, e.g. 3. Default: 1, e.g. for v1.11. Growing it is done in place. Updated in place."},
		"tags":     rschema.SetAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Tags."},
		"timeouts": TimeoutsAttribute(ctx),
	}}
}

// thing is the model of the thing id called name in domain, as a core fills it: without
// timeouts (the zero value, which the kit makes a null).
func thing(id, name, domain string) thingModel {
	return thingModel{
		ID: types.StringValue(id), Name: types.StringValue(name), DomainID: types.StringValue(domain),
		Secret: types.StringValue("hunter2"), Size: types.Int64Value(3), Tags: types.SetValueMust(types.StringType, nil),
	}
}

// things is a look-up of the things of a catalog held in memory: by ID, and by name in a domain.
func things(all ...thingModel) *LookupDataSource[Meta, thingModel] {
	return NewLookup(Lookup[Meta, thingModel]{
		Kind: Kind{TypeName: "thing", Noun: "thing"}, Description: "Finds a thing.",
		Resource: func() resource.Resource { return thingResource{} },
		Scope:    []string{"domain_id"},
		ByID: func(_ context.Context, _ Meta, _ string, id string) (thingModel, error) {
			for _, t := range all {
				if t.ID.ValueString() == id {
					return t, nil
				}
			}

			return thingModel{}, cloud.NotLocated("thing", id, "the catalog")
		},
		ByName: func(_ context.Context, _ Meta, _ string, scope Scoped, name string) ([]thingModel, error) {
			var out []thingModel

			for _, t := range all {
				if t.Name.ValueString() == name && scope.Attribute == "domain_id" && t.DomainID.ValueString() == scope.Value {
					out = append(out, t)
				}
			}

			return out, nil
		},
	})
}

// lookUp runs Read of ds on the configuration of the given attributes.
func lookUp(t *testing.T, ds *LookupDataSource[Meta, thingModel], config map[string]string) *datasource.ReadResponse {
	t.Helper()

	ctx := context.Background()

	resp := &datasource.ConfigureResponse{}
	ds.Configure(ctx, datasource.ConfigureRequest{ProviderData: nullMeta{}}, resp)

	s := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, s)

	typ := s.Schema.Type().TerraformType(ctx).(tftypes.Object) //nolint:forcetypeassert // a schema's type is an object

	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}

	for name, v := range config {
		values[name] = tftypes.NewValue(tftypes.String, v)
	}

	out := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(typ, nil)}}
	ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: tftypes.NewValue(typ, values)}}, out)

	return out
}

func TestLookupSchema(t *testing.T) {
	t.Parallel()

	s := &datasource.SchemaResponse{}
	things().Schema(context.Background(), datasource.SchemaRequest{}, s)

	for _, name := range []string{"timeouts", "secret", "region"} {
		if _, ok := s.Schema.Attributes[name]; ok {
			t.Errorf("the data source has %s", name)
		}
	}

	for name, optional := range map[string]bool{"id": true, "name": true, "domain_id": true, "size": false, "tags": false} {
		a := s.Schema.Attributes[name]
		if a == nil || !a.IsComputed() || a.IsOptional() != optional || a.IsRequired() {
			t.Errorf("%s = %+v, want computed, optional: %v", name, a, optional)
		}
	}

	if got := s.Schema.Attributes["size"].GetMarkdownDescription(); got != "Size in GiB, e.g. 3. Growing it is done in place." {
		t.Errorf("size's description = %q, want its plan sentence left out", got)
	}

	if got := s.Schema.Attributes["domain_id"].GetMarkdownDescription(); strings.Contains(got, "replaces") {
		t.Errorf("domain_id's description = %q, want its plan sentence left out", got)
	}
}

func TestLookupRead(t *testing.T) {
	t.Parallel()

	ds := things(thing("1", "a", "d1"), thing("2", "b", "d1"), thing("3", "b", "d1"), thing("4", "a", "d2"))

	for _, tc := range []struct {
		name        string
		config      map[string]string
		wantID      string
		wantSummary string
		wantDetail  string
	}{
		{name: "by name in its scope", config: map[string]string{"name": "a", "domain_id": "d2"}, wantID: "4"},
		{name: "by id", config: map[string]string{"id": "2"}, wantID: "2"},
		{name: "by id in its scope", config: map[string]string{"id": "1", "domain_id": "d1"}, wantID: "1"},
		{name: "by id elsewhere", config: map[string]string{"id": "1", "domain_id": "d2"},
			wantSummary: "The thing is elsewhere", wantDetail: `The thing 1 is not in domain_id d2 (its domain_id is "d1").`},
		{name: "an unknown id", config: map[string]string{"id": "9"},
			wantSummary: "No thing found", wantDetail: `no thing with ID or name "9" in region the catalog`},
		{name: "a missing name", config: map[string]string{"name": "c", "domain_id": "d1"},
			wantSummary: "No thing found", wantDetail: `No thing is called "c" in domain_id d1.`},
		{name: "a name of two", config: map[string]string{"name": "b", "domain_id": "d1"},
			wantSummary: "Several things found", wantDetail: "2 match the filters: 2, 3. Give `id` instead of `name`."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			resp := lookUp(t, ds, tc.config)

			if tc.wantSummary != "" {
				assertSummary(t, resp.Diagnostics, tc.wantSummary)

				if len(resp.Diagnostics) == 1 && !strings.Contains(resp.Diagnostics[0].Detail(), tc.wantDetail) {
					t.Errorf("detail = %q, want it to say %q", resp.Diagnostics[0].Detail(), tc.wantDetail)
				}

				return
			}

			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}

			var id, name, domain types.String

			for name, v := range map[string]*types.String{"id": &id, "name": &name, "domain_id": &domain} {
				if d := resp.State.GetAttribute(context.Background(), path.Root(name), v); d.HasError() {
					t.Fatal(d)
				}
			}

			want := map[string]thingModel{"1": thing("1", "a", "d1"), "2": thing("2", "b", "d1"), "4": thing("4", "a", "d2")}[tc.wantID]
			if got := fmt.Sprint(id, name, domain); got != fmt.Sprint(want.ID, want.Name, want.DomainID) {
				t.Errorf("state = %s, want thing %s", got, tc.wantID)
			}
		})
	}
}

func TestLookupNeedsAScopeForAName(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	ds := things()

	s := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, s)

	typ := s.Schema.Type().TerraformType(ctx).(tftypes.Object) //nolint:forcetypeassert // a schema's type is an object

	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}

	values["name"] = tftypes.NewValue(tftypes.String, "a")

	resp := &datasource.ValidateConfigResponse{}
	ds.ValidateConfig(ctx, datasource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: tftypes.NewValue(typ, values)}}, resp)

	assertSummary(t, resp.Diagnostics, "Missing scope of the name")
}
