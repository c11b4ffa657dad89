package image

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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

	org, err := OrganizationOf(c, organizationID)

	imageClient, ierr := c.Base().Image(region)
	if err = errors.Join(err, ierr); err == nil {
		listing, err = m.ImageCache().Images(ctx, region, org, imageClient)
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
		"architecture": adapter.OneOfFilter("Only images for this CPU architecture: `x86_64` or `aarch64` (Glance's `architecture` property "+
			"as it is, `x86_64` when unset or empty, as Unikorn reads it: an image whose property says `amd64` or `arm64` matches "+
			"neither).", ArchitectureX86_64, ArchitectureAarch64),
		"gpu_model":  adapter.TextFilter("Only images with GPU support for this model (one of `gpu.models`), e.g. `H100`."),
		"gpu_vendor": adapter.OneOfFilter("Only images with GPU support from this vendor: `AMD` or `NVIDIA`.", GPUVendors()...),
		"name":       adapter.TextFilter("Only images of exactly this name."),
		"organization_id": adapter.TextFilter("Also include the images of this organization, whatever their visibility: those whose " +
			"`unikorn:organization:id` names it and that no tenant can have planted (public ones, which only an admin can " +
			"publicize; those of the service user's own project, where `unikorn_image` makes them; those of a project tagged " +
			"`organization=<id>`, such as an identity's snapshots). Unikorn itself lists only the public ones. Organization " +
			"images are exempt from the signature check; any other image carrying the property is left out (in `rejected`, " +
			"with a warning). Unset: public images without an organization only."),
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

// NewImagesDataSource is the constructor the provider lists.
func NewImagesDataSource() datasource.DataSource {
	return newDataSource[imagesModel]("images",
		"The Glance images of a region that follow Unikorn's image property schema (`v2.image.schema.json` of Unikorn's "+
			"region service as of v1.16.4, unchanged through v1.19.0; the `unikorn_image` page says what it accepts) and, with "+
			"the provider's `image_signing_key`, carry a valid signature (organization images are exempt, as in Unikorn v1.12.0 "+
			"and later), translated into operating system, package and GPU facts as Unikorn reads them, and filtered. In scope "+
			"are the public images without an organization, plus the images of `organization_id` when it is set: what Unikorn "+
			"lists for that organization (its public images), and also the organization's private images that no tenant can "+
			"have planted, which Unikorn does not list. Images that match the filters but break the schema or fail the "+
			"signature check are listed in `rejected`, each with a warning, so that a missing image explains itself. All image "+
			"data sources of a region share one Glance image list per Terraform run.",
		map[string]schema.Attribute{
			"images": adapter.ComputedList("The images that match every filter, sorted oldest → newest (by `created_at`, then name and ID).",
				imageAttributes()),
		})
}

type imagesModel struct {
	filterModel

	Images   types.List `tfsdk:"images"`
	Rejected types.List `tfsdk:"rejected"`
}

func (m *imagesModel) keep(ctx context.Context, sel selection, diags *diag.Diagnostics) {
	m.Images = adapter.ListOf(ctx, imageType, sel.matches, func(img Image) imageModel { return flattenImage(ctx, img, diags) }, diags)
	m.Rejected = flattenRejected(ctx, sel.rejected, diags)
}

// imageAttributes describe one image of a result.
func imageAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "CPU architecture: Glance's `architecture` property as it is (`x86_64` or `aarch64` for the images " +
				"Unikorn makes), `x86_64` when unset or empty.",
		},
		"created_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the image was created, RFC 3339."},
		"gpu":        adapter.ComputedObject("The GPU support baked into the image; null for an image without.", gpuAttributes()),
		"id":         schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image ID."},
		"identity_id": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "The Unikorn identity whose server the image is a snapshot of (`" + PropertyIdentityID +
				"`, which Unikorn writes on its snapshots); null for other images.",
		},
		"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image name."},
		"organization_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The organization that owns the image (`unikorn:organization:id`); null for a public image.",
		},
		"os": adapter.ComputedObject("The operating system.", osAttributes()),
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
		"tags": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Tags (`unikorn:tag:<key>` = value)."},
		"virtualization": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Where the image runs: `virtualized`, `baremetal` or `any` (`unikorn:virtualization`).",
		},
	}
}

