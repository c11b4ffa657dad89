package network

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// rule builds a configured rule object; zero values are null.
func rule(direction, protocol string, port, lo, hi int64, prefix, description string) types.Object {
	attrs := map[string]attr.Value{
		"description":      types.StringNull(),
		"direction":        types.StringValue(direction),
		"port":             types.Int64Null(),
		"port_range":       types.ObjectNull(portRangeAttrTypes),
		"protocol":         types.StringValue(protocol),
		"remote_ip_prefix": types.StringNull(),
	}

	if port != 0 {
		attrs["port"] = types.Int64Value(port)
	}

	if lo != 0 || hi != 0 {
		attrs["port_range"] = types.ObjectValueMust(portRangeAttrTypes, map[string]attr.Value{
			"max": types.Int64Value(hi), "min": types.Int64Value(lo),
		})
	}

	if prefix != "" {
		attrs["remote_ip_prefix"] = types.StringValue(prefix)
	}

	if description != "" {
		attrs["description"] = types.StringValue(description)
	}

	return types.ObjectValueMust(ruleAttrTypes, attrs)
}

func TestRuleValidator(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		rule types.Object
		want string // "" = valid
	}{
		{"tcp port", rule("ingress", "tcp", 22, 0, 0, "", ""), ""},
		{"udp range", rule("ingress", "udp", 0, 5000, 5010, "10.0.0.0/8", "x"), ""},
		{"icmp", rule("ingress", "icmp", 0, 0, 0, "::/0", ""), ""},
		{"any egress v4 default", rule("egress", "any", 0, 0, 0, "", ""), ""},
		{"both", rule("ingress", "tcp", 22, 20, 30, "", ""), "Conflicting ports"},
		{"port with icmp", rule("ingress", "icmp", 22, 0, 0, "", ""), "Ports need tcp or udp"},
		{"range with any", rule("ingress", "any", 0, 1, 2, "", ""), "Ports need tcp or udp"},
		{"reversed range", rule("ingress", "tcp", 0, 30, 20, "", ""), "Invalid port range"},
		{"default egress with description", rule("egress", "any", 0, 0, 0, "::/0", "all out"), "default egress"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			resp := &validator.ObjectResponse{}
			ruleValidator.ValidateObject(context.Background(), validator.ObjectRequest{Path: path.Root("rules"), ConfigValue: tt.rule}, resp)

			got := ""
			for _, d := range resp.Diagnostics.Errors() {
				got += d.Summary() + ": " + d.Detail() + "\n"
			}

			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("diagnostics %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRulesUnique(t *testing.T) {
	t.Parallel()

	check := func(rules ...attr.Value) string {
		resp := &validator.SetResponse{}
		rulesUnique.ValidateSet(context.Background(), validator.SetRequest{
			Path: path.Root("rules"), ConfigValue: types.SetValueMust(ruleType, rules),
		}, resp)

		if resp.Diagnostics.HasError() {
			return resp.Diagnostics.Errors()[0].Detail()
		}

		return ""
	}

	if msg := check(rule("ingress", "tcp", 22, 0, 0, "", ""), rule("ingress", "tcp", 22, 0, 0, "10.0.0.0/8", "")); msg != "" {
		t.Fatalf("distinct rules rejected: %s", msg)
	}

	if msg := check(rule("ingress", "tcp", 80, 0, 0, "", ""), rule("ingress", "tcp", 0, 80, 80, "0.0.0.0/0", "")); msg == "" {
		t.Fatal("port = 80 and port_range 80-80 to 0.0.0.0/0 accepted as different")
	}

	if msg := check(rule("ingress", "tcp", 80, 0, 0, "", "a"), rule("ingress", "tcp", 80, 0, 0, "", "b")); msg == "" {
		t.Fatal("rules differing only in description accepted")
	}
}

// TestStringValidators runs the string validators of the schemas over the spellings users
// write: canonical prefixes and addresses pass, the rest fail at plan time.
func TestStringValidators(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		v     validator.String
		value string
		want  string // "" = valid
	}{
		{"prefix v4", adapter.Prefix(adapter.AnyFamily), "10.0.0.0/8", ""},
		{"prefix v6", adapter.Prefix(adapter.AnyFamily), "2001:db8::/32", ""},
		{"prefix anywhere v4", adapter.Prefix(adapter.AnyFamily), "0.0.0.0/0", ""},
		{"prefix anywhere v6", adapter.Prefix(adapter.AnyFamily), "::/0", ""},
		{"prefix host bits", adapter.Prefix(adapter.AnyFamily), "10.0.0.1/8", "not in canonical form: write 10.0.0.0/8"},
		{"prefix upper case", adapter.Prefix(adapter.AnyFamily), "2001:DB8::/32", "not in canonical form"},
		{"prefix without length", adapter.Prefix(adapter.AnyFamily), "10.0.0.0", "not a CIDR prefix"},
		{"route prefix v6", adapter.Prefix(adapter.IPv4), "2001:db8::/32", "not an IPv4 prefix"},
		{"address v4", adapter.IPAddress(adapter.AnyFamily), "192.0.2.1", ""},
		{"address v6", adapter.IPAddress(adapter.AnyFamily), "2001:db8::1", ""},
		{"address upper case", adapter.IPAddress(adapter.AnyFamily), "2001:DB8::1", "not in canonical form"},
		{"address leading zero", adapter.IPAddress(adapter.AnyFamily), "192.0.2.01", "not an IP address"},
		{"address garbage", adapter.IPAddress(adapter.AnyFamily), "x", "not an IP address"},
		{"next hop v6", adapter.IPAddress(adapter.IPv4), "2001:db8::1", "not an IPv4 address"},
		{"cidr", cidrValidator, "10.0.0.0/24", ""},
		{"cidr host bits", cidrValidator, "10.0.0.1/24", "did you mean 10.0.0.0/24"},
		{"cidr too long", cidrValidator, "10.0.0.0/30", "between 1 and 29"},
		{"cidr v6", cidrValidator, "2001:db8::/64", "not an IPv4 prefix"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			resp := &validator.StringResponse{}
			tt.v.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("x"), ConfigValue: types.StringValue(tt.value),
			}, resp)

			got := ""
			for _, d := range resp.Diagnostics.Errors() {
				got += d.Detail()
			}

			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("%q: diagnostics %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

func TestExpandConfig(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	strs := func(v ...string) types.Set {
		elems := make([]attr.Value, len(v))
		for i, s := range v {
			elems[i] = types.StringValue(s)
		}

		return types.SetValueMust(types.StringType, elems)
	}

	extTypes := map[string]attr.Type{"ids": types.SetType{ElemType: types.StringType}, "tags": types.SetType{ElemType: types.StringType}}
	rangeTypes := map[string]attr.Type{"end": types.Int64Type, "start": types.Int64Type}
	pnTypes := map[string]attr.Type{"physical_network": types.StringType, "vlan_ranges": types.ListType{ElemType: types.ObjectType{AttrTypes: rangeTypes}}}

	vr := func(start, end int64) attr.Value {
		return types.ObjectValueMust(rangeTypes, map[string]attr.Value{"end": types.Int64Value(end), "start": types.Int64Value(start)})
	}

	ext := types.ObjectValueMust(extTypes, map[string]attr.Value{"ids": types.SetNull(types.StringType), "tags": strs("b", "a")})
	pn := types.ObjectValueMust(pnTypes, map[string]attr.Value{
		"physical_network": types.StringValue("physnet1"),
		"vlan_ranges":      types.ListValueMust(types.ObjectType{AttrTypes: rangeTypes}, []attr.Value{vr(100, 110), vr(200, 200)}),
	})

	env := func(name string) string {
		if name == ExternalNetworkIDsEnv {
			return " ext-2, ext-1 ,,"
		}

		return ""
	}
	noEnv := func(string) string { return "" }

	cfg, diags := ExpandConfig(ctx, ext, pn, env)
	if diags.HasError() {
		t.Fatal(diags)
	}

	if strings.Join(cfg.Selector.Tags, ",") != "a,b" || cfg.Selector.IDs != nil ||
		cfg.ProviderNetwork.PhysicalNetwork != "physnet1" || len(cfg.ProviderNetwork.VLANRanges) != 2 {
		t.Fatalf("config %+v %+v", cfg.Selector, cfg.ProviderNetwork)
	}

	cfg, diags = ExpandConfig(ctx, types.ObjectNull(extTypes), types.ObjectNull(pnTypes), noEnv)
	if diags.HasError() || cfg.ProviderNetwork != nil || len(cfg.Selector.IDs)+len(cfg.Selector.Tags) != 0 {
		t.Fatalf("unset: %v %+v", diags, cfg)
	}

	// Unset in the block: the environment's IDs; set (even empty): never the environment.
	cfg, diags = ExpandConfig(ctx, types.ObjectNull(extTypes), types.ObjectNull(pnTypes), env)
	if diags.HasError() || strings.Join(cfg.Selector.IDs, ",") != "ext-2,ext-1" || cfg.Selector.Tags != nil {
		t.Fatalf("unset with %s: %v %+v", ExternalNetworkIDsEnv, diags, cfg.Selector)
	}

	empty := types.ObjectValueMust(extTypes, map[string]attr.Value{"ids": types.SetNull(types.StringType), "tags": types.SetNull(types.StringType)})

	cfg, diags = ExpandConfig(ctx, empty, types.ObjectNull(pnTypes), env)
	if diags.HasError() || len(cfg.Selector.IDs)+len(cfg.Selector.Tags) != 0 {
		t.Fatalf("external_networks = {} with %s: %v %+v", ExternalNetworkIDsEnv, diags, cfg.Selector)
	}

	overlapping := types.ObjectValueMust(pnTypes, map[string]attr.Value{
		"physical_network": types.StringValue("physnet1"),
		"vlan_ranges":      types.ListValueMust(types.ObjectType{AttrTypes: rangeTypes}, []attr.Value{vr(100, 110), vr(110, 120)}),
	})

	if _, diags := ExpandConfig(ctx, types.ObjectNull(extTypes), overlapping, noEnv); !diags.HasError() {
		t.Fatal("overlapping ranges accepted")
	}

	if _, diags := ExpandConfig(ctx, types.ObjectUnknown(extTypes), types.ObjectNull(pnTypes), noEnv); !diags.HasError() {
		t.Fatal("unknown selector accepted")
	}

	// The list validator reports overlaps at plan time too.
	resp := &validator.ListResponse{}
	vlanRangesDisjoint.ValidateList(ctx, validator.ListRequest{
		Path:        path.Root("provider_network").AtName("vlan_ranges"),
		ConfigValue: types.ListValueMust(types.ObjectType{AttrTypes: rangeTypes}, []attr.Value{vr(100, 110), vr(105, 120)}),
	}, resp)

	if !resp.Diagnostics.HasError() {
		t.Fatal("overlap not reported")
	}
}
