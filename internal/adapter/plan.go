package adapter

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Plan is the opening of ModifyPlan: the planned, configured and prior (nil on create) models.
type Plan[M any] struct {
	Plan   M
	Config M
	State  *M
}

// OpenPlan reads the models of a ModifyPlan call; false on destroy, or when a model could not
// be read (the diagnostics say why).
func OpenPlan[M any](ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) (*Plan[M], bool) {
	if req.Plan.Raw.IsNull() {
		return nil, false // destroy
	}

	p := &Plan[M]{}

	diags.Append(req.Plan.Get(ctx, &p.Plan)...)
	diags.Append(req.Config.Get(ctx, &p.Config)...)

	if !req.State.Raw.IsNull() {
		p.State = new(M)
		diags.Append(req.State.Get(ctx, p.State)...)
	}

	return p, !diags.HasError()
}

// Creating tells whether the plan creates the object.
func (p *Plan[M]) Creating() bool { return p.State == nil }

// Save writes the plan back.
func (p *Plan[M]) Save(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &p.Plan)...)
}

// Summaries of the region rule's diagnostics, the same for every resource.
const (
	SummaryRegionNotServed = "Region not served"
	SummaryRegionKept      = "Region kept"
)

// PlanRegion is the one region rule of every regional resource (DESIGN.md §8), in ModifyPlan.
// An unset region is the provider's default region at creation and is kept in state after
// that (RegionAttribute keeps it through UseStateForUnknown): a later change of the provider's
// default moves and replaces nothing, and the plan says so with a warning. A region set in the
// configuration must be served; changing it replaces the object (RegionAttribute's
// RequiresReplaceIfConfigured). Before the provider is configured the value is returned as it is.
func (b *ResourceBase[T]) PlanRegion(planned, configured types.String, diags *diag.Diagnostics) types.String {
	c := b.Cloud()
	if c == nil {
		return planned
	}

	return planRegion(c, b.kind.Noun, planned, configured, diags)
}

// regionServer is what the region rule needs of the cloud client.
type regionServer interface {
	DefaultRegion() string
	ResolveRegion(region string) (string, error)
}

func planRegion(c regionServer, noun string, planned, configured types.String, diags *diag.Diagnostics) types.String {
	if configured.IsUnknown() {
		return planned
	}

	if planned.IsUnknown() && configured.IsNull() {
		return types.StringValue(c.DefaultRegion())
	}

	if planned.IsNull() || planned.IsUnknown() {
		return planned
	}

	region := planned.ValueString()
	if _, err := c.ResolveRegion(region); err != nil {
		diags.AddAttributeError(path.Root("region"), SummaryRegionNotServed, err.Error())
		return planned
	}

	if configured.IsNull() && region != c.DefaultRegion() {
		diags.AddAttributeWarning(path.Root("region"), SummaryRegionKept, fmt.Sprintf(
			"This %s stays in region %s, where it was created; the provider's default region is now %s. "+
				"An unset region never moves an existing object: set region to move it (which replaces it).",
			noun, region, c.DefaultRegion()))
	}

	return planned
}
