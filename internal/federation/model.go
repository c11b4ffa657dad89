package federation

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// maxIDPID keeps the mapping's ID (naming.FederationMapping) within Keystone's 64 characters.
const maxIDPID = 64 - len(naming.FederationMappingSuffix)

// idpIDPattern is what Keystone accepts in a mapping's ID, which is made of the IdP's.
var idpIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

var idpIDCheck = adapter.StringCheck("identity provider ID", fmt.Sprintf("1 to %d characters of A-Z, a-z, 0-9, _ and -", maxIDPID),
	func(s string) error {
		if len(s) > maxIDPID || !idpIDPattern.MatchString(s) {
			return fmt.Errorf("must be 1 to %d characters of A-Z, a-z, 0-9, _ and - (the mapping is called %q), not %q",
				maxIDPID, naming.FederationMapping("<idp_id>"), s)
		}

		return nil
	})

// rulesJSONCheck checks rules_json against Keystone's mapping schema.
var rulesJSONCheck = adapter.StringCheck("mapping rules", "Keystone's rule list, as JSON, valid against its mapping schema", func(s string) error {
	problems := CheckRulesJSON(s)
	if len(problems) == 0 {
		return nil
	}

	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.String()
	}

	return errors.New("Keystone's mapping schema refuses these rules:\n  " + strings.Join(msgs, "\n  "))
})

// Attribute types of the nested rule objects.
var (
	conditionAttrTypes = map[string]attr.Type{
		"any_one_of": types.ListType{ElemType: types.StringType},
		"attribute":  types.StringType,
		"not_any_of": types.ListType{ElemType: types.StringType},
		"regex":      types.BoolType,
	}
	ruleAttrTypes = map[string]attr.Type{
		"group_domain_id": types.StringType,
		"groups":          types.ListType{ElemType: types.StringType},
		"match":           types.ListType{ElemType: types.ObjectType{AttrTypes: conditionAttrTypes}},
		"user_attribute":  types.StringType,
	}
)

// values is a list of non-empty strings, at least one.
func values(description string) schema.ListAttribute {
	return schema.ListAttribute{
		Optional:            true,
		ElementType:         types.StringType,
		MarkdownDescription: description,
		Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
	}
}

