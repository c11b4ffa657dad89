package adapter

// List resources (Terraform 1.14 and later: `list` blocks in .tfquery.hcl files, run by
// `terraform query`): every resource kind can be listed, so that an operator finds what exists
// in the cloud but in no state file and generates the configuration that imports it. A result
// carries the object's resource identity, a display name and, when asked for, the full
// resource, read by the resource's own Read exactly as after an import. A concept says only how
// its objects are listed (TenantList, GlobalList).

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// IdentityLister is what list resources need of the provider's client bundle: the cloud, and
// the identities of the managed domain (the projects tenant objects are listed in).
type IdentityLister interface {
	Meta
	ListIdentities(ctx context.Context) ([]cloud.Located, error)
}

// TenantLister lists the objects of a tenant kind in the project of identity identityID in
// region; Located.Name is the user-given name.
type TenantLister func(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error)

// GlobalLister lists the objects of a global kind.
type GlobalLister func(ctx context.Context, m IdentityLister) ([]cloud.Located, error)

// RegionalLister lists the objects of a regional admin kind (a region's own objects: flavors,
// images, provider networks) in region.
type RegionalLister func(ctx context.Context, c *cloud.Client, region string) ([]cloud.Located, error)

// summaryList is the summary of every failure of a list.
const summaryList = "Error listing"

// TenantList is the list resource of the tenant resource newResource: its objects in the
// project of `identity_id` (every identity's when unset) in `region` (every served region when
// unset).
func TenantList(newResource func() resource.Resource, lister TenantLister) func() list.ListResource {
	return func() list.ListResource { return &listResource{newResource: newResource, tenant: lister} }
}

// GlobalList is the list resource of the global resource newResource.
func GlobalList(newResource func() resource.Resource, lister GlobalLister) func() list.ListResource {
	return func() list.ListResource { return &listResource{newResource: newResource, global: lister} }
}

// RegionalList is the list resource of the regional admin resource newResource: its objects in
// `region` (every served region when unset).
func RegionalList(newResource func() resource.Resource, lister RegionalLister) func() list.ListResource {
	return func() list.ListResource { return &listResource{newResource: newResource, regional: lister} }
}

var _ list.ListResourceWithConfigure = (*listResource)(nil)

type listResource struct {
	newResource func() resource.Resource
	tenant      TenantLister
	global      GlobalLister
	regional    RegionalLister

	providerData any
	meta         IdentityLister
}

// listQuery is the configuration of a tenant kind's list block.
type listQuery struct {
	IdentityID types.String `tfsdk:"identity_id"`
	Region     types.String `tfsdk:"region"`
}

// regionQuery is the configuration of a regional admin kind's list block.
type regionQuery struct {
	Region types.String `tfsdk:"region"`
}

// listed is one object found, with its region ("" for a global one).
type listed struct {
	cloud.Located

	region string
}

// resource is the managed resource listed, with its identity, configured like the provider's.
func (l *listResource) resource(ctx context.Context, diags *diag.Diagnostics) resource.Resource {
	r := WithIdentity(l.newResource())

	if l.providerData != nil {
		var resp resource.ConfigureResponse

		r.(resource.ResourceWithConfigure).Configure(ctx, resource.ConfigureRequest{ProviderData: l.providerData}, &resp) //nolint:forcetypeassert // WithIdentity's
		diags.Append(resp.Diagnostics...)
	}

	return r
}

// Metadata names the list resource after its managed resource.
func (l *listResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	l.newResource().Metadata(ctx, req, resp)
}

// Configure keeps the provider's client bundle.
func (l *listResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := ProviderData[IdentityLister](req.ProviderData, &resp.Diagnostics); ok {
		l.providerData, l.meta = req.ProviderData, m
	}
}

func (l *listResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	region := schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "List only in this region. Default: in every region the provider serves.",
	}

	switch {
	case l.regional != nil:
		resp.Schema = schema.Schema{
			MarkdownDescription: "Lists the objects of the kind in the served regions.",
			Attributes:          map[string]schema.Attribute{"region": region},
		}
	case l.tenant != nil:
		resp.Schema = schema.Schema{
			MarkdownDescription: "Lists the objects of the kind in the identities' projects, in the served regions.",
			Attributes: map[string]schema.Attribute{
				"identity_id": schema.StringAttribute{
					Optional:            true,
					MarkdownDescription: "List only in the project of this `unikorn_identity`. Default: in every identity's project of the managed domain.",
				},
				"region": region,
			},
		}
	default:
		resp.Schema = schema.Schema{MarkdownDescription: "Lists every object of the kind that the provider can see."}
	}
}

// List finds the objects, then streams them, each with its identity, display name and, when
// asked for, the full resource.
func (l *listResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics

	// The deadline covers the listing and the streaming of the results (each one's Read).
	ctx, cancel := context.WithTimeout(ctx, Deadline)

	found := l.find(ctx, req.Config, &diags)
	if diags.HasError() {
		cancel()

		stream.Results = list.ListResultsStreamDiagnostics(diags)

		return
	}

	stream.Results = func(push func(list.ListResult) bool) {
		defer cancel()

		for i, f := range found {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}

			if !push(l.result(ctx, req, f)) {
				return
			}
		}
	}
}