// gpuAttributes describe the GPU support of one image of a result.
func gpuAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"driver_version": schema.StringAttribute{Computed: true, MarkdownDescription: "GPU driver version (`unikorn:gpu_driver_version`)."},
		"models": schema.ListAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "GPU models supported (`unikorn:gpu_models`).",
		},
		"vendor": schema.StringAttribute{Computed: true, MarkdownDescription: "GPU vendor: `AMD` or `NVIDIA` (`unikorn:gpu_vendor`)."},
	}
}

// osAttributes describe the operating system of one image of a result.
func osAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"codename": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Release code name, e.g. `noble` (`unikorn:os:codename`); null when not set.",
		},
		"distro":  schema.StringAttribute{Computed: true, MarkdownDescription: "Distribution, e.g. `ubuntu` (`unikorn:os:distro`)."},
		"family":  schema.StringAttribute{Computed: true, MarkdownDescription: "Distribution family, e.g. `debian` (`unikorn:os:family`)."},
		"kernel":  schema.StringAttribute{Computed: true, MarkdownDescription: "Kernel: `linux` (`unikorn:os:kernel`)."},
		"variant": schema.StringAttribute{Computed: true, MarkdownDescription: "Variant, e.g. `server` (`unikorn:os:variant`); null when not set."},
		"version": schema.StringAttribute{Computed: true, MarkdownDescription: "Distribution version, e.g. `24.04` (`unikorn:os:version`)."},
	}
}

func rejectedAttribute() schema.Attribute {
	return adapter.ComputedList("Images in scope that match the filters (as far as their properties can be read) but were left "+
		"out because they break the Unikorn property schema or fail the signature check, sorted by name. Each also raises a warning.",
		rejectedAttributes())
}

func rejectedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image ID."},
		"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image name."},
		"reason": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "Why the image was left out, one line: `schema: <every violation>` or " +
				"`signature: <problem>`.",
		},
	}
}

// The object types of one image, its GPU support, its operating system and one rejected
// image, from their schemas.
var (
	imageType    = adapter.ObjectType(imageAttributes())
	gpuType      = adapter.ObjectType(gpuAttributes())
	osType       = adapter.ObjectType(osAttributes())
	rejectedType = adapter.ObjectType(rejectedAttributes())
)

