package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// RegionalAdmin is the base of a region's own object made as the service user (region
// preparation: unikorn_flavor, unikorn_image, unikorn_provider_network): the kit's ResourceBase,
// the opening of its operations on the core C bound to the resolved region (OpenAdmin), and
// what such resources share: Read ("gone, or found again by name"), Delete, ImportState and
// the region rule of ModifyPlan. The concept writes Create, Update and ValidateConfig, and says
// the rest in its AdminOps.
type RegionalAdmin[T Meta, C, M any, PM interface {
	*M
	AdminModel
}] struct {
	ResourceBase[T]

	ops AdminOps[T, C, M]
}

// RegionalObject is what the kit reads of a regional admin resource's model: embedded in the
// model, it makes it an AdminModel of a regional object.
type RegionalObject struct {
	ID       types.String   `tfsdk:"id"`
	Name     types.String   `tfsdk:"name"`
	Region   types.String   `tfsdk:"region"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// Opening makes the model an AdminModel.
func (o *RegionalObject) Opening() AdminOpening {
	return AdminOpening{Name: o.Name, ID: o.ID, Regional: true, Region: o.Region, Timeouts: o.Timeouts}
}

// AdminOps is what is special about one regional admin resource.
type AdminOps[T Meta, C, M any] struct {
	// Bind binds the core to the resolved region in the service user's own scope.
	Bind func(meta T, c *cloud.Client, region string) (C, error)
	// Observe reads the object recorded in m again (by its ID, else by its name) and writes
	// what the cloud holds into m.
	Observe func(ctx context.Context, core C, m *M, diags *diag.Diagnostics) (Observed, error)
	// Delete deletes the object recorded in m; already gone is success.
	Delete func(ctx context.Context, core C, m *M) error
	// Locate finds the object to import by its ID or its name.
	Locate func(ctx context.Context, core C, idOrName string) (cloud.Located, error)
	// Changed, when set, runs after every operation but Read, whatever its outcome (a cache of
	// the kind forgets the object).
	Changed func(meta T, core C, m *M)
	// ModifyPlan, when set, is the resource's own part of ModifyPlan after the region rule: it
	// checks the plan and may change it. plan and config are nil on destroy, state nil on create.
	ModifyPlan func(ctx context.Context, plan, config, state *M, diags *diag.Diagnostics)
}

// Observed is what a Read found of the recorded object.
type Observed struct {
	// Gone says that the object is gone altogether: it leaves the state.
	Gone bool
	// RefoundFrom is the recorded ID when that object is gone and the object of its name (Name,
	// ID) is taken for it, which a warning says; Detail says more of that one (", created at T").
	RefoundFrom, Name, ID, Detail string
}

// NewRegionalAdmin is the base of the resource of kind k written with ops.
func NewRegionalAdmin[T Meta, C, M any, PM interface {
	*M
	AdminModel
}](k Kind, ops AdminOps[T, C, M]) RegionalAdmin[T, C, M, PM] {
	return RegionalAdmin[T, C, M, PM]{ResourceBase: NewResourceBase[T](k), ops: ops}
}

// Open is the kit's opening of one operation (OpenAdmin): do runs with the core bound to the
// resolved region (region: "region R", for messages) and the model read from src.
func (r *RegionalAdmin[T, C, M, PM]) Open(ctx context.Context, opKind Op, src Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *Operation, core C, m *M, region InRegion, subject func(id string) string),
) {
	var region InRegion

	OpenAdmin[T, M, PM](ctx, &r.ResourceBase, opKind, src, diags,
		func(c *cloud.Client, name string) (C, error) {
			region = InRegion(name)
			return r.ops.Bind(r.Meta, c, name)
		},
		func(ctx context.Context, op *Operation, core C, m *M, subject func(string) string) {
			do(ctx, op, core, m, region, subject)

			if opKind != Read && r.ops.Changed != nil {
				r.ops.Changed(r.Meta, core, m)
			}
		})
}

// Read refreshes every attribute from the cloud: an object gone by ID and found again by name
// is said with a warning, one gone altogether leaves the state.
func (r *RegionalAdmin[T, C, M, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Open(ctx, Read, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *Operation, core C, state *M, region InRegion, subject func(string) string) {
			id := PM(state).Opening().ID.ValueString()

			obs, err := r.ops.Observe(ctx, core, state, &resp.Diagnostics)
			if err != nil {
				op.Fail(subject(id), err)
				return
			}

			if obs.Gone {
				tflog.Warn(ctx, "The "+r.kind.Noun+" is gone; removing it from state", map[string]any{"id": id})
				resp.State.RemoveResource(ctx)

				return
			}

			if obs.RefoundFrom != "" {
				resp.Diagnostics.AddWarning("Found again by name", fmt.Sprintf(
					"The %[1]s %[2]q recorded as %[3]s is gone from %[4]s; %[5]s, the %[1]s of that name%[6]s, is taken for "+
						"it. If it is not the one this configuration made, remove this resource from the state before applying "+
						"or destroying.", r.kind.Noun, obs.Name, obs.RefoundFrom, region, obs.ID, obs.Detail))
			}

			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		})
}

// Delete deletes the recorded object; already gone is success.
func (r *RegionalAdmin[T, C, M, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, Delete, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *Operation, core C, state *M, _ InRegion, subject func(string) string) {
			if err := r.ops.Delete(ctx, core, state); err != nil {
				op.Fail(subject(PM(state).Opening().ID.ValueString()), err)
			}
		})
}

// ImportState imports by `REGION/ID`, `REGION/name`, `ID` or `name` (a bare one means the
// provider's default region: an operator may give a catalog object the same ID in every
// region); Read fills in the rest.
func (r *RegionalAdmin[T, C, M, PM]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.importRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		core, err := r.ops.Bind(r.Meta, r.Cloud(), region)
		if err != nil {
			return cloud.Located{}, err
		}

		return r.ops.Locate(ctx, core, idOrName)
	}, false)
}

// ModifyPlan applies the region rule, then the resource's own part (AdminOps.ModifyPlan).
func (r *RegionalAdmin[T, C, M, PM]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		if r.ops.ModifyPlan != nil && !req.State.Raw.IsNull() {
			if state, ok := Get[M](ctx, req.State, &resp.Diagnostics); ok {
				r.ops.ModifyPlan(ctx, nil, nil, &state, &resp.Diagnostics)
			}
		}

		return
	}

	p, ok := OpenPlan[M](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	region := r.PlanRegion(PM(&p.Plan).Opening().Region, PM(&p.Config).Opening().Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	if r.ops.ModifyPlan != nil {
		r.ops.ModifyPlan(ctx, &p.Plan, &p.Config, p.State, &resp.Diagnostics)
	}

	p.Save(ctx, resp)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("region"), region)...)
}

// Made is what a create or an update of a regional admin object left in the cloud: the
// object's name and ID (no ID: nothing exists), and whether a create adopted what an
// interrupted create of the same type left unfinished instead of making one (Adopted), found
// Where ("in region R").
type Made struct {
	ID, Name, Where string
	Adopted         bool
}

// Record ends a create or an update whatever happened after the core acted: when nothing
// exists, the failure err (an object of the name that the create may not adopt, a
// *cloud.ExistsError, at the attribute `name`); otherwise a warning for an adopted object, the
// object written by flatten into m and m into the state (a failed apply leaves a tainted
// resource, never an untracked object), then the failure err, if any. It tells whether all went
// well.
func (r *RegionalAdmin[T, C, M, PM]) Record(ctx context.Context, op *Operation, m *M, made Made, err error,
	subject func(id string) string, state *tfsdk.State, diags *diag.Diagnostics, flatten func(m *M),
) bool {
	if made.ID == "" {
		if exists := (*cloud.ExistsError)(nil); errors.As(err, &exists) {
			diags.AddAttributeError(path.Root("name"), strings.ToUpper(r.kind.Noun[:1])+r.kind.Noun[1:]+" exists already", err.Error())
			return false
		}

		op.Fail(subject(PM(m).Opening().ID.ValueString()), err)

		return false
	}

	if made.Adopted {
		diags.AddWarning("Adopted an unfinished "+r.kind.Noun, fmt.Sprintf("The %[1]s %[2]q (%[3]s) %[4]s was left unfinished "+
			"by an interrupted create of this resource type (it carries this provider's creation mark and no completion "+
			"mark), and was adopted instead of a new one being made.", r.kind.Noun, made.Name, made.ID, made.Where))
	}

	flatten(m)
	diags.Append(state.Set(ctx, m)...)

	if err != nil {
		op.Fail(subject(made.ID), err)
		return false
	}

	return true
}
