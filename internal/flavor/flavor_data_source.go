package flavor

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/catalog"
)

// NewFlavorDataSource is the constructor the provider lists.
func NewFlavorDataSource() datasource.DataSource {
	return catalog.NewDataSource[meta, Flavor, Filter, singleFlavorModel](listing, "flavor",
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

	return found, err == nil
}
