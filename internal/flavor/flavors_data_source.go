package flavor

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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

var _ datasource.DataSourceWithConfigure = (*flavorsDataSource)(nil)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
	// FlavorCache is the flavor listing shared by every flavor data source
	// of the provider process.
	FlavorCache() *Cache
}

// NewFlavorsDataSource is the constructor the provider lists.
func NewFlavorsDataSource() datasource.DataSource {
	return &flavorsDataSource{}
}

type flavorsDataSource struct {
	meta meta
}

func (d *flavorsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_flavors"
}

func (d *flavorsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attributes := filterAttributes()
	attributes["flavors"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The flavors that match every filter, sorted by name (then ID).",
		NestedObject:        schema.NestedAttributeObject{Attributes: flavorAttributes()},
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "The public Nova flavors of a region, restricted to the provider's `flavor_ids` and enriched by its " +
			"`flavors` descriptions (CPU architecture and family, bare metal, pinning, GPUs), filtered. " +
			"All flavor data sources of a region share one Nova flavor list per Terraform run.",
		Attributes: attributes,
	}
}

func (d *flavorsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		d.meta = m
	}
}

func (d *flavorsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before this data source was read. This is a bug in the provider; please report it.")
		return
	}

	var data flavorsModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_flavors")

	matches, diags := data.selectFlavors(ctx, d.meta, Filter{})
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	data.Flavors, diags = flattenFlavors(ctx, matches)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// filterAttributes are the filters both flavor data sources take.
func filterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only flavors of this CPU architecture: `x86_64` or `aarch64`.",
			Validators:          []validator.String{stringvalidator.OneOf(Architectures()...)},
		},
		"baremetal": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Only bare-metal flavors (`true`) or only virtual ones (`false`).",
		},
		"gpu_model": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with GPUs of this model, e.g. `H100`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"gpu_vendor": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with GPUs of this vendor: `NVIDIA` or `AMD`.",
			Validators:          []validator.String{stringvalidator.OneOf(GPUVendors()...)},
		},
		"min_cpus": schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with at least this many CPUs.",
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"min_gpus": schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with at least this many GPUs, counted as the operating system sees them (`gpu.logical_count`).",
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"min_memory_gib": schema.Float64Attribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with at least this much memory, in GiB.",
			Validators:          []validator.Float64{float64validator.AtLeast(0)},
		},
		"region": schema.StringAttribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "Region whose flavors are listed. Default: the provider's `region`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
	}
}

// flavorAttributes describe one flavor of a result.
func flavorAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "CPU architecture: `x86_64` (unless the provider's `flavors` says otherwise) or `aarch64`.",
		},
		"baremetal": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: "Whether the flavor schedules onto bare-metal machines.",
		},
		"cpu_family": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "CPU family from the provider's `flavors`; null when not described.",
		},
		"cpus": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "CPU count: the provider's `flavors[*].cpu.count`, else Nova's `vcpus`.",
		},
		"disk_gb": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Root disk size in GB (`0`: the size of the image).",
		},
		"extra_specs": schema.MapAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Nova's extra specs of the flavor.",
		},
		"gpu": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The flavor's GPUs; null for a flavor without GPUs.",
			Attributes: map[string]schema.Attribute{
				"logical_count": schema.Int64Attribute{
					Computed:            true,
					MarkdownDescription: "GPUs the operating system sees.",
				},
				"memory_gib": schema.Int64Attribute{
					Computed:            true,
					MarkdownDescription: "Memory of one GPU in GiB; null when unknown.",
				},
				"model": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "GPU model.",
				},
				"physical_count": schema.Int64Attribute{
					Computed:            true,
					MarkdownDescription: "GPU devices (cards).",
				},
				"vendor": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "GPU vendor: `NVIDIA` or `AMD`.",
				},
			},
		},
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Nova flavor ID.",
		},
		"memory_gib": schema.Float64Attribute{
			Computed:            true,
			MarkdownDescription: "Memory in GiB: the provider's `flavors[*].memory_gib`, else Nova's `ram` / 1024.",
		},
		"name": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Nova flavor name.",
		},
		"pinned_only": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: "Whether the flavor only offers pinned (dedicated) CPUs.",
		},
	}
}

// filterModel holds the filters both flavor data sources take.
type filterModel struct {
	Architecture types.String  `tfsdk:"architecture"`
	Baremetal    types.Bool    `tfsdk:"baremetal"`
	GPUModel     types.String  `tfsdk:"gpu_model"`
	GPUVendor    types.String  `tfsdk:"gpu_vendor"`
	MinCPUs      types.Int64   `tfsdk:"min_cpus"`
	MinGPUs      types.Int64   `tfsdk:"min_gpus"`
	MinMemoryGiB types.Float64 `tfsdk:"min_memory_gib"`
	Region       types.String  `tfsdk:"region"`
}

// filter is the core Filter of the model; base carries what the caller
// filters on beyond the shared filters (the singular's name).
func (f filterModel) filter(base Filter) Filter {
	base.Architecture = f.Architecture.ValueString()
	base.GPUModel = f.GPUModel.ValueString()
	base.GPUVendor = f.GPUVendor.ValueString()

	if !f.Baremetal.IsNull() {
		b := f.Baremetal.ValueBool()
		base.Baremetal = &b
	}

	if !f.MinCPUs.IsNull() {
		n := int(f.MinCPUs.ValueInt64())
		base.MinCPUs = &n
	}

	if !f.MinGPUs.IsNull() {
		n := int(f.MinGPUs.ValueInt64())
		base.MinGPUs = &n
	}

	if !f.MinMemoryGiB.IsNull() {
		m := f.MinMemoryGiB.ValueFloat64()
		base.MinMemoryGiB = &m
	}

	return base
}

