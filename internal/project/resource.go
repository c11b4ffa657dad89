package project

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

var (
	_ resource.ResourceWithConfigure      = (*projectResource)(nil)
	_ resource.ResourceWithImportState    = (*projectResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*projectResource)(nil)
	_ resource.ResourceWithValidateConfig = (*projectResource)(nil)
)

// meta is what this package needs from the provider's client bundle: the role names and the
// run's listing of Keystone's roles, shared with identities.
type meta interface {
	adapter.Meta
	IdentityConfig() *identity.Config
}

// Summaries of the project's own diagnostics.
const (
	summaryExists    = "Project exists already"
	summaryLeftovers = "Project still holds tenant objects"
	summaryUnknown   = "Unknown user or group"
)

// NewResource is unikorn_project.
func NewResource() resource.Resource {
	return &projectResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "project", Noun: "project",
		Timeouts: adapter.Timeouts{Create: 10 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 30 * time.Minute},
	})}
}

type projectResource struct {
	adapter.ResourceBase[meta]
}

// service is the core bound to the provider's client.
func (r *projectResource) service(c *cloud.Client) (*Service, error) {
	return NewService(c, r.Meta.IdentityConfig())
}

// open is the kit's opening of a global admin resource (adapter.OpenGlobal).
func (r *projectResource) open(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string),
) {
	adapter.OpenGlobal[meta, projectModel](ctx, &r.ResourceBase, opKind, src, diags, r.service, do)
}

// Create makes the project, its group, grants, bindings and quotas.
func (r *projectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		r.apply(ctx, op, svc, m, Prior{}, subject, resp.State.Set, &resp.Diagnostics)
	})
}

// Update converges the project in place.
func (r *projectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state, ok := adapter.Get[projectModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	prior := state.prior(ctx, &resp.Diagnostics)

	r.open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		r.apply(ctx, op, svc, m, prior, subject, resp.State.Set, &resp.Diagnostics)
	})
}

// apply ensures the plan m and records what exists as soon as the project does, whatever
// failed after it: a failed create leaves a tainted resource, never an untracked project.
func (r *projectResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, prior Prior, subject string,
	set func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics,
) {
	spec := m.spec(ctx, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, prior)

	if unknown := (*UnknownUserError)(nil); out == nil && errors.As(err, &unknown) {
		diags.AddAttributeError(path.Root("role_bindings"), summaryUnknown, err.Error())
		return
	}

	domain.Recorded(op, diags, path.Root("name"), summaryExists, out, err, subject, func(out *Project) string {
		warn(out.Notices(), diags)
		m.flatten(out)
		diags.Append(set(ctx, m)...)

		return adapter.Subject(spec.Name, out.ID, nil)
	})
}

// Read refreshes every attribute from Keystone and the quota APIs; a project gone altogether
// leaves the state.
func (r *projectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.open(ctx, adapter.Read, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		ref := m.ref(ctx, &resp.Diagnostics)

		out, notices, err := svc.Observe(ctx, ref, quota.Expand(m.Quotas))
		if err != nil {
			op.Fail(subject, err)
			return
		}

		domain.Refreshed(ctx, resp, "project", ref.ProjectID, out, false, func(out *Project) (string, string) {
			warn(notices, &resp.Diagnostics)
			warn(out.Notices(), &resp.Diagnostics)
			m.flatten(out)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)

			return out.Name, out.ID
		})
	})
}

// Delete deletes the project, refusing while it holds tenant objects unless force_destroy.
func (r *projectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		err := svc.Delete(ctx, m.ref(ctx, &resp.Diagnostics), m.ForceDestroy.ValueBool())
		adapter.FailOrRefuse[*leftovers.Error](op, subject, err, summaryLeftovers)
	})
}

// ImportState imports a project by ID, name (in the managed domain) or DOMAIN_ID/name; Read
// fills in the rest.
func (r *projectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, idOrName string) (cloud.Located, error) {
		svc, err := r.service(r.Cloud())
		if err != nil {
			return cloud.Located{}, err
		}

		return svc.Locate(ctx, idOrName)
	})
}

// warn shows notices as warnings.
func warn(notices []Notice, diags *diag.Diagnostics) {
	for _, n := range notices {
		diags.AddWarning(n.Summary, n.Detail)
	}
}
