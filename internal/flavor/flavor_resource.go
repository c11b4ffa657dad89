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

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var (
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
	return &managedResource{adapter.NewRegionalAdmin[meta, *Admin, managedModel](
		adapter.Kind{TypeName: "flavor", Noun: "flavor", Timeouts: managedTimeouts},
		adapter.AdminOps[meta, *Admin, managedModel]{
			Bind:    func(_ meta, c *cloud.Client, region string) (*Admin, error) { return bindAdmin(c, region) },
			Observe: observeManaged,
			Delete:  func(ctx context.Context, a *Admin, m *managedModel) error { return a.Delete(ctx, m.ID.ValueString()) },
			Locate:  locateManaged,
			// After a change, a flavor data source read later in this run lists Nova again.
			Changed: func(mt meta, a *Admin, m *managedModel) { mt.FlavorCache().forget(a.Region(), m.ID.ValueString()) },
		})}
}

// managedResource is unikorn_flavor: the kit's regional admin resource (Read, Delete,
// ImportState, ModifyPlan) with its Create, Update and ValidateConfig.
type managedResource struct {
	adapter.RegionalAdmin[meta, *Admin, managedModel, *managedModel]
}

// bindAdmin is the flavor core of the resolved region in the service user's own scope.
func bindAdmin(c *cloud.Client, region string) (*Admin, error) {
	compute, err := c.Base().Compute(region)
	if err != nil {
		return nil, err
	}

	return NewAdmin(compute, region, c.AdminRefusal), nil
}

// observeManaged reads the recorded flavor again: by ID, else found again by name.
func observeManaged(ctx context.Context, a *Admin, m *managedModel, _ *diag.Diagnostics) (adapter.Observed, error) {
	out, err := a.Observe(ctx, m.ID.ValueString(), m.Name.ValueString())
	if out == nil || err != nil {
		return adapter.Observed{Gone: err == nil}, err
	}

	flattenManaged(m, out, a.Region())

	return adapter.Observed{RefoundFrom: out.PreviousID, Name: out.Name, ID: out.ID}, nil
}

// locateManaged finds the flavor to import by its ID or its name.
func locateManaged(ctx context.Context, a *Admin, idOrName string) (cloud.Located, error) {
	f, err := a.Locate(ctx, idOrName)
	if f == nil {
		if err == nil {
			err = fmt.Errorf("region %s has no flavor with the ID or name %q", a.Region(), idOrName)
		}

		return cloud.Located{}, err
	}

	return cloud.Located{ID: f.ID, Name: f.Name}, nil
}

// record writes what exists into state, whatever happened next: a failed apply leaves a
// tainted resource, never an untracked flavor.
func (r *managedResource) record(ctx context.Context, op *adapter.Operation, m *managedModel, out *Managed, err error,
	region adapter.InRegion, subject func(string) string, state *tfsdk.State, diags *diag.Diagnostics,
) {
	if out == nil || out.ID == "" {
		op.Fail(subject(m.ID.ValueString()), err)
		return
	}

	if out.Adopted {
		r.Adopted(diags, out.Name, out.ID, fmt.Sprintf("in %s with the sizes of this configuration", region))
	}

	flattenManaged(m, out, string(region))
	diags.Append(state.Set(ctx, m)...)

	if err != nil {
		op.Fail(subject(out.ID), err)
	}
}

// Create makes the flavor, or adopts the one of its name with the same sizes.
func (r *managedResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, plan *managedModel, region adapter.InRegion, subject func(string) string) {
			spec := expandManaged(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			out, err := a.Ensure(ctx, spec)
			r.record(ctx, op, plan, out, err, region, subject, &resp.State, &resp.Diagnostics)
		})
}

// Update converges the extra specs and the access list in place, from what Nova holds now.
func (r *managedResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, a *Admin, plan *managedModel, region adapter.InRegion, subject func(string) string) {
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
			r.record(ctx, op, plan, out, err, region, subject, &resp.State, &resp.Diagnostics)
		})
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
