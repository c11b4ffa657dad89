package image

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	// ImageCache is the image listing shared by every image data source of
	// the provider process.
	ImageCache() *Cache
}

// model is what unikorn_images and unikorn_image have in common: the filters and scope, and
// a result made of the images that match them.
type model interface {
	filters() *filterModel
	// keep records the result of the selection.
	keep(ctx context.Context, sel selection, diags *diag.Diagnostics)
}

// selection is what both image data sources make their result of.
type selection struct {
	region   string
	matches  []Image    // oldest → newest
	rejected []Rejected // by name
}

// dataSource is the one shape of the image data sources: read the configured filters,
// select the region's classified images from the shared listing (each matching rejected
// image raising a warning), let the model keep its result. M is the model, P its pointer
// type (which implements model).
type dataSource[M any, P interface {
	*M
	model
}] struct {
	adapter.DataSourceBase[meta]

	schema schema.Schema
}

var (
	_ datasource.DataSourceWithConfigure = (*dataSource[imagesModel, *imagesModel])(nil)
	_ datasource.DataSourceWithConfigure = (*dataSource[singleImageModel, *singleImageModel])(nil)
)

// newDataSource is the data source unikorn_<typeName>: the filters, `rejected` and
// attributes.
func newDataSource[M any, P interface {
	*M
	model
}](typeName, description string, attributes map[string]schema.Attribute) *dataSource[M, P] {
	all := filterAttributes()
	all["rejected"] = rejectedAttribute()
	maps.Copy(all, attributes)

	return &dataSource[M, P]{
		DataSourceBase: adapter.NewDataSourceBase[meta](adapter.Kind{TypeName: typeName, Noun: "image"}),
		schema:         schema.Schema{MarkdownDescription: description, Attributes: all},
	}
}

func (d *dataSource[M, P]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

func (d *dataSource[M, P]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !d.Configured() {
		resp.Diagnostics.AddError("Error reading images", "The provider is not configured.")
		return
	}

	data, ok := adapter.Get[M](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_"+d.Kind().TypeName)

	if sel, ok := P(&data).filters().selectImages(ctx, d.Meta, &resp.Diagnostics); ok {
		P(&data).keep(ctx, sel, &resp.Diagnostics)
	}

	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
	}
}

// selectImages resolves the region (and records it in the model), gets the region's
// classified images from the shared cache and returns those that match, with the matching
// rejected images, each raising a warning; false on failure (the diagnostics say why).
func (f *filterModel) selectImages(ctx context.Context, m meta, diags *diag.Diagnostics) (selection, bool) {
	c := m.Cloud()

	region, err := c.ResolveRegion(f.Region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), adapter.SummaryRegionNotServed, err.Error())
		return selection{}, false
	}

	f.Region = types.StringValue(region)
	ctx = tflog.SetField(ctx, "region", region)

	filter, d := f.filter(ctx)
	if diags.Append(d...); diags.HasError() {
		return selection{}, false
	}

	organizationID := f.OrganizationID.ValueString()

	var listing Listing

	imageClient, err := c.Base().Image(region)
	if err == nil {
		listing, err = m.ImageCache().Images(ctx, region, organizationID, imageClient)
	}

	if err != nil {
		diags.AddError("Error listing images", fmt.Sprintf("region %s: %s", region, err))
		return selection{}, false
	}

	sel := selection{region: region}

	sel.matches, err = Select(listing.Images, filter)
	if err == nil {
		sel.rejected, err = SelectRejected(listing.Rejected, filter)
	}

	if err != nil {
		diags.AddAttributeError(path.Root("package"), "Invalid package constraint", err.Error())
		return selection{}, false
	}

	diags.Append(rejectionWarnings(region, sel.rejected)...)

	tflog.Debug(ctx, "Selected images", map[string]any{
		"organization_id": organizationID,
		"images":          len(listing.Images),
		"matches":         len(sel.matches),
		"rejected":        len(sel.rejected),
	})

	return sel, true
}

// rejectionWarnings is one warning per rejected image, named in the summary so that the CLI
// does not fold them into one.
func rejectionWarnings(region string, rejected []Rejected) diag.Diagnostics {
	var diags diag.Diagnostics

	for _, r := range rejected {
		diags.AddWarning(fmt.Sprintf("Image %q left out", r.Name),
			fmt.Sprintf("Image %q (%s) in region %s matches the filters but was left out: %s", r.Name, r.ID, region, r.Reason))
	}

	return diags
}