func (r *federationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Single sign-on into a Keystone domain through an organisation's identity provider (Keystone's " +
			"OS-FEDERATION): the identity provider `idp_id` with its `remote_ids` and the domain of its shadow users, the " +
			"mapping `<idp_id>" + naming.FederationMappingSuffix + "` of assertions onto users and groups, and the " +
			"`protocol` that uses it. Made as the service user with its cloud-admin grant.\n\n" +
			"The mapping is given either as `rules`, for the common case (an assertion attribute becomes the user's name, " +
			"optionally only when other attributes match, and the user joins groups by name), or as `rules_json`, " +
			"Keystone's own rule list for anything else. Either is checked at plan time against Keystone's mapping " +
			"schema. Description, `enabled`, `remote_ids`, the rules and the protocol change in place; the identity " +
			"provider's ID and domain replace it. Destroying deletes the protocol, the mapping, then the identity " +
			"provider.\n\n" +
			"Give people access to projects by binding the groups the mapping names (a `unikorn_project`'s " +
			"`role_bindings`): federated users exist in Keystone only after their first login.\n\n" +
			"**Adoption.** Keystone keeps no attribute of an identity provider that is not the user's, so it carries no " +
			"ownership mark and is never adopted: a create looks for the identity provider `idp_id` first and refuses one " +
			"that exists, with nothing written, with the `terraform import` command that takes it over. The identity " +
			"provider, the mapping and the protocol are each created by a PUT sent once; an answer lost after Keystone " +
			"acted is recovered by reading the object back (a repeated PUT would have met it as a conflict). A create " +
			"interrupted after the identity provider was made leaves one that the next apply refuses: import it.\n\n" +
			"**Import** with the identity provider's ID. `rules` are filled in when Keystone's rules have their form, " +
			"`rules_json` always.",
		Attributes: map[string]schema.Attribute{
			"description": domain.DescriptionAttribute("identity provider"),
			"domain_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "ID of the domain the identity provider's users are made in (shadow users). Changing it replaces the federation.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 64)},
			},
			"enabled": domain.EnabledAttribute("Whether the identity provider accepts logins."),
			"id":      adapter.IDAttribute("The identity provider's ID (`idp_id`)."),
			"idp_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("ID of the Keystone identity provider, 1 to %d characters of `A-Z`, `a-z`, `0-9`, "+
					"`_` and `-`. Changing it replaces the federation.", maxIDPID),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{idpIDCheck},
			},
			"mapping_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Keystone mapping, `<idp_id>" + naming.FederationMappingSuffix + "`.",
			},
			"protocol": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The federation protocol: `openid` (OpenID Connect), `saml2` or `mapped` (e.g. Kerberos " +
					"or X.509 through the web server). Updated in place (the protocol is made anew, then the old one deleted).",
				Validators: []validator.String{stringvalidator.OneOf(Protocols...)},
			},
			"remote_ids": schema.SetAttribute{
				Required:    true,
				ElementType: types.StringType,
				MarkdownDescription: "The identity provider's remote IDs: its entity ID (SAML) or issuer (OpenID Connect), as " +
					"the web server in front of Keystone reports it. At least one; each belongs to one identity provider only. " +
					"Updated in place.",
				Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, 255))},
			},
			"rules": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "The mapping in its common form, tried in order: each rule maps a user whose assertion " +
					"has `user_attribute` (and matches every `match`) onto a user of that name in the identity provider's " +
					"domain and into `groups`. Exactly one of `rules` and `rules_json`. Updated in place.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"group_domain_id": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "ID of the domain of `groups`; required with `groups`.",
						Validators:          []validator.String{stringvalidator.LengthBetween(1, 64)},
					},
					"groups": values("Names of the groups the user joins (while the login lasts), in `group_domain_id`."),
					"match": schema.ListNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Conditions on the assertion, all of which must hold for the rule to apply.",
						Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"any_one_of": values("The condition holds when the attribute has one of these values. Exactly one of " +
								"`any_one_of` and `not_any_of`."),
							"attribute": schema.StringAttribute{
								Required:            true,
								MarkdownDescription: "The assertion attribute, e.g. `OIDC-groups` or `HTTP_OIDC_GROUPS`.",
								Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
							},
							"not_any_of": values("The condition holds when the attribute has none of these values."),
							"regex": schema.BoolAttribute{
								Optional:            true,
								Computed:            true,
								Default:             booldefault.StaticBool(false),
								MarkdownDescription: "Whether the values are regular expressions (searched for). Default `false`.",
							},
						}},
					},
					"user_attribute": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "The assertion attribute whose value is the user's name, e.g. `OIDC-preferred_username`.",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
					},
				}},
			},
			"rules_json": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The mapping as Keystone's rule list in JSON (e.g. from `jsonencode`), for what `rules` " +
					"cannot say. With `rules`, the JSON the provider writes for them. Exactly one of `rules` and " +
					"`rules_json`. Updated in place.",
				Validators: []validator.String{
					stringvalidator.ExactlyOneOf(path.MatchRoot("rules"), path.MatchRoot("rules_json")),
					rulesJSONCheck,
				},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}

