package adapter

// Resource identity (Terraform 1.12 and later, OpenTofu 1.12 and later): every resource is
// known to Terraform by `{ region, id }` when it is regional (its schema has `region`) and by
// `{ id }` when it is global, so that `import` blocks can say `identity = { ... }` and the state
// carries a stable identity. The kit gives each resource its identity by wrapping it
// (WithIdentities): the resource itself says nothing of it.

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// kitResource is what every resource of this provider implements.
type kitResource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithModifyPlan
}

var (
	_ kitResource                         = (*identified)(nil)
	_ resource.ResourceWithIdentity       = (*identified)(nil)
	_ resource.ResourceWithValidateConfig = (*identified)(nil)
)

// WithIdentities gives every resource of constructors its resource identity.
func WithIdentities(constructors []func() resource.Resource) []func() resource.Resource {
	out := make([]func() resource.Resource, len(constructors))

	for i, newResource := range constructors {
		out[i] = func() resource.Resource { return WithIdentity(newResource()) }
	}

	return out
}

// WithIdentity gives r (a resource written on the kit) its resource identity: it answers the
// identity schema, records the identity after every Create, Read and Update from the state's
// `id` (and `region`), and turns an import by identity into the import of `REGION/ID` (or
// `ID`) that the resource's ImportState understands.
func WithIdentity(r resource.Resource) resource.Resource {
	kr, ok := r.(kitResource)
	if !ok {
		panic("adapter.WithIdentity: the resource is not written on the kit")
	}

	return &identified{kitResource: kr}
}

// identified is a resource with its identity.
type identified struct {
	kitResource

	once     sync.Once
	regional bool
}

// IdentityAttributes are the identity's attributes: `id`, and `region` for a regional object.
func IdentityAttributes(regional bool) map[string]identityschema.Attribute {
	attrs := map[string]identityschema.Attribute{
		"id": identityschema.StringAttribute{
			RequiredForImport: true,
			Description:       "ID of the object in OpenStack.",
		},
	}

	if regional {
		attrs["region"] = identityschema.StringAttribute{
			OptionalForImport: true,
			Description:       "Region of the object. Default when importing: the provider's `region`.",
		}
	}

	return attrs
}

// isRegional tells whether the resource's schema has `region`.
func (w *identified) isRegional(ctx context.Context) bool {
	w.once.Do(func() {
		var resp resource.SchemaResponse

		w.Schema(ctx, resource.SchemaRequest{}, &resp)
		_, w.regional = resp.Schema.Attributes["region"]
	})

	return w.regional
}

// Metadata names the resource; its identity may change when Read finds the object again by
// name under a new ID (the warning of the re-find says so).
func (w *identified) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	w.kitResource.Metadata(ctx, req, resp)
	resp.ResourceBehavior.MutableIdentity = true
}

func (w *identified) IdentitySchema(ctx context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: IdentityAttributes(w.isRegional(ctx))}
}

func (w *identified) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	w.kitResource.Create(ctx, req, resp)
	w.record(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (w *identified) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	w.kitResource.Read(ctx, req, resp)

	from := resp.State
	if from.Raw.IsNull() { // gone: the identity it had (Terraform wants one even now)
		from = req.State
	}

	w.record(ctx, from, resp.Identity, &resp.Diagnostics)
}

func (w *identified) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	w.kitResource.Update(ctx, req, resp)
	w.record(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

// ImportState imports by identity (an `import` block's `identity`) as by the ID `REGION/ID`
// (regional) or `ID` (global); by ID or name as the resource does.
func (w *identified) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		var id, region types.String

		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root("id"), &id)...)

		if w.isRegional(ctx) {
			resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root("region"), &region)...)
		}

		if resp.Diagnostics.HasError() {
			return
		}

		req.ID = id.ValueString()
		if region.ValueString() != "" {
			req.ID = region.ValueString() + "/" + req.ID
		}
	}

	w.kitResource.ImportState(ctx, req, resp)
}

// ValidateConfig validates as the resource does, when it does.
func (w *identified) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if v, ok := w.kitResource.(resource.ResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

// record sets identity from the `id` (and `region`) of state; nothing while the state has no
// ID (a create that failed before the object existed).
func (w *identified) record(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || state.Raw.IsNull() {
		return
	}

	attrs := []string{"id"}
	if w.isRegional(ctx) {
		attrs = append(attrs, "region")
	}

	for _, attr := range attrs {
		var v types.String

		diags.Append(state.GetAttribute(ctx, path.Root(attr), &v)...)

		if v.IsNull() || v.IsUnknown() {
			return
		}

		diags.Append(identity.SetAttribute(ctx, path.Root(attr), v)...)
	}
}
