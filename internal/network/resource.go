package network

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file is the CRUD that unikorn_network and unikorn_security_group share: both are a
// privileged-scope object of one tenant, ensured (adopted or created, then converged),
// observed (re-found by name when gone by ID), and deleted through the core. Each resource
// says only what is special about it (tenantKind).

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
	NetworkConfig() *Config
}

// The operations' default timeouts.
var defaultTimeouts = adapter.Timeouts{
	Create: 10 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute,
}

// tenantFields are the attributes every resource of this package has; the models embed them.
type tenantFields struct {
	ID         types.String   `tfsdk:"id"`
	IdentityID types.String   `tfsdk:"identity_id"`
	Name       types.String   `tfsdk:"name"`
	ProjectID  types.String   `tfsdk:"project_id"`
	Region     types.String   `tfsdk:"region"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
}

func (f *tenantFields) fields() *tenantFields { return f }

// inProject tells whether the object lives in a unikorn_project's project (project_id) rather
// than in an identity's.
func (f *tenantFields) inProject() bool {
	return !f.ProjectID.IsNull() && !f.ProjectID.IsUnknown()
}

// owned records the project Neutron says the object is in, under the attribute that names it.
func (f *tenantFields) owned(projectID string) {
	switch {
	case projectID == "":
	case f.inProject():
		f.ProjectID = types.StringValue(projectID)
	default:
		f.IdentityID = types.StringValue(projectID)
	}
}

// model is a resource model M (through its pointer) that embeds tenantFields.
type model[M any] interface {
	*M
	fields() *tenantFields
}

// tenantKind is what one resource of this package tells the shared CRUD: M is its model, S
// the core's spec and O what the core observes (nil when nothing exists).
type tenantKind[M any, S any, O any] struct {
	// cloudName is the deterministic Neutron name of the user-given name.
	cloudName func(name string) string
	// expand turns the plan into the core's spec; config says what the configuration sets (an
	// attribute it leaves null is not managed where the kind says so: descriptions).
	expand func(ctx context.Context, plan, config M, diags *diag.Diagnostics) S
	// ensure adopts or creates and converges the object; prior is the state on update.
	ensure func(ctx context.Context, svc *Service, spec S, prior *M) (*O, error)
	// observe reads what exists of the object of the state; nil when it is gone.
	observe func(ctx context.Context, svc *Service, state M) (*O, error)
	// remove deletes the object of the state.
	remove func(ctx context.Context, svc *Service, state M) error
	// flatten writes what exists into m; complete says that ensure succeeded.
	flatten func(m *M, o *O, complete bool)
	// idOf is the ID of what exists ("" while it has none).
	idOf func(*O) string
	// refound is what observe found again by name because its recorded ID was gone.
	refound func(*O) []Refound
	// locate finds an object to import.
	locate func(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error)
	// imported sets, after an import, what Read cannot know (nil: nothing).
	imported func(ctx context.Context, state *tfsdk.State) diag.Diagnostics
}

// tenantResource is the shared base of this package's resources.
type tenantResource[M any, S any, O any, PM model[M]] struct {
	adapter.ResourceBase[meta]

	kind tenantKind[M, S, O]
}

func newTenantResource[M any, S any, O any, PM model[M]](k adapter.Kind, kind tenantKind[M, S, O]) tenantResource[M, S, O, PM] {
	k.Timeouts = defaultTimeouts
	return tenantResource[M, S, O, PM]{ResourceBase: adapter.NewResourceBase[meta](k), kind: kind}
}

// service binds the core to the model's tenant, in the privileged scope: the identity's
// project, or the unikorn_project's (tenantService).
func (r *tenantResource[M, S, O, PM]) service(ctx context.Context, f *tenantFields) (*Service, error) {
	switch {
	case !r.Configured():
		return nil, errors.New("the provider is not configured")
	case f.inProject() && !f.IdentityID.IsNull():
		return nil, errors.New("both identity_id and project_id are set: set exactly one")
	}

	return tenantService(ctx, r.Meta, f)
}

// run is the opening every operation shares: it reads the model out of src, opens the
// operation, binds the core to the model's tenant and runs do; subject names the object in
// the operation's failures.
func (r *tenantResource[M, S, O, PM]) run(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, svc *Service, m *M, subject func(id string) string),
) {
	m, ok := adapter.Get[M](ctx, src, diags)
	if !ok {
		return
	}

	f := PM(&m).fields()

	ctx, op, ok := r.Begin(ctx, opKind, f.Timeouts, diags)
	defer op.End(ctx)

	if !ok {
		return
	}

	name := r.kind.cloudName(f.Name.ValueString())
	ctx = tflog.SetField(ctx, r.Kind().TypeName, name)

	svc, err := r.service(ctx, f)
	if err != nil {
		op.Fail(adapter.Subject(name, f.ID.ValueString(), nil), err)
		return
	}

	do(ctx, op, svc, &m, func(id string) string { return adapter.Subject(name, id, svc.Tenant()) })
}

// apply ensures plan (prior: the state on update; config: the configuration) and records what
// exists, whatever happened next: a failed apply leaves a tainted resource, never an untracked
// object.
func (r *tenantResource[M, S, O, PM]) apply(ctx context.Context, op *adapter.Operation, svc *Service, plan, prior *M,
	config tfsdk.Config, subject func(string) string, state *tfsdk.State, diags *diag.Diagnostics,
) {
	configured, ok := adapter.Get[M](ctx, config, diags)
	if !ok {
		return
	}

	spec := r.kind.expand(ctx, *plan, configured, diags)
	if diags.HasError() {
		return
	}

	PM(plan).fields().Region = types.StringValue(svc.Region())

	out, err := r.kind.ensure(ctx, svc, spec, prior)
	if out == nil || r.kind.idOf(out) == "" {
		known := ""
		if prior != nil {
			known = PM(prior).fields().ID.ValueString()
		}

		op.Fail(subject(known), err)

		return
	}

	warnRefound(diags, r.kind.refound(out), svc.Tenant())
	r.kind.flatten(plan, out, err == nil)
	diags.Append(state.Set(ctx, plan)...)

	if err != nil {
		op.Fail(subject(r.kind.idOf(out)), err)
	}
}

// Create adopts or creates the object.
func (r *tenantResource[M, S, O, PM]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.run(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *M, subject func(string) string) {
			r.apply(ctx, op, svc, plan, nil, req.Config, subject, &resp.State, &resp.Diagnostics)
		})
}

// Update converges the object in place.
func (r *tenantResource[M, S, O, PM]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[M](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.run(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *M, subject func(string) string) {
			r.apply(ctx, op, svc, plan, &prior, req.Config, subject, &resp.State, &resp.Diagnostics)
		})
}

// Read refreshes every attribute from Neutron; an object gone by ID and found again by name
// is said with a warning, one that is gone altogether leaves the state.
func (r *tenantResource[M, S, O, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.run(ctx, adapter.Read, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, state *M, subject func(string) string) {
			f := PM(state).fields()

			out, err := r.kind.observe(ctx, svc, *state)
			if err != nil {
				op.Fail(subject(f.ID.ValueString()), err)
				return
			}

			if out == nil {
				tflog.Warn(ctx, "The "+r.Kind().Noun+" is gone; removing it from state")
				resp.State.RemoveResource(ctx)

				return
			}

			warnRefound(&resp.Diagnostics, r.kind.refound(out), svc.Tenant())

			f.Region = types.StringValue(svc.Region())
			r.kind.flatten(state, out, false)
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		})
}

// configuredString is the value config sets for a string the configuration may leave
// unmanaged (a description): nil when it is null (or unknown).
func configuredString(config types.String) *string {
	if config.IsNull() || config.IsUnknown() {
		return nil
	}

	v := config.ValueString()

	return &v
}

// planKept is the plan of a string that the configuration may leave unmanaged (a description,
// Optional and Computed): the configured value; when none is configured, "" for an object to be
// made (state nil) and the value the object has for one that exists, which is then kept as it is.
func planKept(planned, configured types.String, state *types.String) types.String {
	switch {
	case !configured.IsNull():
		return planned
	case state == nil:
		return types.StringValue("")
	}

	return *state
}

// warnRefound says, with a warning each, what was found again by name or adopted.
func warnRefound(diags *diag.Diagnostics, refound []Refound, where fmt.Stringer) {
	for _, rf := range refound {
		if rf.Adopted {
			diags.AddWarning("Adopted an existing "+rf.Kind, adoptedDetail(rf, where))

			continue
		}

		diags.AddWarning("Found again by name", refoundDetail(rf, where))
	}
}

// createdAt says when rf's object was made.
func createdAt(rf Refound) string {
	if rf.CreatedAt.IsZero() {
		return "at a time Neutron does not say"
	}

	return "at " + rf.CreatedAt.UTC().Format(time.RFC3339)
}

// adoptedDetail says that an existing object was taken over instead of a new one made: only an
// object that an interrupted create of this resource type left unfinished is.
func adoptedDetail(rf Refound, where fmt.Stringer) string {
	return fmt.Sprintf("The %s %s (%s) already existed in %s, created %s, left unfinished by an interrupted create of "+
		"this provider (it carries the creation mark and no completion mark), and was adopted and completed instead of a "+
		"new one being made.", rf.Kind, rf.Name, rf.NewID, where, createdAt(rf))
}

// refoundDetail says, for the plan, that an object was found again by name: the old and the
// new ID, and when the new one was made, so that nothing acts on it unnoticed. Only an object
// left unfinished by an interrupted create of this provider is taken so (ownership.go).
func refoundDetail(rf Refound, where fmt.Stringer) string {
	created := createdAt(rf)

	return fmt.Sprintf("The %s %s recorded as %s is gone from %s; %s, the %s of that name created %s, carries this "+
		"provider's creation mark for this resource type (and, as the resource's own network or group, no completion "+
		"mark: an interrupted create), so it is taken for it. If it is not the one this configuration made, remove this "+
		"resource from the state before applying or destroying.", rf.Kind, rf.Name, rf.OldID, where, rf.NewID, rf.Kind, created)
}

// Delete deletes the object; already gone is success.
func (r *tenantResource[M, S, O, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.run(ctx, adapter.Delete, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, state *M, subject func(string) string) {
			if err := r.kind.remove(ctx, svc, *state); err != nil {
				op.Fail(subject(PM(state).fields().ID.ValueString()), err)
			}
		})
}

// ImportState imports by `REGION/ID`, `REGION/name`, `ID` or `name`.
func (r *tenantResource[M, S, O, PM]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	_, ok := r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		return r.kind.locate(ctx, r.Cloud(), region, idOrName)
	})

	if ok && r.kind.imported != nil {
		resp.Diagnostics.Append(r.kind.imported(ctx, &resp.State)...)
	}
}