// find lists the objects the query asks for.
func (l *listResource) find(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) []listed {
	if l.meta == nil {
		diags.AddError(summaryList, "The provider is not configured.")
		return nil
	}

	c := l.meta.Cloud()

	switch {
	case l.regional != nil:
		q, ok := Get[regionQuery](ctx, config, diags)
		if !ok {
			return nil
		}

		var out []listed

		for _, region := range listRegions(c, q.Region, diags) {
			found, err := l.regional(ctx, c, region)
			if err != nil {
				diags.AddError(summaryList, fmt.Sprintf("in region %s: %s", region, err))
				return nil
			}

			out = append(out, listedIn(region, found)...)
		}

		return out
	case l.tenant == nil:
		all, err := l.global(ctx, l.meta)
		if err != nil {
			diags.AddError(summaryList, err.Error())
		}

		return listedIn("", all)
	}

	q, ok := Get[listQuery](ctx, config, diags)
	if !ok {
		return nil
	}

	regions := listRegions(c, q.Region, diags)
	if diags.HasError() {
		return nil
	}

	identities := []string{q.IdentityID.ValueString()}
	if q.IdentityID.IsNull() {
		all, err := l.meta.ListIdentities(ctx)
		if err != nil {
			diags.AddError(summaryList, "listing the identities: "+err.Error())
			return nil
		}

		identities = identities[:0]
		for _, i := range all {
			identities = append(identities, i.ID)
		}
	}

	var out []listed

	for _, id := range identities {
		for _, region := range regions {
			found, err := l.tenant(ctx, c, id, region)
			if err != nil {
				diags.AddError(summaryList, fmt.Sprintf("in identity %s, region %s: %s", id, region, err))
				return nil
			}

			out = append(out, listedIn(region, found)...)
		}
	}

	return out
}

// listRegions are the regions a list block asks for: region, or every served region when it is
// null. An unknown region is an error on the attribute (and no region).
func listRegions(c *cloud.Client, region types.String, diags *diag.Diagnostics) []string {
	if region.IsNull() {
		return c.Regions()
	}

	resolved, err := c.ResolveRegion(region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), "Invalid region", err.Error())
		return nil
	}

	return []string{resolved}
}

// listedIn are the objects found in region.
func listedIn(region string, all []cloud.Located) []listed {
	out := make([]listed, len(all))
	for i, l := range all {
		out[i] = listed{Located: l, region: region}
	}

	return out
}

// result is the list result of f.
func (l *listResource) result(ctx context.Context, req list.ListRequest, f listed) list.ListResult {
	res := req.NewListResult(ctx)

	res.DisplayName = f.Name
	if f.Name == "" { // an object without a name (a federation) shows its ID
		res.DisplayName = f.ID
	}

	if f.region != "" {
		res.DisplayName = fmt.Sprintf("%s (%s)", res.DisplayName, f.region)
	}

	identity := map[string]string{"id": f.ID}
	if f.region != "" {
		identity["region"] = f.region
	}

	for _, attr := range slices.Sorted(maps.Keys(identity)) {
		res.Diagnostics.Append(res.Identity.SetAttribute(ctx, path.Root(attr), identity[attr])...)
	}

	if !req.IncludeResource || res.Diagnostics.HasError() {
		return res
	}

	// The full resource: the state an import of the object has, refreshed by Read.
	state := tfsdk.State{Schema: req.ResourceSchema, Raw: tftypes.NewValue(req.ResourceSchema.Type().TerraformType(ctx), nil)}
	attributes := req.ResourceSchema.GetAttributes()

	for attr, value := range importedAttributes(f.Located, f.region) {
		if _, ok := attributes[attr]; ok {
			res.Diagnostics.Append(state.SetAttribute(ctx, path.Root(attr), value)...)
		}
	}

	r := l.resource(ctx, &res.Diagnostics)
	if res.Diagnostics.HasError() {
		return res
	}

	read := resource.ReadResponse{State: state, Identity: res.Identity}
	r.Read(ctx, resource.ReadRequest{State: state, Identity: res.Identity}, &read)

	// A list has no private state to keep: what Read would record there is dropped.
	for _, d := range read.Diagnostics {
		if d.Summary() != "Uninitialized ProviderData" {
			res.Diagnostics.Append(d)
		}
	}

	res.Resource = &tfsdk.Resource{Schema: read.State.Schema, Raw: read.State.Raw}

	return res
}

// importedAttributes are the attributes an import of loc in region sets: `id`, `name` (when
// it has one), `region` (regional) and the owner, `identity_id` or `project_id` (tenant).
func importedAttributes(loc cloud.Located, region string) map[string]string {
	attrs := map[string]string{"id": loc.ID}

	if loc.Name != "" { // an object without a name (a federation) has no such attribute
		attrs["name"] = loc.Name
	}

	if region == "" {
		return attrs
	}

	attrs["region"] = region

	switch {
	case loc.ProjectID == "": // a region's own object (flavor, image)
	case loc.InProject: // in a unikorn_project's project
		attrs["project_id"] = loc.ProjectID
	default: // in an identity's project
		attrs["identity_id"] = loc.ProjectID
	}

	return attrs
}
