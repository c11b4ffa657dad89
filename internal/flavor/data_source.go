package flavor

import (
	"context"
	"fmt"
	"maps"

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
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	// FlavorCache is the flavor listing shared by every flavor data source
	// of the provider process.
	FlavorCache() *Cache
}

// model is what unikorn_flavors and unikorn_flavor have in common: the filters, and a
// result made of the flavors that match them.
type model interface {
	// query is the region to list (resolved in place) and the core filter of the model.
	query() (*types.String, Filter)
	// keep records the result of the matching flavors of region.
	keep(ctx context.Context, matches []Flavor, region string, diags *diag.Diagnostics)
}

// dataSource is the one shape of the flavor data sources: read the configured filters,
// select the region's flavors from the shared listing, let the model keep its result.
// M is the model, P its pointer type (which implements model).
type dataSource[M any, P interface {
	*M
	model
}] struct {
	adapter.DataSourceBase[meta]

	schema schema.Schema
}

var (
	_ datasource.DataSourceWithConfigure = (*dataSource[flavorsModel, *flavorsModel])(nil)
	_ datasource.DataSourceWithConfigure = (*dataSource[singleFlavorModel, *singleFlavorModel])(nil)
)

// newDataSource is the data source unikorn_<typeName>: the filters plus attributes.
func newDataSource[M any, P interface {
	*M
	model
}](typeName, description string, attributes map[string]schema.Attribute) *dataSource[M, P] {
	all := filterAttributes()
	maps.Copy(all, attributes)

	return &dataSource[M, P]{
		DataSourceBase: adapter.NewDataSourceBase[meta](adapter.Kind{TypeName: typeName, Noun: "flavor"}),
		schema:         schema.Schema{MarkdownDescription: description, Attributes: all},
	}
}

func (d *dataSource[M, P]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

func (d *dataSource[M, P]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !d.Configured() {
		resp.Diagnostics.AddError("Error reading flavors", "The provider is not configured.")
		return
	}

	data, ok := adapter.Get[M](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_"+d.Kind().TypeName)
	region, filter := P(&data).query()

	if matches, ok := selectFlavors(ctx, d.Meta, region, filter, &resp.Diagnostics); ok {
		P(&data).keep(ctx, matches, region.ValueString(), &resp.Diagnostics)
	}

	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
	}
}

// selectFlavors resolves the region (and records it), takes the region's flavors from the
// shared listing and returns those that match filter; false on failure (the diagnostics say
// why).
func selectFlavors(ctx context.Context, m meta, region *types.String, filter Filter, diags *diag.Diagnostics) ([]Flavor, bool) {
	c := m.Cloud()

	name, err := c.ResolveRegion(region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), adapter.SummaryRegionNotServed, err.Error())
		return nil, false
	}

	*region = types.StringValue(name)
	ctx = tflog.SetField(ctx, "region", name)

	var all []Flavor

	compute, err := c.Base().Compute(name)
	if err == nil {
		all, err = m.FlavorCache().Flavors(ctx, name, compute)
	}

	if err != nil {
		diags.AddError("Error listing flavors", fmt.Sprintf("region %s: %s", name, err))
		return nil, false
	}

	matches := Select(all, filter)

	tflog.Debug(ctx, "Selected flavors", map[string]any{"flavors": len(all), "matches": len(matches)})

	return matches, true
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
		"min_cpus": minimum("Only flavors with at least this many CPUs."),
		"min_gpus": minimum("Only flavors with at least this many GPUs, counted as the operating system sees them (`gpu.logical_count`)."),
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

// objectType is the object type of attributes, taken from the schema so that it always
// matches it.
func objectType(attributes map[string]schema.Attribute) types.ObjectType {
	t := types.ObjectType{AttrTypes: make(map[string]attr.Type, len(attributes))}
	for name, a := range attributes {
		t.AttrTypes[name] = a.GetType()
	}

	return t
}
