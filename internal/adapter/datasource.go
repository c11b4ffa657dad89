package adapter

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ReadFunc is what is special about a data source: it fills data, the configuration read into
// the data source's model, with its result. A failure is reported in diags.
type ReadFunc[T Meta, M any] func(ctx context.Context, meta T, data *M, diags *diag.Diagnostics)

// DataSource is a data source written as its schema and its ReadFunc: the kit answers
// Metadata, Configure and Schema, and opens and closes Read: the provider-data guard, the
// configuration read into the model M, the data source's log field, and the state written
// unless the read failed. T is the concept's view of the provider's client bundle.
type DataSource[T Meta, M any] struct {
	DataSourceBase[T]

	schema schema.Schema
	read   ReadFunc[T, M]
}

var _ datasource.DataSourceWithConfigure = (*DataSource[Meta, struct{}])(nil)

// NewDataSource is the data source unikorn_<k.TypeName> of schema s, read by read. k.Noun
// names what it lists in its one summary: "Error reading flavors".
func NewDataSource[T Meta, M any](k Kind, s schema.Schema, read ReadFunc[T, M]) *DataSource[T, M] {
	return &DataSource[T, M]{DataSourceBase: NewDataSourceBase[T](k), schema: s, read: read}
}

// DataSourceSchema is the schema described by description whose attributes are the union of
// parts (shared fragments and the data source's own attributes; a later part wins).
func DataSourceSchema(description string, parts ...map[string]schema.Attribute) schema.Schema {
	all := map[string]schema.Attribute{}
	for _, p := range parts {
		maps.Copy(all, p)
	}

	return schema.Schema{MarkdownDescription: description, Attributes: all}
}

// Schema answers the data source's schema.
func (d *DataSource[T, M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

// Read reads the configuration into M, lets the ReadFunc fill it and writes it as the state.
func (d *DataSource[T, M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !d.Configured() {
		resp.Diagnostics.AddError("Error reading "+d.kind.Noun, "The provider is not configured.")
		return
	}

	data, ok := Get[M](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_"+d.kind.TypeName)

	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()

	d.read(ctx, d.Meta, &data, &resp.Diagnostics)

	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
	}
}

// ReadRegion is the region rule of a regional data source: its `region` (unset: the provider's
// default) must be served, and the resolved name is recorded in it. false when the region is
// not served (an attribute error says so).
func ReadRegion(c regionServer, region *types.String, diags *diag.Diagnostics) (string, bool) {
	name, err := c.ResolveRegion(region.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("region"), SummaryRegionNotServed, err.Error())
		return "", false
	}

	*region = types.StringValue(name)

	return name, true
}

// ObjectType is the object type of attributes, taken from the schema so that it always
// matches it.
func ObjectType(attributes map[string]schema.Attribute) types.ObjectType {
	t := types.ObjectType{AttrTypes: make(map[string]attr.Type, len(attributes))}
	for name, a := range attributes {
		t.AttrTypes[name] = a.GetType()
	}

	return t
}

// ObjectOf is the object of type t made of the model v (a struct with tfsdk tags).
func ObjectOf(ctx context.Context, t types.ObjectType, v any, diags *diag.Diagnostics) types.Object {
	obj, d := types.ObjectValueFrom(ctx, t.AttrTypes, v)
	diags.Append(d...)

	return obj
}

// ListOf is the list of objects of type t made of items, each turned into its model by
// flatten.
func ListOf[E, V any](ctx context.Context, t types.ObjectType, items []E, flatten func(E) V, diags *diag.Diagnostics) types.List {
	elems := make([]V, len(items))
	for i, item := range items {
		elems[i] = flatten(item)
	}

	list, d := types.ListValueFrom(ctx, t, elems)
	diags.Append(d...)

	return list
}

// WriteState writes model into an empty state of the schema of ds, as the framework does at
// the end of Read: a model whose tfsdk tags or value types do not match the schema fails here.
// It lets a unit test check a model against its schema without a CLI.
func WriteState(ctx context.Context, ds datasource.DataSource, model any) diag.Diagnostics {
	resp := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, resp)

	state := tfsdk.State{Schema: resp.Schema, Raw: tftypes.NewValue(resp.Schema.Type().TerraformType(ctx), nil)}

	return state.Set(ctx, model)
}

// The prior values of computed collections that are never null (a data source's results): given
// to StringList, StringSet or StringMap, they write an empty collection as [] or {}, not null.
var (
	NeverNullList = types.ListValueMust(types.StringType, nil)
	NeverNullSet  = types.SetValueMust(types.StringType, nil)
	NeverNullMap  = types.MapValueMust(types.StringType, nil)
)

// The shared schema fragments of data sources. Each takes the attribute's description.

// TextFilter is an optional free-text filter: not empty.
func TextFilter(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: description,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// OneOfFilter is an optional filter that is one of values.
func OneOfFilter(description string, values ...string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: description,
		Validators:          []validator.String{stringvalidator.OneOf(values...)},
	}
}

// RegionFilter is the `region` whose objects (a plural noun: "flavors") a regional data source
// lists; unset, the provider's default region (ReadRegion records the resolved one).
func RegionFilter(objects string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "Region whose " + objects + " are listed. Default: the provider's `region`.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// ComputedList is a computed list of the objects described by attributes: a data source's
// result.
func ComputedList(description string, attributes map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: description,
		NestedObject:        schema.NestedAttributeObject{Attributes: attributes},
	}
}

// ComputedObject is a computed object described by attributes.
func ComputedObject(description string, attributes map[string]schema.Attribute) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: description,
		Attributes:          attributes,
	}
}
