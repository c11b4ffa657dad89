package network

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
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
type vlanRangeOrdered struct{}

func (vlanRangeOrdered) Description(context.Context) string { return "start must not be after end" }

func (v vlanRangeOrdered) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (vlanRangeOrdered) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	attrs := req.ConfigValue.Attributes()
	start, ok1 := int64Attr(attrs, "start")
	end, ok2 := int64Attr(attrs, "end")

	if ok1 && ok2 && start > end {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid VLAN range",
			fmt.Sprintf("The range starts at %d, after its end %d.", start, end))
	}
}

// vlanRangesDisjoint checks that no two VLAN ranges overlap.
type vlanRangesDisjoint struct{}

func (vlanRangesDisjoint) Description(context.Context) string { return "ranges must not overlap" }

func (v vlanRangesDisjoint) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (vlanRangesDisjoint) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	var seen []VLANRange

	for i, elem := range req.ConfigValue.Elements() {
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
				resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Overlapping VLAN ranges",
					fmt.Sprintf("The range %s overlaps the range %s.", r, o))
			}
		}

		seen = append(seen, r)
	}
}

// ruleFromConfig reads a configured rule object; ok is false while any part is unknown.
// Defaults are applied: an unset remote_ip_prefix is 0.0.0.0/0, an unset description "".
func ruleFromConfig(obj types.Object) (Rule, bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return Rule{}, false
	}

	attrs := obj.Attributes()

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

// ruleElements are the rule objects of a rules set; none when it is null or unknown.
func ruleElements(set types.Set) []ruleElement {
	if set.IsNull() || set.IsUnknown() {
		return nil
	}

	var out []ruleElement

	for _, elem := range set.Elements() {
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
type ruleValidator struct{}

func (ruleValidator) Description(context.Context) string {
	return "port or port_range only with tcp or udp, not both; port_range.min ≤ port_range.max"
}

func (v ruleValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (ruleValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	attrs := req.ConfigValue.Attributes()
	protocol, protoKnown := stringAttr(attrs, "protocol")

	portSet := !attrs["port"].IsNull()
	rangeSet := !attrs["port_range"].IsNull()

	if portSet && rangeSet {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("port_range"), "Conflicting ports",
			"Set either port or port_range, not both.")
	}

	if protoKnown && !ProtocolHasPorts(protocol) {
		for _, name := range []string{"port", "port_range"} {
			if !attrs[name].IsNull() {
				resp.Diagnostics.AddAttributeError(req.Path.AtName(name), "Ports need tcp or udp",
					fmt.Sprintf("A %s rule has no ports: %s is only allowed with protocol tcp or udp.", protocol, name))
			}
		}
	}

	if pr, ok := attrs["port_range"].(types.Object); ok && !pr.IsNull() && !pr.IsUnknown() {
		lo, ok1 := int64Attr(pr.Attributes(), "min")
		hi, ok2 := int64Attr(pr.Attributes(), "max")

		if ok1 && ok2 && lo > hi {
			resp.Diagnostics.AddAttributeError(req.Path.AtName("port_range"), "Invalid port range",
				fmt.Sprintf("The range starts at %d, after its end %d.", lo, hi))
		}
	}

	if r, ok := ruleFromConfig(req.ConfigValue); ok && r.IsDefaultEgress() && r.Description != "" {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("description"), "Description on the default egress rule",
			fmt.Sprintf("An egress rule for any protocol to %s is Neutron's default egress rule, which every security group "+
				"already has and which cannot carry a description: remove the description.", r.RemoteIPPrefix))
	}
}

// rulesUnique checks that no two rules of a set are the same rule for Neutron (which ignores
// descriptions, and for which port = 80 and port_range = { min = 80, max = 80 } are one).
type rulesUnique struct{}

func (rulesUnique) Description(context.Context) string {
	return "no two rules may be the same rule for Neutron"
}

func (v rulesUnique) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (rulesUnique) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	seen := map[RuleKey]bool{}

	for _, e := range ruleElements(req.ConfigValue) {
		if !e.known {
			continue
		}

		r := e.rule
		k := r.keyWithoutDescription()
		if seen[k] {
			resp.Diagnostics.AddAttributeError(req.Path, "Duplicate security group rules",
				fmt.Sprintf("Two rules are the same rule for Neutron (%s): descriptions do not tell rules apart, and "+
					"port = N equals port_range = { min = N, max = N }. Keep one of them.", describeRule(r)))
		}

		seen[k] = true
	}
}

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
