package image

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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

// newDataSource is the data source unikorn_<typeName>: the filters, `rejected` and
// attributes, read by selecting the region's classified images from the shared listing (each
// matching rejected image raising a warning) and letting the model M (its pointer type P
// implements model) keep its result.
func newDataSource[M any, P interface {
	*M
	model
}](typeName, description string, attributes map[string]schema.Attribute) datasource.DataSource {
	return adapter.NewDataSource(adapter.Kind{TypeName: typeName, Noun: "images"},
		adapter.DataSourceSchema(description, filterAttributes(), map[string]schema.Attribute{"rejected": rejectedAttribute()}, attributes),
		func(ctx context.Context, m meta, data *M, diags *diag.Diagnostics) {
			if sel, ok := P(data).filters().selectImages(ctx, m, diags); ok {
				P(data).keep(ctx, sel, diags)
			}
		})
}

// selectImages resolves the region (and records it in the model), gets the region's
// classified images from the shared cache and returns those that match, with the matching
// rejected images, each raising a warning; false on failure (the diagnostics say why).
func (f *filterModel) selectImages(ctx context.Context, m meta, diags *diag.Diagnostics) (selection, bool) {
	c := m.Cloud()

	region, ok := adapter.ReadRegion(c, &f.Region, diags)
	if !ok {
		return selection{}, false
	}

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
		"architecture": adapter.OneOfFilter("Only images for this CPU architecture: `x86_64` or `aarch64` (Glance's `architecture` property, "+
			"normalised: `amd64` is `x86_64`, `arm64` is `aarch64`, unset is `x86_64`).", ArchitectureX86_64, ArchitectureAarch64),
		"gpu_model":  adapter.TextFilter("Only images with GPU support for this model (one of `gpu.models`), e.g. `H100`."),
		"gpu_vendor": adapter.OneOfFilter("Only images with GPU support from this vendor: `AMD` or `NVIDIA`.", GPUVendors()...),
		"name":       adapter.TextFilter("Only images of exactly this name."),
		"organization_id": adapter.TextFilter("Also include the images of this organization (`unikorn:organization:id`), whatever their visibility. " +
			"Organization images are exempt from the signature check. Unset: public images only."),
		"os_distro":  adapter.TextFilter("Only images of this distribution (`os.distro`), e.g. `ubuntu`."),
		"os_version": adapter.TextFilter("Only images of this distribution version (`os.version`), e.g. `24.04`."),
		"package": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Only images with this package, optionally constrained by a semantic version constraint: " +
				"`kubernetes`, `kubernetes >= 1.30`, `slurmd ~1.2`, `kubernetes >= 1.29, < 1.31`. Versions such as `v1.30.2` " +
				"compare as semantic versions; a pre-release only matches a constraint that names one.",
			Validators: []validator.String{PackageConstraint()},
		},
		"region": adapter.RegionFilter("images"),
		"status": adapter.OneOfFilter("Only images in this state: `pending`, `creating`, `ready` or `failed`.", Statuses()...),
		"tags": schema.MapAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Only images that carry every one of these tags (`unikorn:tag:<key>` = value); they may carry more.",
			Validators:          []validator.Map{mapvalidator.KeysAre(stringvalidator.LengthAtLeast(1))},
		},
		"virtualization": adapter.OneOfFilter("Only images that can run this way: `virtualized`, `baremetal` or `any`. An image "+
			"built for `any` matches every value.", Virtualizations()...),
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