// federationModel is unikorn_federation's model.
type federationModel struct {
	Description types.String   `tfsdk:"description"`
	DomainID    types.String   `tfsdk:"domain_id"`
	Enabled     types.Bool     `tfsdk:"enabled"`
	ID          types.String   `tfsdk:"id"`
	IDPID       types.String   `tfsdk:"idp_id"`
	MappingID   types.String   `tfsdk:"mapping_id"`
	Protocol    types.String   `tfsdk:"protocol"`
	RemoteIDs   types.Set      `tfsdk:"remote_ids"`
	Rules       types.List     `tfsdk:"rules"`
	RulesJSON   types.String   `tfsdk:"rules_json"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// ruleModel is one object of rules.
type ruleModel struct {
	GroupDomainID types.String `tfsdk:"group_domain_id"`
	Groups        types.List   `tfsdk:"groups"`
	Match         types.List   `tfsdk:"match"`
	UserAttribute types.String `tfsdk:"user_attribute"`
}

// conditionModel is one object of a rule's match.
type conditionModel struct {
	AnyOneOf  types.List   `tfsdk:"any_one_of"`
	Attribute types.String `tfsdk:"attribute"`
	NotAnyOf  types.List   `tfsdk:"not_any_of"`
	Regex     types.Bool   `tfsdk:"regex"`
}

// Opening makes federationModel an adapter.AdminModel (a global object named by its IdP's ID).
func (m *federationModel) Opening() adapter.AdminOpening {
	name := m.IDPID
	if name.IsNull() {
		name = m.ID // an import's state knows only the ID
	}

	return adapter.AdminOpening{Name: name, ID: m.ID, Timeouts: m.Timeouts}
}

// idpID is the identity provider's ID: idp_id, or on import the id.
func (m *federationModel) idpID() string {
	if m.IDPID.IsNull() || m.IDPID.IsUnknown() {
		return m.ID.ValueString()
	}

	return m.IDPID.ValueString()
}

// ruleModels reads rules; ok is false when it is null, unknown or holds unknown values.
func ruleModels(ctx context.Context, l types.List) ([]ruleModel, []([]conditionModel), bool) {
	if l.IsNull() || l.IsUnknown() {
		return nil, nil, false
	}

	var rms []ruleModel
	if l.ElementsAs(ctx, &rms, false).HasError() {
		return nil, nil, false
	}

	conds := make([][]conditionModel, len(rms))

	for i, rm := range rms {
		if rm.Match.IsUnknown() || rm.Groups.IsUnknown() || rm.GroupDomainID.IsUnknown() || rm.UserAttribute.IsUnknown() {
			return nil, nil, false
		}

		if !rm.Match.IsNull() && rm.Match.ElementsAs(ctx, &conds[i], false).HasError() {
			return nil, nil, false
		}
	}

	return rms, conds, true
}

// expandRules turns rules into the core's Rules; false when any value is not known yet.
func expandRules(ctx context.Context, l types.List) ([]Rule, bool) {
	rms, conds, ok := ruleModels(ctx, l)
	if !ok {
		return nil, false
	}

	out := make([]Rule, len(rms))

	for i, rm := range rms {
		r := Rule{UserAttribute: rm.UserAttribute.ValueString(), GroupDomainID: rm.GroupDomainID.ValueString()}
		if !stringsOf(ctx, rm.Groups, &r.Groups) {
			return nil, false
		}

		for _, cm := range conds[i] {
			c := Condition{Attribute: cm.Attribute.ValueString(), Regex: cm.Regex.ValueBool()}
			if cm.Attribute.IsUnknown() || cm.Regex.IsUnknown() || !stringsOf(ctx, cm.AnyOneOf, &c.AnyOneOf) || !stringsOf(ctx, cm.NotAnyOf, &c.NotAnyOf) {
				return nil, false
			}

			r.Match = append(r.Match, c)
		}

		out[i] = r
	}

	return out, true
}

// stringsOf reads a list of strings into out (nil when null); false when any part is unknown.
func stringsOf(ctx context.Context, l types.List, out *[]string) bool {
	if l.IsUnknown() {
		return false
	}

	if l.IsNull() {
		return true
	}

	for _, v := range l.Elements() {
		if v.IsUnknown() {
			return false
		}
	}

	return !l.ElementsAs(ctx, out, false).HasError()
}

// spec turns the plan into the core's spec; ModifyPlan has rendered rules into rules_json.
func (m federationModel) spec(ctx context.Context, diags *diag.Diagnostics) Spec {
	s := Spec{
		IDPID: m.IDPID.ValueString(), Description: m.Description.ValueString(), DomainID: m.DomainID.ValueString(),
		Enabled: m.Enabled.ValueBool(), Protocol: m.Protocol.ValueString(), Rules: m.RulesJSON.ValueString(),
	}

	diags.Append(m.RemoteIDs.ElementsAs(ctx, &s.RemoteIDs, false)...)

	if rules, ok := expandRules(ctx, m.Rules); ok {
		rendered, err := Render(rules)
		if err != nil {
			diags.AddError("Error rendering the mapping rules", err.Error())
		}

		s.Rules = rendered
	}

	return s
}

// flatten writes what Keystone holds into m. rules_json keeps m's spelling when it means the
// same as Keystone's rules; rules are read back from them where m uses rules (or on import),
// and are null when Keystone's rules do not have their form.
func (m *federationModel) flatten(ctx context.Context, f *Federation) {
	importing := m.Protocol.IsNull()

	m.ID = types.StringValue(f.IDPID)
	m.IDPID = types.StringValue(f.IDPID)
	m.Description = types.StringValue(f.Description)
	m.DomainID = types.StringValue(f.DomainID)
	m.Enabled = types.BoolValue(f.Enabled)
	m.RemoteIDs = adapter.StringSet(f.RemoteIDs, m.RemoteIDs)
	m.Protocol = adapter.StringOrNull(f.Protocol)
	m.MappingID = adapter.StringOrNull(f.MappingID)

	switch {
	case f.Rules == "":
		m.RulesJSON = types.StringNull()
	case m.RulesJSON.IsNull() || m.RulesJSON.IsUnknown() || !sameRules(m.RulesJSON.ValueString(), f.Rules):
		m.RulesJSON = types.StringValue(f.Rules)
	}

	if m.Rules.IsNull() && !importing {
		return
	}

	rules, ok := Parse(f.Rules)
	if !ok {
		m.Rules = types.ListNull(types.ObjectType{AttrTypes: ruleAttrTypes})
		return
	}

	m.Rules = rulesValue(ctx, rules, m.Rules)
}

// rulesValue is the rules list of rules, each optional list kept null where prior's rule of the
// same place has it null and rules leave it empty.
func rulesValue(ctx context.Context, rules []Rule, prior types.List) types.List {
	rms, conds, _ := ruleModels(ctx, prior)

	elems := make([]attr.Value, len(rules))

	for i, r := range rules {
		var (
			was      ruleModel
			wasConds []conditionModel
		)

		if i < len(rms) {
			was, wasConds = rms[i], conds[i]
		}

		match := make([]attr.Value, len(r.Match))

		for j, c := range r.Match {
			var wc conditionModel
			if j < len(wasConds) {
				wc = wasConds[j]
			}

			match[j] = types.ObjectValueMust(conditionAttrTypes, map[string]attr.Value{
				"any_one_of": adapter.StringList(c.AnyOneOf, wc.AnyOneOf),
				"attribute":  types.StringValue(c.Attribute),
				"not_any_of": adapter.StringList(c.NotAnyOf, wc.NotAnyOf),
				"regex":      types.BoolValue(c.Regex),
			})
		}

		elems[i] = types.ObjectValueMust(ruleAttrTypes, map[string]attr.Value{
			"group_domain_id": adapter.StringOrNull(r.GroupDomainID),
			"groups":          adapter.StringList(r.Groups, was.Groups),
			"match":           adapter.ListOfValues(types.ObjectType{AttrTypes: conditionAttrTypes}, match, was.Match),
			"user_attribute":  types.StringValue(r.UserAttribute),
		})
	}

	return types.ListValueMust(types.ObjectType{AttrTypes: ruleAttrTypes}, elems)
}
