package network

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// DefaultRemoteIPPrefix is the remote of a rule that names none.
const DefaultRemoteIPPrefix = "0.0.0.0/0"

// int64Attr reads an Int64 attribute of an object: (value, known and set).
func int64Attr(attrs map[string]attr.Value, name string) (int64, bool) {
	v, ok := attrs[name].(types.Int64)
	if !ok || v.IsNull() || v.IsUnknown() {
		return 0, false
	}

	return v.ValueInt64(), true
}

// stringAttr reads a String attribute of an object: (value, known and set).
func stringAttr(attrs map[string]attr.Value, name string) (string, bool) {
	v, ok := attrs[name].(types.String)
	if !ok || v.IsNull() || v.IsUnknown() {
		return "", false
	}

	return v.ValueString(), true
}

// isUnknown tells whether the attribute name of an object is unknown.
func isUnknown(attrs map[string]attr.Value, name string) bool {
	v, ok := attrs[name]
	return ok && v.IsUnknown()
}

// vlanRangeOrdered checks start ≤ end in a VLAN range.
var vlanRangeOrdered = adapter.ObjectCheck("start must not be after end",
	func(attrs map[string]attr.Value, p path.Path, diags *diag.Diagnostics) {
		start, ok1 := int64Attr(attrs, "start")
		end, ok2 := int64Attr(attrs, "end")

		if ok1 && ok2 && start > end {
			diags.AddAttributeError(p, "Invalid VLAN range", fmt.Sprintf("The range starts at %d, after its end %d.", start, end))
		}
	})

// vlanRangesDisjoint checks that no two VLAN ranges overlap.
var vlanRangesDisjoint = adapter.ListCheck("ranges must not overlap", func(elems []attr.Value, p path.Path, diags *diag.Diagnostics) {
	var seen []VLANRange

	for i, elem := range elems {
		obj, ok := elem.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() {
			continue
		}

		start, ok1 := int64Attr(obj.Attributes(), "start")
		end, ok2 := int64Attr(obj.Attributes(), "end")

		if !ok1 || !ok2 || start > end {
			continue
		}

		r := VLANRange{Start: int(start), End: int(end)}

		for _, o := range seen {
			if r.Start <= o.End && o.Start <= r.End {
				diags.AddAttributeError(p.AtListIndex(i), "Overlapping VLAN ranges",
					fmt.Sprintf("The range %s overlaps the range %s.", r, o))
			}
		}

		seen = append(seen, r)
	}
})

// ruleFromConfig reads a configured rule object; ok is false while any part is unknown.
// Defaults are applied: an unset remote_ip_prefix is 0.0.0.0/0, an unset description "".
func ruleFromConfig(obj types.Object) (Rule, bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return Rule{}, false
	}

	return ruleFromAttributes(obj.Attributes())
}

// ruleFromAttributes is ruleFromConfig of a known rule object's attributes.
func ruleFromAttributes(attrs map[string]attr.Value) (Rule, bool) {
	for _, name := range []string{"direction", "protocol", "port", "port_range", "remote_ip_prefix", "description"} {
		if isUnknown(attrs, name) {
			return Rule{}, false
		}
	}

	r := Rule{RemoteIPPrefix: DefaultRemoteIPPrefix}
	r.Direction, _ = stringAttr(attrs, "direction")
	r.Protocol, _ = stringAttr(attrs, "protocol")
	r.Description, _ = stringAttr(attrs, "description")

	if p, ok := stringAttr(attrs, "remote_ip_prefix"); ok {
		r.RemoteIPPrefix = p
	}

	if port, ok := int64Attr(attrs, "port"); ok {
		r.PortMin, r.PortMax = int(port), int(port)
	}

	if pr, ok := attrs["port_range"].(types.Object); ok && !pr.IsNull() {
		if pr.IsUnknown() {
			return Rule{}, false
		}

		lo, ok1 := int64Attr(pr.Attributes(), "min")
		hi, ok2 := int64Attr(pr.Attributes(), "max")

		if isUnknown(pr.Attributes(), "min") || isUnknown(pr.Attributes(), "max") {
			return Rule{}, false
		}

		if ok1 && ok2 {
			r.PortMin, r.PortMax = int(lo), int(hi)
		}
	}

	return r, true
}