// imageModel is one image of a result.
type imageModel struct {
	Architecture   types.String `tfsdk:"architecture"`
	CreatedAt      types.String `tfsdk:"created_at"`
	GPU            types.Object `tfsdk:"gpu"`
	ID             types.String `tfsdk:"id"`
	IdentityID     types.String `tfsdk:"identity_id"`
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

// flattenImage is one image of a result: packages and tags are never null, gpu is null for
// an image without GPU support, the optional OS facts and the organization null when unset.
func flattenImage(ctx context.Context, img Image, diags *diag.Diagnostics) imageModel {
	m := imageModel{
		Architecture:   types.StringValue(img.Architecture),
		CreatedAt:      types.StringValue(img.CreatedAt.UTC().Format(time.RFC3339)),
		GPU:            types.ObjectNull(gpuType.AttrTypes),
		ID:             types.StringValue(img.ID),
		IdentityID:     adapter.StringOrNull(img.IdentityID),
		Name:           types.StringValue(img.Name),
		OrganizationID: adapter.StringOrNull(img.OrganizationID),
		Packages:       adapter.StringMap(img.Packages, adapter.NeverNullMap),
		SizeGiB:        types.Int64Value(int64(img.SizeGiB)),
		Status:         types.StringValue(img.Status),
		Tags:           adapter.StringMap(img.Tags, adapter.NeverNullMap),
		Virtualization: types.StringValue(img.Virtualization),
	}

	m.OS = adapter.ObjectOf(ctx, osType, osModel{
		Codename: adapter.StringOrNull(img.OS.Codename),
		Distro:   types.StringValue(img.OS.Distro),
		Family:   types.StringValue(img.OS.Family),
		Kernel:   types.StringValue(img.OS.Kernel),
		Variant:  adapter.StringOrNull(img.OS.Variant),
		Version:  types.StringValue(img.OS.Version),
	}, diags)

	if g := img.GPU; g != nil {
		m.GPU = adapter.ObjectOf(ctx, gpuType, gpuModel{
			DriverVersion: types.StringValue(g.DriverVersion),
			Models:        adapter.StringList(g.Models, adapter.NeverNullList),
			Vendor:        types.StringValue(g.Vendor),
		}, diags)
	}

	return m
}

func flattenRejected(ctx context.Context, rejected []Rejected, diags *diag.Diagnostics) types.List {
	return adapter.ListOf(ctx, rejectedType, rejected, func(r Rejected) rejectedModel {
		return rejectedModel{ID: types.StringValue(r.ID), Name: types.StringValue(r.Name), Reason: types.StringValue(r.Reason)}
	}, diags)
}

// NewImageDataSource is the constructor the provider lists.
func NewImageDataSource() datasource.DataSource {
	return newDataSource[singleImageModel]("image",
		"One Glance image of a region, checked against Unikorn's image property schema (v1.16.4 to v1.19.0) and translated "+
			"as Unikorn reads it, like those of `unikorn_images`, and found with the same filters. Exactly one image must match, unless `most_recent = true` picks the newest; otherwise the error "+
			"says how many matched and lists them. Matching images left out by the schema or signature checks are listed in "+
			"`rejected`, each with a warning, and named in the error when nothing else matches.",
		map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the image found (the same as `image.id`)."},
			"image": adapter.ComputedObject("The image found, with the same attributes as an element of `unikorn_images.images`.",
				imageAttributes()),
			"most_recent": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "When several images match, pick the newest (latest `created_at`) instead of failing.",
			},
		})
}

type singleImageModel struct {
	filterModel

	ID         types.String `tfsdk:"id"`
	Image      types.Object `tfsdk:"image"`
	MostRecent types.Bool   `tfsdk:"most_recent"`
	Rejected   types.List   `tfsdk:"rejected"`
}

func (m *singleImageModel) keep(ctx context.Context, sel selection, diags *diag.Diagnostics) {
	found, ok := pickOne(sel, m.MostRecent.ValueBool(), diags)
	if !ok {
		return
	}

	m.Image = adapter.ObjectOf(ctx, imageType, flattenImage(ctx, found, diags), diags)
	m.ID = types.StringValue(found.ID)
	m.Rejected = flattenRejected(ctx, sel.rejected, diags)

	tflog.Debug(ctx, "Found image", map[string]any{"image_id": found.ID, "image_name": found.Name})
}

// pickOne is the singular's rule: the newest match when mostRecent is set,
// else exactly one match. A failure names the rejected images that would
// have matched; false when there is none to pick (the diagnostics say why).
func pickOne(sel selection, mostRecent bool, diags *diag.Diagnostics) (Image, bool) {
	if mostRecent && len(sel.matches) > 0 {
		return MostRecent(sel.matches), true
	}

	noMatch := fmt.Sprintf("No image in region %s matches the filters.", sel.region)
	if len(sel.rejected) > 0 {
		reasons := make([]string, len(sel.rejected))
		for i, r := range sel.rejected {
			reasons[i] = fmt.Sprintf("%s (%s): %s", r.Name, r.ID, r.Reason)
		}

		noMatch += fmt.Sprintf(" Left out because of the schema or the signature check, though they match:\n%s", strings.Join(reasons, "\n"))
	}

	return adapter.Singular[Image]{Noun: "image", Nouns: "images", Label: label}.One(sel.matches, sel.region, noMatch,
		"Narrow the filters, or set most_recent = true to pick the newest.", diags)
}
