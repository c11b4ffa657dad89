package role

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

var (
	_ resource.ResourceWithConfigure      = (*roleResource)(nil)
	_ resource.ResourceWithImportState    = (*roleResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*roleResource)(nil)
	_ resource.ResourceWithValidateConfig = (*roleResource)(nil)
)

// Summaries of the role's own diagnostics.
const (
	summaryExists = "Role exists already"
	summarySelf   = "Role implies itself"
)

// NewRoleResource is unikorn_role.
func NewRoleResource() resource.Resource {
	return &roleResource{domain.NewKeystoneResource[adapter.Meta, *Service, roleModel, *roleModel](domain.Keystone[*Service, roleModel, Role]{
		TypeName: "role",
		Bind:     NewService,
		Observe: func(ctx context.Context, svc *Service, m *roleModel, _ *diag.Diagnostics) (*Role, bool, string, error) {
			r, refound, err := svc.Observe(ctx, m.ID.ValueString(), m.Name.ValueString(), m.DomainID.ValueString())
			return r, refound, where(m.DomainID.ValueString()) + " role", err
		},
		Flatten: func(_ context.Context, m *roleModel, r *Role, _ *diag.Diagnostics) (string, string) {
			m.flatten(r)
			return r.Name, r.ID
		},
		Locate: func(ctx context.Context, svc *Service, importID string) (cloud.Located, error) {
			return svc.Locate(ctx, importID)
		},
	})}
}

type roleResource struct {
	domain.KeystoneResource[adapter.Meta, *Service, roleModel, *roleModel, Role]
}

func (r *roleResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Keystone role, for preparing a region: global, or specific to a domain (`domain_id`), with " +
			"the global roles it implies (`implies`, e.g. `manager` implies `member`), converged as a set with Keystone's " +
			"implied-roles API. The service user manages it as cloud admin (the admin role on its own project).\n\n" +
			"Name, description and `implies` change in place; changing `domain_id` replaces the role. Destroying deletes " +
			"the role, and Keystone its inference rules and assignments with it.\n\n" +
			"**Adoption.** The role carries the provider's ownership marks as Keystone extra attributes (not " +
			"shown in any attribute): `unikorn_terraform_kind = unikorn_role` from its creation, and `unikorn_terraform_created` " +
			"once its create finished. A create looks for the role of its name first and adopts it only when it is what " +
			"an interrupted create of a `unikorn_role` left (the first mark without the second): its name, description and implied roles are then brought to the configuration. Any other role of " +
			"the name (one made by hand, by Unikorn, by another tool, or a finished `unikorn_role` of another configuration) " +
			"is refused before anything is written, with the `terraform import` command that takes it over: importing is the " +
			"only way to manage an existing role. A create whose answer was lost (a proxy's error after Keystone acted) " +
			"recovers only its own role. A role gone by its recorded ID is replaced by one of its name only under the " +
			"same rule; roles made before these marks existed keep working by their recorded IDs.\n\n" +
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

// Create creates the role and its inference rules (or adopts what an interrupted create of a
// unikorn_role left unfinished).
func (r *roleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		spec := m.spec(ctx, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}

		out, err := svc.Create(ctx, spec)
		domain.Recorded(op, &resp.Diagnostics, path.Root("name"), summaryExists, out, err, subject, r.Record(ctx, m, &resp.State, &resp.Diagnostics))
	})
}

// Update changes name and description in place and converges the implied roles.
func (r *roleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[roleModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		spec := m.spec(ctx, &resp.Diagnostics)
		cur := prior.recorded(ctx, &resp.Diagnostics)

		if resp.Diagnostics.HasError() {
			return
		}

		out, err := svc.Update(ctx, cur, spec)
		domain.Recorded(op, &resp.Diagnostics, path.Root("name"), summaryExists, out, err, subject, r.Record(ctx, m, &resp.State, &resp.Diagnostics))
	})
}

// Delete deletes the role; already gone is success.
func (r *roleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		if err := svc.Delete(ctx, m.ID.ValueString()); err != nil {
			op.Fail(subject, err)
		}
	})
}

// ValidateConfig refuses a role that implies itself.
func (r *roleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[roleModel](ctx, req.Config, &resp.Diagnostics)
	if !ok || m.Name.IsUnknown() || m.Name.IsNull() || m.Implies.IsNull() || m.Implies.IsUnknown() {
		return
	}

	for _, v := range m.Implies.Elements() {
		if s, ok := v.(types.String); ok && s.Equal(m.Name) {
			resp.Diagnostics.AddAttributeError(path.Root("implies").AtSetValue(s), summarySelf,
				fmt.Sprintf("Role %s cannot imply itself.", m.Name.ValueString()))
		}
	}
}

// ModifyPlan refuses, at plan time, to create a role whose name is taken in its scope (global,
// or the domain's) by a role that the create may not adopt (anything but what an interrupted
// create of a unikorn_role left unfinished): import it instead.
func (r *roleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[roleModel](ctx, req, &resp.Diagnostics)
	if !ok || !p.Creating() || r.Cloud() == nil || p.Plan.Name.IsUnknown() || p.Plan.DomainID.IsUnknown() {
		return
	}

	svc, ok := r.Core("Error reading roles", &resp.Diagnostics)
	if !ok {
		return
	}

	name, domainID := p.Plan.Name.ValueString(), p.Plan.DomainID.ValueString()

	existing, err := svc.Find(ctx, name, domainID)

	switch {
	case err != nil:
		resp.Diagnostics.AddError("Error reading roles", fmt.Sprintf("the %s roles named %q: %s", where(domainID), name, err))
	case existing != nil:
		if err := cloud.Adopt(existing.Existing()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("name"), summaryExists, err.Error())
		}
	}
}

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