// ruleElement is one element of a rules set and the rule it holds; known is false while any
// part of it is unknown (ruleFromConfig).
type ruleElement struct {
	value attr.Value
	rule  Rule
	known bool
}

// ruleElements are the rule objects of a rules set's elements (none of a null or unknown set).
func ruleElements(elems []attr.Value) []ruleElement {
	var out []ruleElement

	for _, elem := range elems {
		if obj, ok := elem.(types.Object); ok {
			r, known := ruleFromConfig(obj)
			out = append(out, ruleElement{value: elem, rule: r, known: known})
		}
	}

	return out
}

// ruleValidator checks one rule: port and port_range exclude each other, ports only with tcp
// and udp, min ≤ max, and a rule equal to Neutron's default egress rule carries no
// description (Neutron calls a second such rule a duplicate, whatever its description).
var ruleValidator = adapter.ObjectCheck("port or port_range only with tcp or udp, not both; port_range.min ≤ port_range.max",
	func(attrs map[string]attr.Value, p path.Path, diags *diag.Diagnostics) {
		protocol, protoKnown := stringAttr(attrs, "protocol")

		if !attrs["port"].IsNull() && !attrs["port_range"].IsNull() {
			diags.AddAttributeError(p.AtName("port_range"), "Conflicting ports", "Set either port or port_range, not both.")
		}

		if protoKnown && !ProtocolHasPorts(protocol) {
			for _, name := range []string{"port", "port_range"} {
				if !attrs[name].IsNull() {
					diags.AddAttributeError(p.AtName(name), "Ports need tcp or udp",
						fmt.Sprintf("A %s rule has no ports: %s is only allowed with protocol tcp or udp.", protocol, name))
				}
			}
		}

		if pr, ok := attrs["port_range"].(types.Object); ok && !pr.IsNull() && !pr.IsUnknown() {
			lo, ok1 := int64Attr(pr.Attributes(), "min")
			hi, ok2 := int64Attr(pr.Attributes(), "max")

			if ok1 && ok2 && lo > hi {
				diags.AddAttributeError(p.AtName("port_range"), "Invalid port range",
					fmt.Sprintf("The range starts at %d, after its end %d.", lo, hi))
			}
		}

		if r, ok := ruleFromAttributes(attrs); ok && r.IsDefaultEgress() && r.Description != "" {
			diags.AddAttributeError(p.AtName("description"), "Description on the default egress rule",
				fmt.Sprintf("An egress rule for any protocol to %s is Neutron's default egress rule, which every security group "+
					"already has and which cannot carry a description: remove the description.", r.RemoteIPPrefix))
		}
	})

// rulesUnique checks that no two rules of a set are the same rule for Neutron (which ignores
// descriptions, and for which port = 80 and port_range = { min = 80, max = 80 } are one).
var rulesUnique = adapter.SetCheck("no two rules may be the same rule for Neutron",
	func(elems []attr.Value, p path.Path, diags *diag.Diagnostics) {
		seen := map[RuleKey]bool{}

		for _, e := range ruleElements(elems) {
			if !e.known {
				continue
			}

			r := e.rule
			k := r.keyWithoutDescription()
			if seen[k] {
				diags.AddAttributeError(p, "Duplicate security group rules",
					fmt.Sprintf("Two rules are the same rule for Neutron (%s): descriptions do not tell rules apart, and "+
						"port = N equals port_range = { min = N, max = N }. Keep one of them.", describeRule(r)))
			}

			seen[k] = true
		}
	})

// describeRule is a short human form of a rule.
func describeRule(r Rule) string {
	ports := ""

	switch {
	case r.PortMin == 0 && r.PortMax == 0:
	case r.PortMin == r.PortMax:
		ports = fmt.Sprintf(" port %d", r.PortMin)
	default:
		ports = fmt.Sprintf(" ports %d-%d", r.PortMin, r.PortMax)
	}

	return fmt.Sprintf("%s %s%s %s", r.Direction, r.Protocol, ports, r.RemoteIPPrefix)
}
