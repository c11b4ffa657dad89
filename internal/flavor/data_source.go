package flavor

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	// FlavorCache is the flavor listing shared by every flavor data source
	// of the provider process.
	FlavorCache() *Cache
}

// listing is the listing of the flavor data sources: a region's public flavors, listed once
// per region and run (FlavorCache).
var listing = adapter.CatalogListing[meta, Flavor, Filter]{
	Noun: "flavors", Field: "flavors",
	List: func(ctx context.Context, m meta, region string) ([]Flavor, error) {
		compute, err := m.Cloud().Base().Compute(region)
		if err != nil {
			return nil, err
		}

		return m.FlavorCache().Flavors(ctx, region, compute)
	},
	Match: Filter.Match,
}

// filterAttributes are the filters both flavor data sources take.
func filterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"architecture": adapter.OneOfFilter("Only flavors of this CPU architecture: `x86_64` or `aarch64`.", Architectures()...),
		"baremetal": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Only bare-metal flavors (`true`) or only virtual ones (`false`).",
		},
		"gpu_model":  adapter.TextFilter("Only flavors with GPUs of this model, e.g. `H100`."),
		"gpu_vendor": adapter.OneOfFilter("Only flavors with GPUs of this vendor: `NVIDIA` or `AMD`.", GPUVendors()...),
		"min_cpus":   minimum("Only flavors with at least this many CPUs."),
		"min_gpus":   minimum("Only flavors with at least this many GPUs, counted as the operating system sees them (`gpu.logical_count`)."),
		"min_memory_gib": schema.Float64Attribute{
			Optional:            true,
			MarkdownDescription: "Only flavors with at least this much memory, in GiB.",
			Validators:          []validator.Float64{float64validator.AtLeast(0)},
		},
		"region": adapter.RegionFilter("flavors"),
	}
}

// minimum is an optional count filter: at least 0.
func minimum(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Optional:            true,
		MarkdownDescription: description,
		Validators:          []validator.Int64{int64validator.AtLeast(0)},
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
	base.Baremetal = f.Baremetal.ValueBoolPointer()
	base.MinCPUs = intPointer(f.MinCPUs)
	base.MinGPUs = intPointer(f.MinGPUs)
	base.MinMemoryGiB = f.MinMemoryGiB.ValueFloat64Pointer()

	return base
}

// intPointer is v as an *int; nil when v is null or unknown.
func intPointer(v types.Int64) *int {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}

	n := int(v.ValueInt64())

	return &n
}

// NewFlavorsDataSource is the constructor the provider lists.
func NewFlavorsDataSource() datasource.DataSource {
	return adapter.NewCatalogDataSource[meta, Flavor, Filter, flavorsModel](listing, "flavors",
		"The public Nova flavors of a region, restricted to the provider's `flavor_ids` and enriched by its "+
			"`flavors` descriptions (CPU architecture and family, bare metal, pinning, GPUs), filtered. "+
			"All flavor data sources of a region share one Nova flavor list per Terraform run.",
		filterAttributes(), map[string]schema.Attribute{
			"flavors": adapter.ComputedList("The flavors that match every filter, sorted by name (then ID).", flavorAttributes()),
		})
}

type flavorsModel struct {
	filterModel

	Flavors types.List `tfsdk:"flavors"`
}

func (m *flavorsModel) Query() (*types.String, Filter) {
	return &m.Region, m.filter(Filter{})
}

func (m *flavorsModel) Keep(ctx context.Context, matches []Flavor, _ string, diags *diag.Diagnostics) {
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

// NewFlavorDataSource is the constructor the provider lists.
func NewFlavorDataSource() datasource.DataSource {
	return adapter.NewCatalogDataSource[meta, Flavor, Filter, singleFlavorModel](listing, "flavor",
		"One public Nova flavor of a region, enriched like those of `unikorn_flavors` and found with the same "+
			"filters plus `name`. Exactly one flavor must match, unless `smallest = true` picks the cheapest that fits; otherwise "+
			"the error says how many matched and lists them.",
		filterAttributes(), map[string]schema.Attribute{
			"flavor": adapter.ComputedObject("The flavor found, with the same attributes as an element of `unikorn_flavors.flavors`.",
				flavorAttributes()),
			"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the flavor found (the same as `flavor.id`)."},
			"name": adapter.TextFilter("Only the flavor of exactly this name."),
			"smallest": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "When several flavors match, pick the cheapest instead of failing: fewest GPUs, then fewest CPUs, " +
					"then least memory, then least disk, virtual before bare metal, then by name and ID.",
			},
		})
}

type singleFlavorModel struct {
	filterModel

	Flavor   types.Object `tfsdk:"flavor"`
	ID       types.String `tfsdk:"id"`
	Name     types.String `tfsdk:"name"`
	Smallest types.Bool   `tfsdk:"smallest"`
}

func (m *singleFlavorModel) Query() (*types.String, Filter) {
	return &m.Region, m.filter(Filter{Name: m.Name.ValueString()})
}

func (m *singleFlavorModel) Keep(ctx context.Context, matches []Flavor, region string, diags *diag.Diagnostics) {
	found, ok := pickOne(matches, m.Smallest.ValueBool(), region, diags)
	if !ok {
		return
	}

	m.Flavor = adapter.ObjectOf(ctx, flavorType, flattenFlavor(ctx, found, diags), diags)
	m.ID = types.StringValue(found.ID)

	tflog.Debug(ctx, "Found flavor", map[string]any{"flavor_id": found.ID, "flavor_name": found.Name})
}

// pickOne is the singular's rule: the smallest match when smallest is set,
// else exactly one match; false when there is none to pick (the diagnostics say why).
func pickOne(matches []Flavor, smallest bool, region string, diags *diag.Diagnostics) (Flavor, bool) {
	if smallest && len(matches) > 0 {
		return Smallest(matches), true
	}

	return adapter.Singular[Flavor]{Noun: "flavor", Nouns: "flavors", Label: label}.One(matches, region,
		fmt.Sprintf("No public flavor in region %s matches the filters (after the provider's flavor_ids allow-list).", region),
		"Narrow the filters, or set smallest = true to pick the cheapest.", diags)
}
