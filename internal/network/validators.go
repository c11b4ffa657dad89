package network

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
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

// cidrValidator checks a network's IPv4 prefix (see ParseCIDR).
type cidrValidator struct{}

func (cidrValidator) Description(context.Context) string {
	return fmt.Sprintf("an IPv4 prefix in canonical form of at most /%d bits, e.g. 10.0.0.0/24", MaxPrefixLength)
}

func (v cidrValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (cidrValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if _, err := ParseCIDR(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CIDR", err.Error())
	}
}

// prefixValidator checks an IP prefix (IPv4 only when v4 is set) in canonical form (no host
// bits, Neutron's spelling), so that what Neutron stores reads back the same.
type prefixValidator struct{ v4 bool }

func (v prefixValidator) Description(context.Context) string {
	if v.v4 {
		return "an IPv4 prefix in canonical form, e.g. 192.0.2.0/24"
	}

	return "an IPv4 or IPv6 prefix in canonical form, e.g. 192.0.2.0/24 or 2001:db8::/32"
}

func (v prefixValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v prefixValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := checkPrefix(req.ConfigValue.ValueString(), v.v4); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CIDR", err.Error())
	}
}

// checkPrefix checks that s is a prefix (IPv4 when v4 is set) in canonical form.
func checkPrefix(s string, v4 bool) error {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Errorf("%q is not a CIDR prefix such as 192.0.2.0/24 or 2001:db8::/32", s)
	}

	if v4 && !p.Addr().Is4() {
		return fmt.Errorf("%q is not an IPv4 prefix", s)
	}

	if canon := p.Masked().String(); canon != s {
		return fmt.Errorf("%q is not in canonical form: write %s", s, canon)
	}

	return nil
}

// addressValidator checks an IP address (IPv4 only when v4 is set) in canonical form.
type addressValidator struct{ v4 bool }

func (v addressValidator) Description(context.Context) string {
	if v.v4 {
		return "an IPv4 address, e.g. 192.0.2.10"
	}

	return "an IPv4 or IPv6 address, e.g. 192.0.2.10 or 2001:db8::10"
}

func (v addressValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v addressValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid IP address", err.Error())
	}
}

func (v addressValidator) check(s string) error {
	a, err := netip.ParseAddr(s)

	switch {
	case err != nil || a.Zone() != "":
		return fmt.Errorf("%q is not an IP address", s)
	case v.v4 && !a.Is4():
		return fmt.Errorf("%q is not an IPv4 address", s)
	case a.String() != s:
		return fmt.Errorf("%q is not in canonical form: write %s", s, a)
	}

	return nil
}

// nameValidator checks a user-given name with naming.ValidateName.
type nameValidator struct{ kind string }

func (v nameValidator) Description(context.Context) string {
	return fmt.Sprintf("a %s name of 1 to %d characters, without control characters or surrounding white space",
		v.kind, naming.MaxNameLength(v.kind))
}

func (v nameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v nameValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := naming.ValidateName(v.kind, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name", err.Error())
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
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	seen := map[RuleKey]bool{}

	for _, elem := range req.ConfigValue.Elements() {
		obj, ok := elem.(types.Object)
		if !ok {
			continue
		}

		r, ok := ruleFromConfig(obj)
		if !ok {
			continue
		}

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
