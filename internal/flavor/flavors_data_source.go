package flavor

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// NewFlavorsDataSource is the constructor the provider lists.
func NewFlavorsDataSource() datasource.DataSource {
	return newDataSource[flavorsModel]("flavors",
		"The public Nova flavors of a region, restricted to the provider's `flavor_ids` and enriched by its "+
			"`flavors` descriptions (CPU architecture and family, bare metal, pinning, GPUs), filtered. "+
			"All flavor data sources of a region share one Nova flavor list per Terraform run.",
		map[string]schema.Attribute{
			"flavors": adapter.ComputedList("The flavors that match every filter, sorted by name (then ID).", flavorAttributes()),
		})
}

type flavorsModel struct {
	filterModel

	Flavors types.List `tfsdk:"flavors"`
}

func (m *flavorsModel) query() (*types.String, Filter) {
	return &m.Region, m.filter(Filter{})
}

func (m *flavorsModel) keep(ctx context.Context, matches []Flavor, _ string, diags *diag.Diagnostics) {
	m.Flavors = adapter.ListOf(ctx, flavorType, matches, func(f Flavor) flavorModel { return flattenFlavor(ctx, f, diags) }, diags)
}

// flavorAttributes describe one flavor of a result.
func flavorAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "CPU architecture: `x86_64` (unless the provider's `flavors` says otherwise) or `aarch64`.",
		},
		"baremetal":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the flavor schedules onto bare-metal machines."},
		"cpu_family":  schema.StringAttribute{Computed: true, MarkdownDescription: "CPU family from the provider's `flavors`; null when not described."},
		"cpus":        schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU count: the provider's `flavors[*].cpu.count`, else Nova's `vcpus`."},
		"disk_gb":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Root disk size in GB (`0`: the size of the image)."},
		"extra_specs": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Nova's extra specs of the flavor."},
		"gpu":         adapter.ComputedObject("The flavor's GPUs; null for a flavor without GPUs.", gpuAttributes()),
		"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "Nova flavor ID."},
		"memory_gib": schema.Float64Attribute{
			Computed:            true,
			MarkdownDescription: "Memory in GiB: the provider's `flavors[*].memory_gib`, else Nova's `ram` / 1024.",
		},
		"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Nova flavor name."},
		"pinned_only": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the flavor is for pinned servers only (a server of it must set `host`)."},
	}
}

// gpuAttributes describe the GPUs of one flavor of a result.
func gpuAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"logical_count":  schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs the operating system sees."},
		"memory_gib":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory of one GPU in GiB; null when unknown."},
		"model":          schema.StringAttribute{Computed: true, MarkdownDescription: "GPU model."},
		"physical_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "GPU devices (cards)."},
		"vendor":         schema.StringAttribute{Computed: true, MarkdownDescription: "GPU vendor: `NVIDIA` or `AMD`."},
	}
}

// The object types of one flavor and of its GPUs, from their schemas.
var (
	flavorType = adapter.ObjectType(flavorAttributes())
	gpuType    = adapter.ObjectType(gpuAttributes())
)

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

// flattenFlavor is one flavor of a result: extra_specs is never null, gpu is null for a
// flavor without GPUs and gpu.memory_gib null when unknown.
func flattenFlavor(ctx context.Context, f Flavor, diags *diag.Diagnostics) flavorModel {
	m := flavorModel{
		Architecture: types.StringValue(f.Architecture),
		Baremetal:    types.BoolValue(f.Baremetal),
		CPUFamily:    adapter.StringOrNull(f.CPUFamily),
		CPUs:         types.Int64Value(int64(f.CPUs)),
		DiskGB:       types.Int64Value(int64(f.DiskGB)),
		ExtraSpecs:   adapter.StringMap(f.ExtraSpecs, adapter.NeverNullMap), // {} without extra specs
		GPU:          types.ObjectNull(gpuType.AttrTypes),
		ID:           types.StringValue(f.ID),
		MemoryGiB:    types.Float64Value(f.MemoryGiB),
		Name:         types.StringValue(f.Name),
		PinnedOnly:   types.BoolValue(f.PinnedOnly),
	}

	if g := f.GPU; g != nil {
		memory := types.Int64Null()
		if g.MemoryGiB > 0 {
			memory = types.Int64Value(int64(g.MemoryGiB))
		}

		m.GPU = adapter.ObjectOf(ctx, gpuType, gpuModel{
			LogicalCount:  types.Int64Value(int64(g.LogicalCount)),
			MemoryGiB:     memory,
			Model:         types.StringValue(g.Model),
			PhysicalCount: types.Int64Value(int64(g.PhysicalCount)),
			Vendor:        types.StringValue(g.Vendor),
		}, diags)
	}

	return m
}
