package role

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

// roleModel is unikorn_role's model.
type roleModel struct {
	domain.KeystoneModel

	DomainID types.String `tfsdk:"domain_id"`
	Implies  types.Set    `tfsdk:"implies"`
}

// Opening makes roleModel an adapter.AdminModel (a global object), named with its domain.
func (m *roleModel) Opening() adapter.AdminOpening {
	describe := m.Name.ValueString()
	if !m.DomainID.IsNull() && !m.DomainID.IsUnknown() {
		describe += " of domain " + m.DomainID.ValueString()
	}

	return adapter.AdminOpening{Name: m.Name, Describe: describe, ID: m.ID, Timeouts: m.Timeouts}
}

func (m roleModel) spec(ctx context.Context, diags *diag.Diagnostics) Spec {
	var implies []string
	if !m.Implies.IsNull() && !m.Implies.IsUnknown() {
		diags.Append(m.Implies.ElementsAs(ctx, &implies, false)...)
	}

	return Spec{Name: m.Name.ValueString(), DomainID: m.DomainID.ValueString(), Description: m.Description.ValueString(), Implies: implies}
}

// recorded is the role as the state records it.
func (m roleModel) recorded(ctx context.Context, diags *diag.Diagnostics) *Role {
	s := m.spec(ctx, diags)
	return &Role{ID: m.ID.ValueString(), Name: s.Name, DomainID: s.DomainID, Description: s.Description, Implies: s.Implies}
}

// flatten writes what Keystone says of the role into m; an empty implies stays null where it
// was null.
func (m *roleModel) flatten(r *Role) {
	m.Observed(r.ID, r.Name, r.Description)
	m.DomainID = adapter.StringOrNull(r.DomainID)
	m.Implies = adapter.StringSet(r.Implies, m.Implies)
}

func (r *roleResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Keystone role, for preparing a region: global, or specific to a domain (`domain_id`), with " +
			"the global roles it implies (`implies`, e.g. `manager` implies `member`), converged as a set with Keystone's " +
			"implied-roles API. The service user manages it as cloud admin (the admin role on its own project).\n\n" +
			"Name, description and `implies` change in place; changing `domain_id` replaces the role. Destroying deletes " +
			"the role, and Keystone its inference rules and assignments with it.\n\n" +
			"**Import** with the role's ID, the name of a global role, or `DOMAIN_ID/name` for a domain-specific role.",
		Attributes: map[string]schema.Attribute{
			"description": domain.DescriptionAttribute("role"),
			"domain_id": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "ID of the domain the role is specific to (a `unikorn_domain`'s `id`). Unset: a global role. " +
					"A domain-specific role may imply global roles but cannot be implied itself. Changing it replaces the role.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"id": adapter.IDAttribute("ID of the Keystone role."),
			"implies": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Names of the global roles this role implies: a user granted this role holds them too. " +
					"Keystone's rules: only global roles can be implied, never `" + ProhibitedImplied + "` (Keystone's " +
					"default `prohibited_implied_role`), and never the role itself. Converged as a set in place: missing rules " +
					"are added, extra ones removed. Unset: the provider leaves none.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(domain.KeystoneName("role", MaxNameLength),
						stringvalidator.NoneOf(ProhibitedImplied)),
				},
			},
			"name": domain.NameAttribute("role", MaxNameLength, fmt.Sprintf("Name of the role, unique among the global roles (or "+
				"among the roles of `domain_id`), at most %d characters. Updated in place (the ID, and so every assignment, "+
				"stays).", MaxNameLength)),
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}
