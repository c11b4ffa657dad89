package flavor

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/catalog"
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
var listing = catalog.Listing[meta, Flavor, Filter]{
	Noun: "flavors", Field: "flavors",
	List: func(ctx context.Context, m meta, region string) ([]Flavor, error) {
		compute, err := m.Cloud().Base().Compute(region)
		if err != nil {
			return nil, err
		}

		return m.FlavorCache().Flavors(ctx, region, compute)
	},
	Select: Select,
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
