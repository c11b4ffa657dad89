package project

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

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
	summaryExists      = "Project exists already"
	summaryGroupExists = "Group exists already"
	summaryLeftovers   = "Project still holds tenant objects"
	summaryUnknown     = "Unknown user or group"
)

// NewResource is unikorn_project. A project found again by name is said by the core's notices
// (Observe), with its group.
func NewResource() resource.Resource {
	r := &projectResource{}
	r.KeystoneResource = domain.NewKeystoneResource[meta, *Service, projectModel, *projectModel](domain.Keystone[*Service, projectModel, Project]{
		TypeName: "project",
		Timeouts: adapter.Timeouts{Create: 10 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 30 * time.Minute},
		Bind:     r.service,
		Observe: func(ctx context.Context, svc *Service, m *projectModel, diags *diag.Diagnostics) (*Project, bool, string, error) {
			out, notices, err := svc.Observe(ctx, m.ref(ctx, diags), quota.Expand(m.Quotas))
			warn(notices, diags)

			return out, false, "project", err
		},
		Flatten: func(_ context.Context, m *projectModel, out *Project, diags *diag.Diagnostics) (string, string) {
			warn(out.Notices(), diags)
			m.flatten(out)

			return out.Name, out.ID
		},
		Locate: func(ctx context.Context, svc *Service, importID string) (cloud.Located, error) {
			return svc.Locate(ctx, importID)
		},
	})

	return r
}

type projectResource struct {
	domain.KeystoneResource[meta, *Service, projectModel, *projectModel, Project]
}

// service is the core bound to the provider's client.
func (r *projectResource) service(c *cloud.Client) (*Service, error) {
	return NewService(c, r.Meta.IdentityConfig())
}

// Create makes the project, its group, grants, bindings and quotas.
func (r *projectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		r.apply(ctx, op, svc, m, Prior{}, subject, &resp.State, &resp.Diagnostics)
	})
}

// Update converges the project in place.
func (r *projectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state, ok := adapter.Get[projectModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	prior := state.prior(ctx, &resp.Diagnostics)

	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		r.apply(ctx, op, svc, m, prior, subject, &resp.State, &resp.Diagnostics)
	})
}

// apply ensures the plan m and records what exists as soon as the project does, whatever
// failed after it: a failed create leaves a tainted resource, never an untracked project.
func (r *projectResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, prior Prior, subject string,
	state *tfsdk.State, diags *diag.Diagnostics,
) {
	spec := m.spec(ctx, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, prior)

	var (
		unknown      *UnknownUserError
		unmanageable *UnmanageableError
		exists       *cloud.ExistsError
	)

	switch {
	case out != nil:
	case errors.As(err, &unknown):
		diags.AddAttributeError(path.Root("role_bindings"), summaryUnknown, err.Error())
		return
	case errors.As(err, &unmanageable) && unmanageable.Attribute != "":
		diags.AddAttributeError(path.Root(unmanageable.Attribute), unmanageable.Summary(), err.Error()+".")
		return
	case errors.As(err, &exists) && exists.Kind == "group":
		diags.AddAttributeError(path.Root("group_name"), summaryGroupExists, err.Error()+" (or set group_name to another name).")
		return
	}

	domain.Recorded(op, diags, path.Root("name"), summaryExists, out, err, subject, r.Record(ctx, m, state, diags))
}

// Delete deletes the project, refusing while it holds tenant objects unless force_destroy.
func (r *projectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *projectModel, subject string) {
		err := svc.Delete(ctx, m.ref(ctx, &resp.Diagnostics), m.ForceDestroy.ValueBool())
		adapter.FailOrRefuse[*leftovers.Error](op, subject, err, summaryLeftovers)
	})
}

// warn shows notices as warnings.
func warn(notices []Notice, diags *diag.Diagnostics) {
	for _, n := range notices {
		diags.AddWarning(n.Summary, n.Detail)
	}
}