// filterAttributes are the filters (and the scope) both image data sources take.
func filterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images for this CPU architecture: `x86_64` or `aarch64` (Glance's `architecture` property, normalised: `amd64` is `x86_64`, `arm64` is `aarch64`, unset is `x86_64`).",
			Validators:          []validator.String{stringvalidator.OneOf(ArchitectureX86_64, ArchitectureAarch64)},
		},
		"gpu_model": text("Only images with GPU support for this model (one of `gpu.models`), e.g. `H100`."),
		"gpu_vendor": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images with GPU support from this vendor: `AMD` or `NVIDIA`.",
			Validators:          []validator.String{stringvalidator.OneOf(GPUVendors()...)},
		},
		"name": text("Only images of exactly this name."),
		"organization_id": text("Also include the images of this organization (`unikorn:organization:id`), whatever their visibility. " +
			"Organization images are exempt from the signature check. Unset: public images only."),
		"os_distro":  text("Only images of this distribution (`os.distro`), e.g. `ubuntu`."),
		"os_version": text("Only images of this distribution version (`os.version`), e.g. `24.04`."),
		"package": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Only images with this package, optionally constrained by a semantic version constraint: " +
				"`kubernetes`, `kubernetes >= 1.30`, `slurmd ~1.2`, `kubernetes >= 1.29, < 1.31`. Versions such as `v1.30.2` " +
				"compare as semantic versions; a pre-release only matches a constraint that names one.",
			Validators: []validator.String{PackageConstraint()},
		},
		"region": schema.StringAttribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "Region whose images are listed. Default: the provider's `region`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"status": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images in this state: `pending`, `creating`, `ready` or `failed`.",
			Validators:          []validator.String{stringvalidator.OneOf(Statuses()...)},
		},
		"tags": schema.MapAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Only images that carry every one of these tags (`unikorn:tag:<key>` = value); they may carry more.",
			Validators:          []validator.Map{mapvalidator.KeysAre(stringvalidator.LengthAtLeast(1))},
		},
		"virtualization": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Only images that can run this way: `virtualized`, `baremetal` or `any`. An image built for `any` " +
				"matches every value.",
			Validators: []validator.String{stringvalidator.OneOf(Virtualizations()...)},
		},
	}
}

// text is an optional free-text filter: not empty.
func text(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: description,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// filterModel holds the filters and scope both image data sources take.
type filterModel struct {
	Architecture   types.String `tfsdk:"architecture"`
	GPUModel       types.String `tfsdk:"gpu_model"`
	GPUVendor      types.String `tfsdk:"gpu_vendor"`
	Name           types.String `tfsdk:"name"`
	OrganizationID types.String `tfsdk:"organization_id"`
	OSDistro       types.String `tfsdk:"os_distro"`
	OSVersion      types.String `tfsdk:"os_version"`
	Package        types.String `tfsdk:"package"`
	Region         types.String `tfsdk:"region"`
	Status         types.String `tfsdk:"status"`
	Tags           types.Map    `tfsdk:"tags"`
	Virtualization types.String `tfsdk:"virtualization"`
}

func (f *filterModel) filters() *filterModel { return f }

// filter is the core Filter of the model.
func (f filterModel) filter(ctx context.Context) (Filter, diag.Diagnostics) {
	out := Filter{
		OSDistro:       f.OSDistro.ValueString(),
		OSVersion:      f.OSVersion.ValueString(),
		GPUVendor:      f.GPUVendor.ValueString(),
		GPUModel:       f.GPUModel.ValueString(),
		Virtualization: f.Virtualization.ValueString(),
		Architecture:   f.Architecture.ValueString(),
		Status:         f.Status.ValueString(),
		Package:        f.Package.ValueString(),
		Name:           f.Name.ValueString(),
	}

	var diags diag.Diagnostics

	if !f.Tags.IsNull() {
		diags.Append(f.Tags.ElementsAs(ctx, &out.Tags, false)...)
	}

	return out, diags
}

// objectType is the object type of attributes, taken from the schema so that it always
// matches it.
func objectType(attributes map[string]schema.Attribute) types.ObjectType {
	t := types.ObjectType{AttrTypes: make(map[string]attr.Type, len(attributes))}
	for name, a := range attributes {
		t.AttrTypes[name] = a.GetType()
	}

	return t
}
