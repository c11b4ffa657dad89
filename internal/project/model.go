package project

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Keystone's limits: project and group names, tags.
const (
	maxNameLength = 64
	maxTagLength  = 255
	maxTags       = 80
)

// bindingAttrTypes are the attributes of a role binding object.
var bindingAttrTypes = map[string]attr.Type{
	"groups": types.SetType{ElemType: types.StringType},
	"role":   types.StringType,
	"users":  types.SetType{ElemType: types.StringType},
}

// tagCheck is Keystone's rule for a project tag, and keeps the provider's mark for itself.
var tagCheck = adapter.StringCheck("tag", fmt.Sprintf(`1 to %d characters without "/" or ","`, maxTagLength), func(s string) error {
	switch {
	case s == "" || len([]rune(s)) > maxTagLength:
		return fmt.Errorf("a Keystone tag has 1 to %d characters, not %d", maxTagLength, len([]rune(s)))
	case strings.ContainsAny(s, "/,"):
		return fmt.Errorf(`a Keystone tag may not contain "/" or ",", as %q does`, s)
	case s == naming.HumanProjectTag:
		return fmt.Errorf("%q is the provider's own mark of its projects: it is always set, and cannot be configured", s)
	}

	return nil
})

func (r *projectResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Keystone project for people, as Unikorn's namespace-scoped OpenStack projects are: in a domain " +
			"(the provider's managed domain, or e.g. an SSO domain), with a user group made with it, quotas in every region " +
			"the provider serves, and role bindings of users and groups. The service user is granted `manager`, `member` " +
			"and `load-balancer_member` on it (as the provider's `roles` argument names them), so that `unikorn_network` " +
			"and `unikorn_security_group` can be made in it with `project_id`; servers and load balancers stay in " +
			"identities. The project carries the Keystone tag `" + naming.HumanProjectTag + "`, which is how the " +
			"provider recognises it. It is made as the service user with its cloud-admin grant (the admin role on its " +
			"own project).\n\n" +
			"The role bindings are converged as a set of role assignments: a missing one is made, one this resource made " +
			"that is no longer configured is removed, and assignments made by others are left alone and named in a " +
			"warning. A user or group that does not exist is an error of the apply that names it. **In a federated " +
			"domain, bind groups, not users**: a federated user exists in Keystone only after its first login.\n\n" +
			"Destroying refuses while the project still holds servers, load balancers, floating IPs, routers, ports, " +
			"networks, security groups or volumes in any served region, unless `force_destroy` is set; then Neutron's " +
			"default security groups, the quotas, the group and the project are deleted.\n\n" +
			"**Adoption.** The project carries the provider's ownership marks as Keystone extra attributes (not " +
			"shown in any attribute): `unikorn_terraform_kind = unikorn_project` from its creation, and `unikorn_terraform_created` " +
			"once its create finished. A create looks for the project of its name first and adopts it only when it is what " +
			"an interrupted create of a `unikorn_project` left (the first mark without the second), with its group when that carries the same " +
			"creation mark; a new project never takes an existing group of its group's name. Any other project of " +
			"the name (one made by hand, by Unikorn, by another tool, or a finished `unikorn_project` of another configuration) " +
			"is refused before anything is written, with the `terraform import` command that takes it over: importing is the " +
			"only way to manage an existing project. A create whose answer was lost (a proxy's error after Keystone acted) " +
			"recovers only its own project. A project gone by its recorded ID is replaced by one of its name only under the " +
			"same rule; projects made before these marks existed keep working by their recorded IDs.\n\n" +
			"A project may never be in Keystone's `Default` domain, be named like an identity's project (`" + naming.IdentityPrefix +
			"…`, in any domain: a `unikorn_identity` of that name would take it for its own) or be the service user's own " +
			"project: the plan fails (or the import, or the apply before anything is written). The project and its group " +
			"carry the creation mark of `unikorn_project`, which no `unikorn_identity` adopts.\n\n" +
			"**Import** with the project's ID, its name (in the managed domain) or `DOMAIN_ID/name`. The role " +
			"assignments found on an imported project become its `role_bindings`.",
		Attributes: map[string]schema.Attribute{
			"description": domain.DescriptionAttribute("project"),
			"domain_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "ID of the project's Keystone domain. Default: the provider's managed domain (`domain`). " +
					"Never Keystone's `default` domain. Changing it replaces the project.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()},
				Validators:    []validator.String{stringvalidator.LengthBetween(1, maxNameLength)},
			},
			"enabled": domain.EnabledAttribute("Whether the project is enabled: nobody can get a token for a disabled one."),
			"force_destroy": domain.ForceDestroyAttribute("Delete the tenant objects still in the project (load balancers, servers, " +
				"volumes, floating IPs, routers, ports, networks, security groups, in every served region) when it is destroyed. " +
				"Without it, destroy fails and lists them. Default `false`."),
			"group_id": adapter.IDAttribute("ID of the project's Keystone group."),
			"group_name": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Name of the Keystone group made with the project, in the project's domain. Default " +
					"`<name>" + naming.ProjectGroupSuffix + "`. Bind it to roles in `role_bindings` by this name. Updated in place " +
					"(the group is renamed).",
				Validators: []validator.String{domain.KeystoneName("group", maxNameLength)},
			},
			"id": adapter.IDAttribute("ID of the Keystone project: what `project_id` of networks and security groups refers to."),
			"name": domain.NameAttribute("project", maxNameLength, fmt.Sprintf("Name of the project, unique in its domain, at most "+
				"%d characters. Updated in place (so is the default group name).", maxNameLength)),
			"quotas": quota.Attribute("the"),
			"role_bindings": schema.ListNestedAttribute{
				Optional: true,
				Computed: true,
				Default:  listdefault.StaticValue(types.ListValueMust(types.ObjectType{AttrTypes: bindingAttrTypes}, nil)),
				MarkdownDescription: "Roles granted on the project: each binding grants `role` to its `users` and `groups`. Every " +
					"role is checked at plan time against Keystone's global roles. Updated in place.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"groups": schema.SetAttribute{
						Optional:    true,
						ElementType: types.StringType,
						MarkdownDescription: "Groups granted the role: names of groups of `user_domain_id` (the project's own " +
							"group by `group_name` too), or group IDs.",
						Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, maxNameLength))},
					},
					"role": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Name of a global Keystone role, e.g. `member` or `reader`; once per project.",
						Validators:          []validator.String{domain.KeystoneName("role", 255)},
					},
					"users": schema.SetAttribute{
						Optional:    true,
						ElementType: types.StringType,
						MarkdownDescription: "Names of users of `user_domain_id` granted the role. In a federated domain, bind " +
							"groups instead: a federated user exists only after its first login.",
						Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, 255))},
					},
				}},
				Validators: []validator.List{listvalidator.UniqueValues()},
			},
			"tags": schema.SetAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Keystone tags of the project (besides the provider's own). Updated in place.",
				Validators: []validator.Set{
					setvalidator.SizeBetween(1, maxTags-1),
					setvalidator.ValueStringsAre(tagCheck),
				},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"user_domain_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "ID of the domain in which the users, and the groups given by name, of `role_bindings` are " +
					"looked up. Default: the project's domain.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, maxNameLength)},
			},
		},
	}
}

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
