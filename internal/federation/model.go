package federation

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

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
