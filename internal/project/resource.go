package project

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
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

	// at plan time
	summaryUnknownRole = "Unknown role"
	summaryBinding     = "Invalid role binding"
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

	if unknown := (*UnknownUserError)(nil); out == nil && errors.As(err, &unknown) {
		diags.AddAttributeError(path.Root("role_bindings"), summaryUnknown, err.Error())
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

// ValidateConfig checks what needs more than one attribute: every binding names users or
// groups, no role is bound twice, the default group name fits Keystone, and the project is not
// in Keystone's Default domain.
func (r *projectResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[projectModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	if m.DomainID.ValueString() == domain.DefaultDomainID {
		resp.Diagnostics.AddAttributeError(path.Root("domain_id"), "Project in the Default domain",
			"Keystone's Default domain holds the service users and the cloud's own projects: a unikorn_project is never made there.")
	}

	if m.GroupName.IsNull() && !m.Name.IsUnknown() && len([]rune(naming.ProjectGroup(m.Name.ValueString()))) > maxNameLength {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Group name too long", fmt.Sprintf(
			"The project's group would be called %q, longer than Keystone's %d characters: shorten the name, or set group_name.",
			naming.ProjectGroup(m.Name.ValueString()), maxNameLength))
	}

	if m.RoleBindings.IsNull() || m.RoleBindings.IsUnknown() {
		return
	}

	var bms []bindingModel

	resp.Diagnostics.Append(m.RoleBindings.ElementsAs(ctx, &bms, true)...)

	seen := map[string]int{}

	for i, bm := range bms {
		at := path.Root("role_bindings").AtListIndex(i)

		if bm.Users.IsNull() && bm.Groups.IsNull() {
			resp.Diagnostics.AddAttributeError(at, summaryBinding, fmt.Sprintf(
				"role_bindings[%d] grants its role to nobody: a binding grants its role to users, groups or both: set users or groups.", i))
		}

		if bm.Role.IsUnknown() || bm.Role.IsNull() {
			continue
		}

		if j, dup := seen[bm.Role.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(at.AtName("role"), summaryBinding, fmt.Sprintf(
				"role_bindings[%d]: role %q is bound already by role_bindings[%d]: list all its users and groups in one binding.",
				i, bm.Role.ValueString(), j))
		}

		seen[bm.Role.ValueString()] = i
	}
}

// ModifyPlan settles the defaults that depend on the cloud or on other attributes (domain_id:
// the managed domain; user_domain_id: the project's domain; group_name: <name>-members) and
// checks every bound role against Keystone's global roles (one cached listing per run).
func (r *projectResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	c := r.Cloud()
	if c == nil {
		return
	}

	p, ok := adapter.OpenPlan[projectModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	plan, config := &p.Plan, p.Config

	if plan.DomainID.IsUnknown() && config.DomainID.IsNull() {
		id, err := c.ManagedDomainID(ctx)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("domain_id"), "No domain for the project",
				"domain_id is not set and the provider's managed domain cannot be used: "+err.Error())

			return
		}

		plan.DomainID = types.StringValue(id)
	}

	if config.UserDomainID.IsNull() {
		plan.UserDomainID = plan.DomainID
	}

	if config.GroupName.IsNull() {
		plan.GroupName = types.StringUnknown()
		if !plan.Name.IsUnknown() {
			plan.GroupName = types.StringValue(naming.ProjectGroup(plan.Name.ValueString()))
		}
	}

	r.checkRoles(ctx, p.Plan, &resp.Diagnostics)
	p.Save(ctx, resp)
}

// checkRoles reports, at role_bindings[i].role, every known role that is no global Keystone role.
func (r *projectResource) checkRoles(ctx context.Context, plan projectModel, diags *diag.Diagnostics) {
	if plan.RoleBindings.IsNull() || plan.RoleBindings.IsUnknown() {
		return
	}

	var bms []bindingModel

	if d := plan.RoleBindings.ElementsAs(ctx, &bms, true); d.HasError() {
		return
	}

	var names []string

	for _, bm := range bms {
		if !bm.Role.IsUnknown() && !bm.Role.IsNull() {
			names = append(names, bm.Role.ValueString())
		}
	}

	if len(names) == 0 {
		return
	}

	svc, err := r.service(r.Cloud())
	if err == nil {
		names, err = svc.CheckRoles(ctx, names)
	}

	if err != nil {
		diags.AddError("Error reading Keystone's roles", err.Error())
		return
	}

	for i, bm := range bms {
		if slices.Contains(names, bm.Role.ValueString()) {
			diags.AddAttributeError(path.Root("role_bindings").AtListIndex(i).AtName("role"), summaryUnknownRole, fmt.Sprintf(
				"role_bindings[%d].role: Keystone has no global role named %q. Roles are global Keystone roles (e.g. member, "+
					"reader); a role made by a unikorn_role of this same configuration must exist before it is bound (apply it "+
					"first).", i, bm.Role.ValueString()))
		}
	}
}
