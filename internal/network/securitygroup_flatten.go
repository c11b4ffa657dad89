package network

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// expandSecurityGroupSpec turns the plan into the core's spec.
func expandSecurityGroupSpec(plan securityGroupModel) (SecurityGroupSpec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := SecurityGroupSpec{Name: plan.Name.ValueString(), Description: plan.Description.ValueString()}

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
// same rules.
func flattenRules(observed []Rule, prior types.Set) types.Set {
	byKey := map[RuleKey][]attr.Value{}

	for _, e := range ruleElements(prior.Elements()) {
		if e.known {
			byKey[e.rule.Key()] = append(byKey[e.rule.Key()], e.value)
		}
	}

	elems := make([]attr.Value, 0, len(observed))

	for _, r := range observed {
		k := r.Key()

		if same := byKey[k]; len(same) > 0 {
			elems = append(elems, same[0])
			byKey[k] = same[1:]

			continue
		}

		if r.NeutronDefault {
			continue
		}

		elems = append(elems, ruleObject(r))
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
