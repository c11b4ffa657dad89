package image

import (
	"context"
	"fmt"
	"time"

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
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var _ datasource.DataSourceWithConfigure = (*imagesDataSource)(nil)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
	// ImageCache is the image listing shared by every image data source of
	// the provider process.
	ImageCache() *Cache
}

// NewImagesDataSource is the constructor the provider lists.
func NewImagesDataSource() datasource.DataSource {
	return &imagesDataSource{}
}

type imagesDataSource struct {
	meta meta
}

func (d *imagesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_images"
}

func (d *imagesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attributes := filterAttributes()
	attributes["images"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The images that match every filter, sorted oldest → newest (by `created_at`, then name and ID).",
		NestedObject:        schema.NestedAttributeObject{Attributes: imageAttributes()},
	}
	attributes["rejected"] = rejectedAttribute()

	resp.Schema = schema.Schema{
		MarkdownDescription: "The Glance images of a region that follow the Unikorn image property schema (and, with the provider's " +
			"`image_signing_key`, carry a valid signature), translated into operating system, package and GPU facts and filtered. " +
			"In scope are the public images, plus the images of `organization_id` when it is set. Images that match the filters " +
			"but break the schema or fail the signature check are listed in `rejected`, each with a warning, so that a missing " +
			"image explains itself. All image data sources of a region share one Glance image list per Terraform run.",
		Attributes: attributes,
	}
}

func (d *imagesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		d.meta = m
	}
}

func (d *imagesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before this data source was read. This is a bug in the provider; please report it.")
		return
	}

	var data imagesModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_images")

	sel, diags := data.selectImages(ctx, d.meta)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	data.Images, diags = flattenImages(ctx, sel.matches)
	resp.Diagnostics.Append(diags...)

	data.Rejected, diags = flattenRejected(ctx, sel.rejected)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// filterAttributes are the filters (and the scope) both image data sources take.
func filterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images for this CPU architecture: `x86_64` or `aarch64` (Glance's `architecture` property, normalised: `amd64` is `x86_64`, `arm64` is `aarch64`, unset is `x86_64`).",
			Validators:          []validator.String{stringvalidator.OneOf(ArchitectureX86_64, ArchitectureAarch64)},
		},
		"gpu_model": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images with GPU support for this model (one of `gpu.models`), e.g. `H100`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"gpu_vendor": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images with GPU support from this vendor: `AMD` or `NVIDIA`.",
			Validators:          []validator.String{stringvalidator.OneOf(GPUVendors()...)},
		},
		"name": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images of exactly this name.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"organization_id": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Also include the images of this organization (`unikorn:organization:id`), whatever their visibility. " +
				"Organization images are exempt from the signature check. Unset: public images only.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"os_distro": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images of this distribution (`os.distro`), e.g. `ubuntu`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"os_version": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only images of this distribution version (`os.version`), e.g. `24.04`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
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

// imageAttributes describe one image of a result.
func imageAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "CPU architecture, normalised: `x86_64` or `aarch64` (others as Glance has them, lower-cased).",
		},
		"created_at": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "When the image was created, RFC 3339.",
		},
		"gpu": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The GPU support baked into the image; null for an image without.",
			Attributes: map[string]schema.Attribute{
				"driver_version": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "GPU driver version (`unikorn:gpu_driver_version`).",
				},
				"models": schema.ListAttribute{
					Computed:            true,
					ElementType:         types.StringType,
					MarkdownDescription: "GPU models supported (`unikorn:gpu_models`).",
				},
				"vendor": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "GPU vendor: `AMD` or `NVIDIA` (`unikorn:gpu_vendor`).",
				},
			},
		},
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Glance image ID.",
		},
		"name": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Glance image name.",
		},
		"organization_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The organization that owns the image (`unikorn:organization:id`); null for a public image.",
		},
		"os": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The operating system.",
			Attributes: map[string]schema.Attribute{
				"codename": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Release code name, e.g. `noble` (`unikorn:os:codename`); null when not set.",
				},
				"distro": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Distribution, e.g. `ubuntu` (`unikorn:os:distro`).",
				},
				"family": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Distribution family, e.g. `debian` (`unikorn:os:family`).",
				},
				"kernel": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Kernel: `linux` (`unikorn:os:kernel`).",
				},
				"variant": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Variant, e.g. `server` (`unikorn:os:variant`); null when not set.",
				},
				"version": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Distribution version, e.g. `24.04` (`unikorn:os:version`).",
				},
			},
		},
		"packages": schema.MapAttribute{
			Computed:    true,
			ElementType: types.StringType,
			MarkdownDescription: "Installed packages and their versions (`unikorn:package:<name>`), including `kubernetes` from the " +
				"legacy `unikorn:kubernetes_version` when `unikorn:package:kubernetes` is absent.",
		},
		"size_gib": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Smallest root disk for the image in GiB: Glance's `min_disk`, else its virtual size rounded up; `0` when unknown.",
		},
		"status": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "`pending` (no data yet), `creating` (data arriving), `ready` or `failed` (killed, deleted or " +
				"deactivated), from Glance's status.",
		},
		"tags": schema.MapAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Tags (`unikorn:tag:<key>` = value).",
		},
		"virtualization": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Where the image runs: `virtualized`, `baremetal` or `any` (`unikorn:virtualization`).",
		},
	}
}

