package flavor

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

var _ datasource.DataSourceWithConfigure = (*flavorDataSource)(nil)

// NewFlavorDataSource is the constructor the provider lists.
func NewFlavorDataSource() datasource.DataSource {
	return &flavorDataSource{}
}

type flavorDataSource struct {
	meta meta
}

func (d *flavorDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_flavor"
}

func (d *flavorDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attributes := filterAttributes()
	attributes["flavor"] = schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The flavor found, with the same attributes as an element of `unikorn_flavors.flavors`.",
		Attributes:          flavorAttributes(),
	}
	attributes["id"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "ID of the flavor found (the same as `flavor.id`).",
	}
	attributes["name"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Only the flavor of exactly this name.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attributes["smallest"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "When several flavors match, pick the cheapest instead of failing: fewest GPUs, then fewest CPUs, " +
			"then least memory, then least disk, virtual before bare metal, then by name and ID.",
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "One public Nova flavor of a region, enriched like those of `unikorn_flavors` and found with the same " +
			"filters plus `name`. Exactly one flavor must match, unless `smallest = true` picks the cheapest that fits; otherwise " +
			"the error says how many matched and lists them.",
		Attributes: attributes,
	}
}

func (d *flavorDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		d.meta = m
	}
}

func (d *flavorDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before this data source was read. This is a bug in the provider; please report it.")
		return
	}

	var data singleFlavorModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_flavor")

	matches, diags := data.selectFlavors(ctx, d.meta, Filter{Name: data.Name.ValueString()})
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	found, diags := pickOne(matches, data.Smallest.ValueBool(), data.Region.ValueString())
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	item, diags := flattenFlavor(ctx, found)
	resp.Diagnostics.Append(diags...)

	data.Flavor, diags = types.ObjectValueFrom(ctx, flavorAttrTypes, item)
	resp.Diagnostics.Append(diags...)

	data.ID = types.StringValue(found.ID)

	if resp.Diagnostics.HasError() {
		return
	}

	tflog.Debug(ctx, "Found flavor", map[string]any{"flavor_id": found.ID, "flavor_name": found.Name})

	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// pickOne is the singular's rule: the smallest match when smallest is set,
// else exactly one match.
func pickOne(matches []Flavor, smallest bool, region string) (Flavor, diag.Diagnostics) {
	var diags diag.Diagnostics

	if smallest && len(matches) > 0 {
		return Smallest(matches), nil
	}

	found, err := ExactlyOne(matches)

	switch {
	case errors.Is(err, ErrNoMatch):
		diags.AddError("No flavor found",
			fmt.Sprintf("No public flavor in region %s matches the filters (after the provider's flavor_ids allow-list).", region))
	case errors.Is(err, ErrAmbiguous):
		diags.AddError("Several flavors found",
			fmt.Sprintf("In region %s: %s. Narrow the filters, or set smallest = true to pick the cheapest.", region, err))
	case err != nil:
		diags.AddError("Error selecting a flavor", err.Error())
	}

	return found, diags
}

type singleFlavorModel struct {
	filterModel

	Flavor   types.Object `tfsdk:"flavor"`
	ID       types.String `tfsdk:"id"`
	Name     types.String `tfsdk:"name"`
	Smallest types.Bool   `tfsdk:"smallest"`
}
