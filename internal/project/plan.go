package project

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Summaries of the plan-time diagnostics.
const (
	summaryUnknownRole = "Unknown role"
	summaryBinding     = "Invalid role binding"
)

// ValidateConfig checks what needs more than one attribute: every binding names users or
// groups, no role is bound twice, the default group name fits Keystone, and the project may be a
// unikorn_project (Unmanageable: not in Keystone's Default domain, not named like an identity).
func (r *projectResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[projectModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	if e := Unmanageable(adapter.KnownOrNull(m.DomainID).ValueString(), adapter.KnownOrNull(m.Name).ValueString()); e != nil {
		resp.Diagnostics.AddAttributeError(path.Root(e.Attribute), e.Summary(), e.Error()+".")
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
