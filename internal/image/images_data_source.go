package image

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// NewImagesDataSource is the constructor the provider lists.
func NewImagesDataSource() datasource.DataSource {
	return newDataSource[imagesModel]("images",
		"The Glance images of a region that follow the Unikorn image property schema (and, with the provider's "+
			"`image_signing_key`, carry a valid signature), translated into operating system, package and GPU facts and filtered. "+
			"In scope are the public images, plus the images of `organization_id` when it is set. Images that match the filters "+
			"but break the schema or fail the signature check are listed in `rejected`, each with a warning, so that a missing "+
			"image explains itself. All image data sources of a region share one Glance image list per Terraform run.",
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
			Computed:            true,
			MarkdownDescription: "CPU architecture, normalised: `x86_64` or `aarch64` (others as Glance has them, lower-cased).",
		},
		"created_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the image was created, RFC 3339."},
		"gpu":        adapter.ComputedObject("The GPU support baked into the image; null for an image without.", gpuAttributes()),
		"id":         schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image ID."},
		"name":       schema.StringAttribute{Computed: true, MarkdownDescription: "Glance image name."},
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
