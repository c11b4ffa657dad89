package project

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// projectModel is unikorn_project's model.
type projectModel struct {
	domain.KeystoneModel

	DomainID     types.String `tfsdk:"domain_id"`
	Enabled      types.Bool   `tfsdk:"enabled"`
	ForceDestroy types.Bool   `tfsdk:"force_destroy"`
	GroupID      types.String `tfsdk:"group_id"`
	GroupName    types.String `tfsdk:"group_name"`
	Quotas       types.Object `tfsdk:"quotas"`
	RoleBindings types.List   `tfsdk:"role_bindings"`
	Tags         types.Set    `tfsdk:"tags"`
	UserDomainID types.String `tfsdk:"user_domain_id"`
}

// bindingModel is one object of role_bindings.
type bindingModel struct {
	Groups types.Set    `tfsdk:"groups"`
	Role   types.String `tfsdk:"role"`
	Users  types.Set    `tfsdk:"users"`
}

// bindings reads role_bindings; nil when it is null or unknown.
func (m projectModel) bindings(ctx context.Context, diags *diag.Diagnostics) []Binding {
	if m.RoleBindings.IsNull() || m.RoleBindings.IsUnknown() {
		return nil
	}

	var bms []bindingModel

	diags.Append(m.RoleBindings.ElementsAs(ctx, &bms, false)...)

	out := make([]Binding, 0, len(bms))

	for _, bm := range bms {
		b := Binding{Role: bm.Role.ValueString()}
		diags.Append(bm.Users.ElementsAs(ctx, &b.Users, true)...)
		diags.Append(bm.Groups.ElementsAs(ctx, &b.Groups, true)...)
		out = append(out, b)
	}

	return out
}

// spec turns the plan into the core's spec; ModifyPlan has resolved every default.
func (m projectModel) spec(ctx context.Context, diags *diag.Diagnostics) Spec {
	s := Spec{
		Name:         m.Name.ValueString(),
		Description:  m.Description.ValueString(),
		DomainID:     m.DomainID.ValueString(),
		Enabled:      m.Enabled.ValueBool(),
		GroupName:    m.GroupName.ValueString(),
		UserDomainID: m.UserDomainID.ValueString(),
		Quotas:       quota.Expand(m.Quotas),
		Bindings:     m.bindings(ctx, diags),
	}

	if s.Quotas == nil {
		s.Quotas = quota.AllUnlimited()
	}

	diags.Append(m.Tags.ElementsAs(ctx, &s.Tags, true)...)

	return s
}

// prior is what the state records, for Ensure.
func (m projectModel) prior(ctx context.Context, diags *diag.Diagnostics) Prior {
	return Prior{
		ProjectID: m.ID.ValueString(), GroupID: m.GroupID.ValueString(), UserDomainID: m.UserDomainID.ValueString(),
		Bindings: m.bindings(ctx, diags), Quotas: quota.Expand(m.Quotas),
	}
}

// ref is what the state records, for Observe and Delete. An import's state knows only the ID
// and name.
func (m projectModel) ref(ctx context.Context, diags *diag.Diagnostics) Ref {
	return Ref{
		ProjectID: m.ID.ValueString(), Name: m.Name.ValueString(), DomainID: m.DomainID.ValueString(),
		GroupID: m.GroupID.ValueString(), GroupName: m.GroupName.ValueString(), UserDomainID: m.UserDomainID.ValueString(),
		Bindings: m.bindings(ctx, diags), Imported: m.RoleBindings.IsNull(),
	}
}

// flatten writes what the cloud holds into m: every attribute the cloud knows, the bindings in
// m's order and form (a set that m leaves null stays null when empty).
func (m *projectModel) flatten(p *Project) {
	m.Observed(p.ID, p.Name, p.Description)
	m.DomainID = types.StringValue(p.DomainID)
	m.Enabled = types.BoolValue(p.Enabled)
	m.Tags = adapter.StringSet(p.Tags, m.Tags)
	m.GroupID = adapter.StringOrNull(p.GroupID)

	if p.GroupName != "" {
		m.GroupName = types.StringValue(p.GroupName)
	}

	if m.GroupName.IsUnknown() {
		m.GroupName = types.StringNull()
	}

	if m.UserDomainID.IsNull() || m.UserDomainID.IsUnknown() {
		m.UserDomainID = types.StringValue(p.DomainID)
	}

	if m.ForceDestroy.IsNull() || m.ForceDestroy.IsUnknown() {
		m.ForceDestroy = types.BoolValue(false)
	}

	m.Quotas = quota.Null()
	if p.Quotas != nil {
		m.Quotas = quota.Value(p.Quotas)
	}

	m.RoleBindings = bindingsValue(p.Bindings, m.RoleBindings)
}

// bindingsValue is the role_bindings list of bindings, each set kept null where prior's
// binding of the role has it null and nothing holds.
func bindingsValue(bindings []Binding, prior types.List) types.List {
	priorSets := map[string][2]types.Set{}

	if !prior.IsNull() && !prior.IsUnknown() {
		for _, v := range prior.Elements() {
			o, ok := v.(types.Object)
			if !ok || o.IsNull() || o.IsUnknown() {
				continue
			}

			var bm bindingModel
			if o.As(context.Background(), &bm, basetypes.ObjectAsOptions{}).HasError() {
				continue
			}

			priorSets[bm.Role.ValueString()] = [2]types.Set{bm.Users, bm.Groups}
		}
	}

	elems := make([]attr.Value, 0, len(bindings))

	for _, b := range bindings {
		sets := priorSets[b.Role]
		elems = append(elems, types.ObjectValueMust(bindingAttrTypes, map[string]attr.Value{
			"role":   types.StringValue(b.Role),
			"users":  adapter.StringSet(b.Users, sets[0]),
			"groups": adapter.StringSet(b.Groups, sets[1]),
		}))
	}

	return types.ListValueMust(types.ObjectType{AttrTypes: bindingAttrTypes}, elems)
}