// selectFlavors resolves the region (and records it in the model), gets
// the region's flavors from the shared cache and returns those that match.
func (f *filterModel) selectFlavors(ctx context.Context, m meta, base Filter) ([]Flavor, diag.Diagnostics) {
	var diags diag.Diagnostics

	client := m.Cloud()

	region, err := client.ResolveRegion(f.Region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), "Region not served", err.Error())
		return nil, diags
	}

	f.Region = types.StringValue(region)
	ctx = tflog.SetField(ctx, "region", region)

	compute, err := client.Base().Compute(region)
	if err != nil {
		diags.AddError("Error listing flavors", fmt.Sprintf("region %s: %s", region, err))
		return nil, diags
	}

	all, err := m.FlavorCache().Flavors(ctx, region, compute)
	if err != nil {
		diags.AddError("Error listing flavors", fmt.Sprintf("region %s: %s", region, err))
		return nil, diags
	}

	matches := Select(all, f.filter(base))

	tflog.Debug(ctx, "Selected flavors", map[string]any{"flavors": len(all), "matches": len(matches)})

	return matches, diags
}

type flavorsModel struct {
	filterModel

	Flavors types.List `tfsdk:"flavors"`
}

// flavorModel is one flavor of a result.
type flavorModel struct {
	Architecture types.String  `tfsdk:"architecture"`
	Baremetal    types.Bool    `tfsdk:"baremetal"`
	CPUFamily    types.String  `tfsdk:"cpu_family"`
	CPUs         types.Int64   `tfsdk:"cpus"`
	DiskGB       types.Int64   `tfsdk:"disk_gb"`
	ExtraSpecs   types.Map     `tfsdk:"extra_specs"`
	GPU          types.Object  `tfsdk:"gpu"`
	ID           types.String  `tfsdk:"id"`
	MemoryGiB    types.Float64 `tfsdk:"memory_gib"`
	Name         types.String  `tfsdk:"name"`
	PinnedOnly   types.Bool    `tfsdk:"pinned_only"`
}

type gpuModel struct {
	LogicalCount  types.Int64  `tfsdk:"logical_count"`
	MemoryGiB     types.Int64  `tfsdk:"memory_gib"`
	Model         types.String `tfsdk:"model"`
	PhysicalCount types.Int64  `tfsdk:"physical_count"`
	Vendor        types.String `tfsdk:"vendor"`
}

var gpuAttrTypes = map[string]attr.Type{
	"logical_count":  types.Int64Type,
	"memory_gib":     types.Int64Type,
	"model":          types.StringType,
	"physical_count": types.Int64Type,
	"vendor":         types.StringType,
}

var flavorAttrTypes = map[string]attr.Type{
	"architecture": types.StringType,
	"baremetal":    types.BoolType,
	"cpu_family":   types.StringType,
	"cpus":         types.Int64Type,
	"disk_gb":      types.Int64Type,
	"extra_specs":  types.MapType{ElemType: types.StringType},
	"gpu":          types.ObjectType{AttrTypes: gpuAttrTypes},
	"id":           types.StringType,
	"memory_gib":   types.Float64Type,
	"name":         types.StringType,
	"pinned_only":  types.BoolType,
}

func flattenFlavors(ctx context.Context, flavors []Flavor) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics

	items := make([]flavorModel, 0, len(flavors))

	for _, f := range flavors {
		item, d := flattenFlavor(ctx, f)
		diags.Append(d...)
		items = append(items, item)
	}

	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: flavorAttrTypes}, items)
	diags.Append(d...)

	return list, diags
}

func flattenFlavor(ctx context.Context, f Flavor) (flavorModel, diag.Diagnostics) {
	var diags diag.Diagnostics

	m := flavorModel{
		Architecture: types.StringValue(f.Architecture),
		Baremetal:    types.BoolValue(f.Baremetal),
		CPUFamily:    nullIfEmpty(f.CPUFamily),
		CPUs:         types.Int64Value(int64(f.CPUs)),
		DiskGB:       types.Int64Value(int64(f.DiskGB)),
		GPU:          types.ObjectNull(gpuAttrTypes),
		ID:           types.StringValue(f.ID),
		MemoryGiB:    types.Float64Value(f.MemoryGiB),
		Name:         types.StringValue(f.Name),
		PinnedOnly:   types.BoolValue(f.PinnedOnly),
	}

	var d diag.Diagnostics

	specs := f.ExtraSpecs
	if specs == nil {
		specs = map[string]string{}
	}

	m.ExtraSpecs, d = types.MapValueFrom(ctx, types.StringType, specs)
	diags.Append(d...)

	if f.GPU != nil {
		memory := types.Int64Null()
		if f.GPU.MemoryGiB > 0 {
			memory = types.Int64Value(int64(f.GPU.MemoryGiB))
		}

		m.GPU, d = types.ObjectValueFrom(ctx, gpuAttrTypes, gpuModel{
			LogicalCount:  types.Int64Value(int64(f.GPU.LogicalCount)),
			MemoryGiB:     memory,
			Model:         types.StringValue(f.GPU.Model),
			PhysicalCount: types.Int64Value(int64(f.GPU.PhysicalCount)),
			Vendor:        types.StringValue(f.GPU.Vendor),
		})
		diags.Append(d...)
	}

	return m, diags
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}

	return types.StringValue(s)
}
