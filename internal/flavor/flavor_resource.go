package flavor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var (
	_ resource.ResourceWithConfigure      = (*managedResource)(nil)
	_ resource.ResourceWithImportState    = (*managedResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*managedResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedResource)(nil)
)

// managedTimeouts are the operations' default timeouts: every Nova flavor call is synchronous.
var managedTimeouts = adapter.Timeouts{
	Create: 5 * time.Minute, Read: 2 * time.Minute, Update: 5 * time.Minute, Delete: 5 * time.Minute,
}

// NewFlavorResource is unikorn_flavor, the constructor the provider lists.
func NewFlavorResource() resource.Resource {
	return &managedResource{ResourceBase: adapter.NewResourceBase[meta](
		adapter.Kind{TypeName: "flavor", Noun: "flavor", Timeouts: managedTimeouts})}
}

// managedResource is unikorn_flavor.
type managedResource struct {
	adapter.ResourceBase[meta]
}

// bindAdmin is the flavor core of the resolved region in the service user's own scope.
func bindAdmin(c *cloud.Client, region string) (*Admin, error) {
	compute, err := c.Base().Compute(region)
	if err != nil {
		return nil, err
	}

	return NewAdmin(compute, region, c.AdminRefusal), nil
}

// run is the kit's opening of an admin resource (adapter.OpenAdmin); after a change, a
// flavor data source read later in this run lists Nova again.
func (r *managedResource) run(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, a *Admin, m *managedModel, subject func(id string) string),
) {
	adapter.OpenAdmin[meta, managedModel](ctx, &r.ResourceBase, opKind, src, diags, bindAdmin,
		func(ctx context.Context, op *adapter.Operation, a *Admin, m *managedModel, subject func(string) string) {
			do(ctx, op, a, m, subject)

			if opKind != adapter.Read {
				r.Meta.FlavorCache().forget(a.Region(), m.ID.ValueString())
			}
		})
}

// record writes what exists into state, whatever happened next: a failed apply leaves a
// tainted resource, never an untracked flavor.
func record(ctx context.Context, op *adapter.Operation, m *managedModel, out *Managed, err error, region string,
	subject func(string) string, state *tfsdk.State, diags *diag.Diagnostics,
) {
	if out == nil || out.ID == "" {
		op.Fail(subject(m.ID.ValueString()), err)
		return
	}

	if out.Adopted {
		diags.AddWarning("Adopted an existing flavor", fmt.Sprintf("The flavor %s (%s) already existed in region %s with the "+
			"sizes of this configuration and was adopted instead of a new one being made (an interrupted apply leaves such "+
			"flavors behind). If another workspace manages it, remove this resource from this configuration.",
			out.Name, out.ID, region))
	}

	flattenManaged(m, out, region)
	diags.Append(state.Set(ctx, m)...)

	if err != nil {
		op.Fail(subject(out.ID), err)
	}
}

// Create makes the flavor, or adopts the one of its name with the same sizes.
func (r *managedResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.run(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, plan *managedModel, subject func(string) string) {
			spec := expandManaged(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			out, err := a.Ensure(ctx, spec)
			record(ctx, op, plan, out, err, a.Region(), subject, &resp.State, &resp.Diagnostics)
		})
}

// Read refreshes every attribute from Nova; a flavor gone by ID and found again by name is
// said with a warning, one gone altogether leaves the state.
func (r *managedResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.run(ctx, adapter.Read, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, state *managedModel, subject func(string) string) {
			out, err := a.Observe(ctx, state.ID.ValueString(), state.Name.ValueString())
			if err != nil {
				op.Fail(subject(state.ID.ValueString()), err)
				return
			}

			if out == nil {
				tflog.Warn(ctx, "The flavor is gone; removing it from state")
				resp.State.RemoveResource(ctx)

				return
			}

			if out.PreviousID != "" {
				resp.Diagnostics.AddWarning("Found again by name", fmt.Sprintf("The flavor %s recorded as %s is gone from "+
					"region %s; %s, the flavor of that name, is taken for it. If it is not the one this configuration made, "+
					"remove this resource from the state before applying or destroying.", out.Name, out.PreviousID, a.Region(), out.ID))
			}

			flattenManaged(state, out, a.Region())
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		})
}

// Update converges the extra specs and the access list in place, from what Nova holds now.
func (r *managedResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.run(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, plan *managedModel, subject func(string) string) {
			spec := expandManaged(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			cur, err := a.Observe(ctx, plan.ID.ValueString(), plan.Name.ValueString())

			switch {
			case err != nil:
				op.Fail(subject(plan.ID.ValueString()), err)
				return
			case cur == nil:
				op.Fail(subject(plan.ID.ValueString()), errors.New("the flavor is gone from Nova; the next plan creates it again"))
				return
			}

			out, err := a.Converge(ctx, cur, spec)
			record(ctx, op, plan, out, err, a.Region(), subject, &resp.State, &resp.Diagnostics)
		})
}

// Delete deletes the recorded flavor; already gone is success.
func (r *managedResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.run(ctx, adapter.Delete, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, state *managedModel, subject func(string) string) {
			if err := a.Delete(ctx, state.ID.ValueString()); err != nil {
				op.Fail(subject(state.ID.ValueString()), err)
			}
		})
}

// ImportState imports by `REGION/ID`, `REGION/name`, `ID` or `name`.
func (r *managedResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		a, err := bindAdmin(r.Cloud(), region)
		if err != nil {
			return cloud.Located{}, err
		}

		f, err := a.Locate(ctx, idOrName)
		if f == nil {
			if err == nil {
				err = fmt.Errorf("region %s has no flavor with the ID or name %q", region, idOrName)
			}

			return cloud.Located{}, err
		}

		return cloud.Located{ID: f.ID, Name: f.Name}, nil
	})
}

// ModifyPlan applies the region rule.
func (r *managedResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[managedModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	p.Save(ctx, resp)
}

// ValidateConfig refuses access_project_ids on a public flavor.
func (r *managedResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[managedModel](ctx, req.Config, &resp.Diagnostics)
	if ok {
		checkAccess(config.IsPublic, config.AccessProjectIDs, &resp.Diagnostics)
	}
}

// checkAccess reports access projects on a flavor that is public (is_public true or unset,
// the default): Nova keeps access lists for private flavors only.
func checkAccess(public types.Bool, access types.Set, diags *diag.Diagnostics) {
	if access.IsNull() || public.IsUnknown() || (!public.IsNull() && !public.ValueBool()) {
		return
	}

	diags.AddAttributeError(path.Root("access_project_ids"), "Access list on a public flavor",
		"access_project_ids gives a private flavor to projects, but this flavor is public (is_public is true, or unset: "+
			"the default), which every project sees already. Set is_public = false, or remove access_project_ids.")
}
