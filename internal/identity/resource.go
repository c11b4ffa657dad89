package identity

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
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
	plan, ok := adapter.Get[identityModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx, op, ok := r.Begin(ctx, adapter.Create, plan.Timeouts, &resp.Diagnostics)
	defer op.End(ctx)

	if ok {
		r.ensure(ctx, op, plan, nil, &resp.State, &resp.Diagnostics)
	}
}

// ensure converges the identity of plan from the prior state (nil on create) and records it:
// as soon as the project exists, whatever failed after it, so that it is never lost (a failed
// create leaves a tainted resource, a failed update keeps what it did not reach).
func (r *identityResource) ensure(ctx context.Context, op *adapter.Operation, plan identityModel, state *identityModel,
	to *tfsdk.State, diags *diag.Diagnostics,
) {
	spec, d := expandSpec(ctx, plan)
	diags.Append(d...)

	prior := Prior{}
	if state != nil {
		prior, d = expandPrior(ctx, *state)
		diags.Append(d...)
	}

	if op.Failed() {
		return
	}

	ctx = tflog.SetField(ctx, "identity", spec.Name)
	if prior.ProjectID != "" {
		ctx = tflog.SetField(ctx, "project_id", prior.ProjectID)
	}

	out, err := r.service().Ensure(ctx, spec, prior)
	if out.ProjectID == "" {
		op.Fail(subject(spec.Name, prior.ProjectID), err)
		return
	}

	recorded := r.applied(ctx, plan, out, diags)
	diags.Append(to.Set(ctx, &recorded)...)

	if err != nil {
		op.Fail(subject(spec.Name, out.ProjectID), err)
	}
}

func (r *identityResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := adapter.Get[identityModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx, op, ok := r.Begin(ctx, adapter.Read, state.Timeouts, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return
	}

	ref := Ref{
		ProjectID:                   state.ID.ValueString(),
		Name:                        state.Name.ValueString(),
		UserID:                      state.UserID.ValueString(),
		ApplicationCredentialID:     state.ApplicationCredentialID.ValueString(),
		ApplicationCredentialSecret: state.ApplicationCredentialSecret.ValueString(),
		// After an import nothing is known of the server group and keypair: look.
		CheckNova: state.imported() || !state.ServerGroup.IsNull() || !state.SSHPublicKey.IsNull(),
	}

	ctx = tflog.SetField(ctx, "project_id", ref.ProjectID)

	out, err := r.service().Observe(ctx, ref, expandQuotas(state.Quotas))
	if err != nil {
		op.Fail(subject(ref.Name, ref.ProjectID), err)
		return
	}

	if out == nil {
		tflog.Warn(ctx, "The identity's project is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	r.observed(ctx, &state, out, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *identityResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, ok := adapter.Get[identityModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}

	state, ok := adapter.Get[identityModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx, op, ok := r.Begin(ctx, adapter.Update, plan.Timeouts, &resp.Diagnostics)
	defer op.End(ctx)

	if ok {
		r.ensure(ctx, op, plan, &state, &resp.State, &resp.Diagnostics)
	}
}

func (r *identityResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := adapter.Get[identityModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx, op, ok := r.Begin(ctx, adapter.Delete, state.Timeouts, &resp.Diagnostics)
	defer op.End(ctx)

	ref := Ref{ProjectID: state.ID.ValueString(), Name: state.Name.ValueString(), UserID: state.UserID.ValueString()}
	resp.Diagnostics.Append(state.Roles.ElementsAs(ctx, &ref.Roles, false)...)

	if !ok || resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "project_id", ref.ProjectID)

	err := r.service().Delete(ctx, ref, state.ForceDestroy.ValueBool())

	var leftovers *LeftoversError

	switch {
	case errors.As(err, &leftovers):
		resp.Diagnostics.AddError(summaryLeftovers, err.Error())
	case err != nil:
		op.Fail(subject(ref.Name, ref.ProjectID), err)
	}
}

// ImportState imports an identity by its Keystone project ID or by its name; Read fills in
// everything else.
func (r *identityResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, idOrName string) (cloud.Located, error) {
		return r.service().Locate(ctx, idOrName)
	})
}
