package adapter

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// fakeResource is a resource written on the kit, regional or not: Create records
// `id` (and `region`), Read removes the resource when gone is set, ImportState records the ID
// it was asked for.
type fakeResource struct {
	regional bool
	gone     bool
	imported string
}

func (f *fakeResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "unikorn_fake"
}

func (f *fakeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}
	if f.regional {
		resp.Schema.Attributes["region"] = schema.StringAttribute{Optional: true, Computed: true}
	}
}

func (f *fakeResource) Create(ctx context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.SetAttribute(ctx, path.Root("id"), "id-1")

	if f.regional {
		resp.State.SetAttribute(ctx, path.Root("region"), "RegionTwo")
	}
}

func (f *fakeResource) Read(ctx context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	if f.gone {
		resp.State.RemoveResource(ctx)
	}
}

func (f *fakeResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (f *fakeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
func (f *fakeResource) Configure(context.Context, resource.ConfigureRequest, *resource.ConfigureResponse) {
}

func (f *fakeResource) ModifyPlan(context.Context, resource.ModifyPlanRequest, *resource.ModifyPlanResponse) {
}

func (f *fakeResource) ImportState(_ context.Context, req resource.ImportStateRequest, _ *resource.ImportStateResponse) {
	f.imported = req.ID
}

// fakeData is a state (or identity) of type typ holding values, the rest null.
func fakeData(typ tftypes.Type, values map[string]string) tftypes.Value {
	obj, _ := typ.(tftypes.Object)
	attrs := map[string]tftypes.Value{}

	for name := range obj.AttributeTypes {
		attrs[name] = tftypes.NewValue(tftypes.String, nil)
		if v, ok := values[name]; ok {
			attrs[name] = tftypes.NewValue(tftypes.String, v)
		}
	}

	return tftypes.NewValue(typ, attrs)
}

// identityOf reads the identity's attributes.
func identityOf(ctx context.Context, t *testing.T, id *tfsdk.ResourceIdentity) map[string]string {
	t.Helper()

	out := map[string]string{}

	for name := range id.Schema.GetAttributes() {
		var v types.String
		if d := id.GetAttribute(ctx, path.Root(name), &v); d.HasError() {
			t.Fatal(d)
		}

		if !v.IsNull() {
			out[name] = v.ValueString()
		}
	}

	return out
}

func TestWithIdentity(t *testing.T) {
	t.Parallel()

	for _, regional := range []bool{false, true} {
		ctx := context.Background()
		fake := &fakeResource{regional: regional}
		r := WithIdentity(fake)

		var s resource.SchemaResponse

		r.Schema(ctx, resource.SchemaRequest{}, &s)

		var is resource.IdentitySchemaResponse

		r.(resource.ResourceWithIdentity).IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &is) //nolint:forcetypeassert // WithIdentity's

		if _, ok := is.IdentitySchema.Attributes["region"]; ok != regional {
			t.Errorf("regional %v: identity schema %v", regional, is.IdentitySchema.Attributes)
		}

		stateType, identityType := s.Schema.Type().TerraformType(ctx), is.IdentitySchema.Type().TerraformType(ctx)
		null := func() *tfsdk.ResourceIdentity {
			return &tfsdk.ResourceIdentity{Schema: is.IdentitySchema, Raw: tftypes.NewValue(identityType, nil)}
		}

		// Create records the identity from the state.
		created := resource.CreateResponse{State: tfsdk.State{Schema: s.Schema, Raw: fakeData(stateType, nil)}, Identity: null()}
		r.Create(ctx, resource.CreateRequest{}, &created)

		want := map[string]string{"id": "id-1"}
		if regional {
			want["region"] = "RegionTwo"
		}

		if got := identityOf(ctx, t, created.Identity); len(got) != len(want) || got["id"] != want["id"] || got["region"] != want["region"] {
			t.Errorf("regional %v: identity after create %v, want %v", regional, got, want)
		}

		// A Read that finds the object gone still answers the identity it had.
		fake.gone = true
		prior := tfsdk.State{Schema: s.Schema, Raw: fakeData(stateType, want)}
		read := resource.ReadResponse{State: prior, Identity: null()}
		r.Read(ctx, resource.ReadRequest{State: prior}, &read)

		if got := identityOf(ctx, t, read.Identity); got["id"] != "id-1" {
			t.Errorf("regional %v: identity after a read that found it gone %v", regional, got)
		}

		// An import by identity is the import of REGION/ID (or ID).
		identity := &tfsdk.ResourceIdentity{Schema: is.IdentitySchema, Raw: fakeData(identityType, want)}
		r.(resource.ResourceWithImportState).ImportState(ctx, resource.ImportStateRequest{Identity: identity}, //nolint:forcetypeassert // WithIdentity's
			&resource.ImportStateResponse{})

		wantID := "id-1"
		if regional {
			wantID = "RegionTwo/id-1"
		}

		if fake.imported != wantID {
			t.Errorf("regional %v: import by identity imported %q, want %q", regional, fake.imported, wantID)
		}
	}
}

// The identity schema's attributes are described.
func TestIdentityAttributes(t *testing.T) {
	t.Parallel()

	for name, a := range IdentityAttributes(true) {
		if a.(identityschema.StringAttribute).Description == "" { //nolint:forcetypeassert // all strings
			t.Errorf("identity attribute %s has no description", name)
		}
	}
}
