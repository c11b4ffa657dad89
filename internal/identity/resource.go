package identity

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// The resource unikorn_identity adapts the core (Service) to terraform-plugin-framework: this
// file holds its CRUD methods and import; schema.go its schema and validators, plan.go its
// ModifyPlan, state.go the expansion of plans into specs and the flattening of what the core
// found into state.

var (
	_ resource.ResourceWithConfigure   = (*identityResource)(nil)
	_ resource.ResourceWithImportState = (*identityResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*identityResource)(nil)
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	IdentityConfig() *Config
}

// summaryLeftovers is the summary of a destroy refused because the project still holds tenant
// objects: not an error of the cloud, but a guard with a remedy (force_destroy).
const summaryLeftovers = "Identity still holds tenant objects"

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &identityResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "identity",
		Noun:     "identity",
		Timeouts: adapter.Timeouts{
			Create: 10 * time.Minute,
			Read:   5 * time.Minute,
			Update: 10 * time.Minute,
			Delete: 30 * time.Minute,
		},
	})}
}

type identityResource struct {
	adapter.ResourceBase[meta]
}

func (r *identityResource) service() *Service {
	return NewService(r.Cloud(), r.Meta.IdentityConfig())
}

// subject names the identity in messages: "unikorn-identity-<name> (project P)".
func subject(name, projectID string) string {
	if projectID != "" {
		projectID = "project " + projectID
	}

	return adapter.Subject(naming.IdentityProject(name), projectID, nil)
}

func (r *identityResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, adapter.Create, req.Plan, nil, &resp.State, &resp.Diagnostics)
}

// apply converges the identity of plan from the prior state (nil on create) and records it:
// as soon as the project exists, whatever failed after it, so that it is never lost (a failed
// create leaves a tainted resource, a failed update keeps what it did not reach).
func (r *identityResource) apply(ctx context.Context, kind adapter.Op, planned tfsdk.Plan, prior *tfsdk.State,
	to *tfsdk.State, diags *diag.Diagnostics,
) {
	plan, ok := adapter.Get[identityModel](ctx, planned, diags)
	if !ok {
		return
	}

	spec, d := expandSpec(ctx, plan)
	diags.Append(d...)

	var p Prior

	if prior != nil {
		state, ok := adapter.Get[identityModel](ctx, prior, diags)
		if !ok {
			return
		}

		p, d = expandPrior(ctx, state)
		diags.Append(d...)
	}

	ctx, op, ok := r.Begin(ctx, kind, plan.Timeouts, diags)
	defer op.End(ctx)

	if !ok || op.Failed() {
		return
	}

	ctx = tflog.SetField(ctx, "identity", spec.Name)
	if p.ProjectID != "" {
		ctx = tflog.SetField(ctx, "project_id", p.ProjectID)
	}

	out, err := r.service().Ensure(ctx, spec, p)
	if out.ProjectID == "" {
		op.Fail(subject(spec.Name, p.ProjectID), err)
		return
	}

	warn(out.Notices, diags)

	recorded := r.applied(ctx, plan, out, diags)
	diags.Append(to.Set(ctx, &recorded)...)

	if err != nil {
		op.Fail(subject(spec.Name, out.ProjectID), err)
	}
}

// openRecorded opens operation kind on the recorded state: the model, the IDs it records and
// the operation, which must be ended; false when the state could not be read.
func (r *identityResource) openRecorded(ctx context.Context, kind adapter.Op, from tfsdk.State, diags *diag.Diagnostics) (
	context.Context, identityModel, Ref, *adapter.Operation, bool,
) {
	state, ok := adapter.Get[identityModel](ctx, from, diags)

	ctx, op, begun := r.Begin(ctx, kind, state.Timeouts, diags)

	ref, d := state.recorded(ctx)
	diags.Append(d...)

	ctx = tflog.SetField(ctx, "project_id", ref.ProjectID)

	return ctx, state, ref, op, ok && begun && !diags.HasError()
}

func (r *identityResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, state, ref, op, ok := r.openRecorded(ctx, adapter.Read, req.State, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return
	}

	out, err := r.service().Observe(ctx, ref, quota.Expand(state.Quotas))
	if err != nil {
		op.Fail(subject(ref.Name, ref.ProjectID), err)
		return
	}

	if out == nil {
		tflog.Warn(ctx, "The identity's project is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	warn(out.Notices, &resp.Diagnostics)
	r.observed(ctx, &state, out, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *identityResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, adapter.Update, req.Plan, &req.State, &resp.State, &resp.Diagnostics)
}

func (r *identityResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, state, ref, op, ok := r.openRecorded(ctx, adapter.Delete, req.State, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return
	}

	notices, err := r.service().Delete(ctx, ref, state.ForceDestroy.ValueBool())
	warn(notices, &resp.Diagnostics)

	adapter.FailOrRefuse[*leftovers.Error](op, subject(ref.Name, ref.ProjectID), err, summaryLeftovers)
}

// warn shows the core's notices as warnings.
func warn(notices []Notice, diags *diag.Diagnostics) {
	for _, n := range notices {
		diags.AddWarning(n.Summary, n.Detail)
	}
}

// ImportState imports an identity by its Keystone project ID or by its name; Read fills in
// everything else.
func (r *identityResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, idOrName string) (cloud.Located, error) {
		return r.service().Locate(ctx, idOrName)
	})
}