func rejectedAttribute() schema.Attribute {
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "Images in scope that match the filters (as far as their properties can be read) but were left out " +
			"because they break the Unikorn property schema or fail the signature check, sorted by name. Each also raises a warning.",
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"id": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Glance image ID.",
				},
				"name": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Glance image name.",
				},
				"reason": schema.StringAttribute{
					Computed: true,
					MarkdownDescription: "Why the image was left out, one line: `schema: <every violation>` or " +
						"`signature: <problem>`.",
				},
			},
		},
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

// selection is what both image data sources start from.
type selection struct {
	region   string
	matches  []Image    // oldest → newest
	rejected []Rejected // by name
}

// selectImages resolves the region (and records it in the model), gets the
// region's classified images from the shared cache and returns those that
// match, with the matching rejected images, each raising a warning.
func (f *filterModel) selectImages(ctx context.Context, m meta) (selection, diag.Diagnostics) {
	var diags diag.Diagnostics

	client := m.Cloud()

	region, err := client.ResolveRegion(f.Region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), "Region not served", err.Error())
		return selection{}, diags
	}

	f.Region = types.StringValue(region)
	ctx = tflog.SetField(ctx, "region", region)

	filter, d := f.filter(ctx)
	diags.Append(d...)

	if diags.HasError() {
		return selection{}, diags
	}

	imageClient, err := client.Base().Image(region)
	if err != nil {
		diags.AddError("Error listing images", fmt.Sprintf("region %s: %s", region, err))
		return selection{}, diags
	}

	organizationID := f.OrganizationID.ValueString()

	listing, err := m.ImageCache().Images(ctx, region, organizationID, imageClient)
	if err != nil {
		diags.AddError("Error listing images", fmt.Sprintf("region %s: %s", region, err))
		return selection{}, diags
	}

	sel := selection{region: region}

	sel.matches, err = Select(listing.Images, filter)
	if err == nil {
		sel.rejected, err = SelectRejected(listing.Rejected, filter)
	}

	if err != nil {
		diags.AddAttributeError(path.Root("package"), "Invalid package constraint", err.Error())
		return selection{}, diags
	}

	diags.Append(rejectionWarnings(region, sel.rejected)...)

	tflog.Debug(ctx, "Selected images", map[string]any{
		"organization_id": organizationID,
		"images":          len(listing.Images),
		"matches":         len(sel.matches),
		"rejected":        len(sel.rejected),
	})

	return sel, diags
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

type imagesModel struct {
	filterModel

	Images   types.List `tfsdk:"images"`
	Rejected types.List `tfsdk:"rejected"`
}

// imageModel is one image of a result.
type imageModel struct {
	Architecture   types.String `tfsdk:"architecture"`
	CreatedAt      types.String `tfsdk:"created_at"`
	GPU            types.Object `tfsdk:"gpu"`
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	OrganizationID types.String `tfsdk:"organization_id"`
	OS             types.Object `tfsdk:"os"`
	Packages       types.Map    `tfsdk:"packages"`
	SizeGiB        types.Int64  `tfsdk:"size_gib"`
	Status         types.String `tfsdk:"status"`
	Tags           types.Map    `tfsdk:"tags"`
	Virtualization types.String `tfsdk:"virtualization"`
}

type gpuModel struct {
	DriverVersion types.String `tfsdk:"driver_version"`
	Models        types.List   `tfsdk:"models"`
	Vendor        types.String `tfsdk:"vendor"`
}

