package federation

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
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
