package network

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// expandSecurityGroupSpec turns the plan into the core's spec. A description the configuration
// does not set is not written (SecurityGroupSpec.Description nil).
func expandSecurityGroupSpec(plan, config securityGroupModel) (SecurityGroupSpec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := SecurityGroupSpec{Name: plan.Name.ValueString(), Description: configuredString(config.Description)}

	for _, e := range ruleElements(plan.Rules.Elements()) {
		if !e.known {
			diags.AddAttributeError(path.Root("rules"), "Unknown rule", "A rule is not known yet; rules must be known to apply.")
			continue
		}

		spec.Rules = append(spec.Rules, e.rule)
	}

	return spec, diags
}

// flattenSecurityGroup writes what Neutron holds into m. complete says that the group is
// known to hold exactly the rules of m (a successful reconciliation), which are kept as they
// are; otherwise each Neutron rule is written in the form m already uses for it, or in the
// canonical form, and Neutron's default egress rules are left out unless m holds them.
func flattenSecurityGroup(m *securityGroupModel, g *SecurityGroup, complete bool) {
	m.ID = types.StringValue(g.ID)
	m.Description = types.StringValue(g.Description)

	m.owned(g.ProjectID)

	if complete && !m.Rules.IsUnknown() && !m.Rules.IsNull() {
		return
	}

	m.Rules = flattenRules(g.Rules, m.Rules)
}

// flattenRules is the rules set of observed, reusing the elements of prior that denote the
// same rules (Rule.Matches: an element without a description stands for a rule of any
// description, so that a rule read with a description the configuration does not give, such as
// Unikorn's, shows no change).
func flattenRules(observed []Rule, prior types.Set) types.Set {
	var (
		values []attr.Value
		rules  []Rule
	)

	for _, e := range ruleElements(prior.Elements()) {
		if e.known {
			values, rules = append(values, e.value), append(rules, e.rule)
		}
	}

	pair := pairRules(rules, observed)
	reused := make(map[int]attr.Value, len(pair))

	for i, j := range pair {
		if j >= 0 {
			reused[j] = values[i]
		}
	}

	elems := make([]attr.Value, 0, len(observed))

	for j, r := range observed {
		switch v, ok := reused[j]; {
		case ok:
			elems = append(elems, v)
		case !r.NeutronDefault:
			elems = append(elems, ruleObject(r))
		}
	}

	return types.SetValueMust(ruleType, elems)
}

// planRulesKept is the planned rules set with each element replaced by the element of the prior
// state that it matches (Rule.Matches): a configured rule without a description, or with
// `remote_ip_prefix` unset where the state says 0.0.0.0/0, is the rule the group has, so that
// the plan of a group whose rules are all there (an imported group of Unikorn's, whose rules
// carry its description) shows no change, and a plan that adds a rule shows only that rule.
// Terraform accepts a planned set that differs from the configuration inside its elements (it
// checks only the count). Unknown rules leave the plan as it is.
func planRulesKept(planned, prior types.Set) types.Set {
	if planned.IsNull() || planned.IsUnknown() || prior.IsNull() || prior.IsUnknown() {
		return planned
	}

	want := ruleElements(planned.Elements())

	var (
		values []attr.Value
		have   []Rule
	)

	for _, e := range ruleElements(prior.Elements()) {
		if e.known {
			values, have = append(values, e.value), append(have, e.rule)
		}
	}

	rules := make([]Rule, len(want))

	for i, e := range want {
		if !e.known {
			return planned
		}

		rules[i] = e.rule
	}

	elems := make([]attr.Value, len(want))

	for i, j := range pairRules(rules, have) {
		elems[i] = want[i].value
		if j >= 0 {
			elems[i] = values[j]
		}
	}

	return types.SetValueMust(ruleType, elems)
}

// ruleObject is the canonical form of a rule: port for a single port, remote_ip_prefix and
// description null when they hold their defaults.
func ruleObject(r Rule) types.Object {
	port := types.Int64Null()
	portRange := types.ObjectNull(portRangeAttrTypes)

	switch {
	case r.PortMin == 0 && r.PortMax == 0:
	case r.PortMin == r.PortMax:
		port = types.Int64Value(int64(r.PortMin))
	default:
		portRange = types.ObjectValueMust(portRangeAttrTypes, map[string]attr.Value{
			"max": types.Int64Value(int64(r.PortMax)),
			"min": types.Int64Value(int64(r.PortMin)),
		})
	}

	prefix := types.StringNull()

	switch {
	case r.RemoteGroupID != "":
		prefix = types.StringValue(remoteGroupMarker + r.RemoteGroupID)
	case r.RemoteAddressGroupID != "":
		prefix = types.StringValue(remoteAddressGroupMarker + r.RemoteAddressGroupID)
	case r.RemoteIPPrefix != "" && r.RemoteIPPrefix != DefaultRemoteIPPrefix:
		prefix = types.StringValue(r.RemoteIPPrefix)
	}

	return types.ObjectValueMust(ruleAttrTypes, map[string]attr.Value{
		"description":      adapter.StringOrNull(r.Description),
		"direction":        types.StringValue(r.Direction),
		"port":             port,
		"port_range":       portRange,
		"protocol":         types.StringValue(r.Protocol),
		"remote_ip_prefix": prefix,
	})
}

// securityGroupModel is the resource's data.
type securityGroupModel struct {
	tenantFields

	Description types.String `tfsdk:"description"`
	Rules       types.Set    `tfsdk:"rules"`
}