type osModel struct {
	Codename types.String `tfsdk:"codename"`
	Distro   types.String `tfsdk:"distro"`
	Family   types.String `tfsdk:"family"`
	Kernel   types.String `tfsdk:"kernel"`
	Variant  types.String `tfsdk:"variant"`
	Version  types.String `tfsdk:"version"`
}

type rejectedModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Reason types.String `tfsdk:"reason"`
}

var gpuAttrTypes = map[string]attr.Type{
	"driver_version": types.StringType,
	"models":         types.ListType{ElemType: types.StringType},
	"vendor":         types.StringType,
}

var osAttrTypes = map[string]attr.Type{
	"codename": types.StringType,
	"distro":   types.StringType,
	"family":   types.StringType,
	"kernel":   types.StringType,
	"variant":  types.StringType,
	"version":  types.StringType,
}

var imageAttrTypes = map[string]attr.Type{
	"architecture":    types.StringType,
	"created_at":      types.StringType,
	"gpu":             types.ObjectType{AttrTypes: gpuAttrTypes},
	"id":              types.StringType,
	"name":            types.StringType,
	"organization_id": types.StringType,
	"os":              types.ObjectType{AttrTypes: osAttrTypes},
	"packages":        types.MapType{ElemType: types.StringType},
	"size_gib":        types.Int64Type,
	"status":          types.StringType,
	"tags":            types.MapType{ElemType: types.StringType},
	"virtualization":  types.StringType,
}

var rejectedAttrTypes = map[string]attr.Type{
	"id":     types.StringType,
	"name":   types.StringType,
	"reason": types.StringType,
}

func flattenImages(ctx context.Context, imgs []Image) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics

	items := make([]imageModel, 0, len(imgs))

	for _, img := range imgs {
		item, d := flattenImage(ctx, img)
		diags.Append(d...)
		items = append(items, item)
	}

	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: imageAttrTypes}, items)
	diags.Append(d...)

	return list, diags
}

func flattenImage(ctx context.Context, img Image) (imageModel, diag.Diagnostics) {
	var diags diag.Diagnostics

	m := imageModel{
		Architecture:   types.StringValue(img.Architecture),
		CreatedAt:      types.StringValue(img.CreatedAt.UTC().Format(time.RFC3339)),
		GPU:            types.ObjectNull(gpuAttrTypes),
		ID:             types.StringValue(img.ID),
		Name:           types.StringValue(img.Name),
		OrganizationID: nullIfEmpty(img.OrganizationID),
		SizeGiB:        types.Int64Value(int64(img.SizeGiB)),
		Status:         types.StringValue(img.Status),
		Virtualization: types.StringValue(img.Virtualization),
	}

	var d diag.Diagnostics

	m.OS, d = types.ObjectValueFrom(ctx, osAttrTypes, osModel{
		Codename: nullIfEmpty(img.OS.Codename),
		Distro:   types.StringValue(img.OS.Distro),
		Family:   types.StringValue(img.OS.Family),
		Kernel:   types.StringValue(img.OS.Kernel),
		Variant:  nullIfEmpty(img.OS.Variant),
		Version:  types.StringValue(img.OS.Version),
	})
	diags.Append(d...)

	m.Packages, d = types.MapValueFrom(ctx, types.StringType, img.Packages)
	diags.Append(d...)

	m.Tags, d = types.MapValueFrom(ctx, types.StringType, img.Tags)
	diags.Append(d...)

	if img.GPU != nil {
		models, d := types.ListValueFrom(ctx, types.StringType, img.GPU.Models)
		diags.Append(d...)

		m.GPU, d = types.ObjectValueFrom(ctx, gpuAttrTypes, gpuModel{
			DriverVersion: types.StringValue(img.GPU.DriverVersion),
			Models:        models,
			Vendor:        types.StringValue(img.GPU.Vendor),
		})
		diags.Append(d...)
	}

	return m, diags
}

func flattenRejected(ctx context.Context, rejected []Rejected) (types.List, diag.Diagnostics) {
	items := make([]rejectedModel, 0, len(rejected))

	for _, r := range rejected {
		items = append(items, rejectedModel{
			ID:     types.StringValue(r.ID),
			Name:   types.StringValue(r.Name),
			Reason: types.StringValue(r.Reason),
		})
	}

	return types.ListValueFrom(ctx, types.ObjectType{AttrTypes: rejectedAttrTypes}, items)
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}

	return types.StringValue(s)
}
