package network

import (
	"context"
	"net/netip"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The plans of networks and security groups as Terraform gets them: through the framework's
// own PlanResourceChange (defaults, computed values made unknown on a change, attribute plan
// modifiers, then ModifyPlan), from the proposed new state that Terraform core sends. The
// provider is not configured, so the plan-time checks that need a cloud are left out.

// planProvider serves this package's two resources.
type planProvider struct{}

func (planProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "unikorn"
}

func (planProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{}
}

func (planProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (planProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{NewNetworkResource, NewSecurityGroupResource}
}

func (planProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// proposedNew is the proposed new state Terraform core sends with a plan (its ProposedNew, at
// the top level, which is where these schemas differ): the configuration, with the prior value
// of every computed attribute the configuration leaves null (null on a create).
func proposedNew(t *testing.T, s tfsdk.State, config, prior tftypes.Value) tftypes.Value {
	t.Helper()

	var c, p map[string]tftypes.Value
	if err := config.As(&c); err != nil {
		t.Fatal(err)
	}

	if !prior.IsNull() {
		if err := prior.As(&p); err != nil {
			t.Fatal(err)
		}
	}

	out := map[string]tftypes.Value{}

	for name, a := range s.Schema.GetAttributes() {
		out[name] = c[name]
		if c[name].IsNull() && a.IsComputed() {
			out[name] = tftypes.NewValue(c[name].Type(), nil)
			if p != nil {
				out[name] = p[name]
			}
		}
	}

	return tftypes.NewValue(config.Type(), out)
}

// plan plans the resource unikorn_<typ> from prior (nil: a create) to config through the
// framework and returns the planned state into a model of the same type as config.
func plan[M any](t *testing.T, typ string, config M, prior *M) M {
	t.Helper()

	ctx := context.Background()

	r := NewNetworkResource()
	if typ == "security_group" {
		r = NewSecurityGroupResource()
	}

	var sr resource.SchemaResponse

	r.Schema(ctx, resource.SchemaRequest{}, &sr)

	state := tfsdk.State{Schema: sr.Schema}
	tfType := sr.Schema.Type().TerraformType(ctx)

	encode := func(m *M) tftypes.Value {
		if m == nil {
			return tftypes.NewValue(tfType, nil)
		}

		s := state
		if diags := s.Set(ctx, m); diags.HasError() {
			t.Fatal(diags)
		}

		return s.Raw
	}

	dynamic := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(tfType, v)
		if err != nil {
			t.Fatal(err)
		}

		return &d
	}

	server, err := providerserver.NewProtocol6WithError(planProvider{})()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}

	configV, priorV := encode(&config), encode(prior)

	resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "unikorn_" + typ,
		PriorState:       dynamic(priorV),
		ProposedNewState: dynamic(proposedNew(t, state, configV, priorV)),
		Config:           dynamic(configV),
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("plan: %s: %s", d.Summary, d.Detail)
		}
	}

	planned, err := resp.PlannedState.Unmarshal(tfType)
	if err != nil {
		t.Fatal(err)
	}

	var out M

	state.Raw = planned
	if diags := state.Get(ctx, &out); diags.HasError() {
		t.Fatal(diags)
	}

	if prior != nil && len(resp.RequiresReplace) != 0 {
		t.Fatalf("the plan replaces the object (%v)", resp.RequiresReplace)
	}

	return out
}

func nullTimeouts() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType,
	})}
}

// networkConfig is the configuration of unikorn_network "<name>" in identity p with cidr and
// dns servers, nothing else set.
func networkConfigOf(name, cidr string, dns ...string) networkModel {
	m := networkModel{
		AllocationPool:    types.ObjectNull(rangeAttrTypes),
		CIDR:              types.StringValue(cidr),
		Description:       types.StringNull(),
		DNSNameservers:    types.ListNull(types.StringType),
		ExternalNetworkID: types.StringNull(),
		GatewayIP:         types.StringNull(),
		RouterID:          types.StringNull(),
		Routes:            types.MapNull(types.StringType),
		StaticRange:       types.ObjectNull(rangeAttrTypes),
		SubnetID:          types.StringNull(),
		VLANID:            types.Int64Null(),
	}
	m.ID, m.IdentityID, m.ProjectID = types.StringNull(), types.StringValue("p"), types.StringNull()
	m.Name, m.Region, m.Timeouts = types.StringValue(name), types.StringNull(), nullTimeouts()

	if len(dns) > 0 {
		m.DNSNameservers = types.ListValueMust(types.StringType, stringValues(dns))
	}

	return m
}

func stringValues(s []string) []attr.Value {
	out := make([]attr.Value, len(s))
	for i, v := range s {
		out[i] = types.StringValue(v)
	}

	return out
}

// importedNetwork is the state that Read gives an imported network of Unikorn's, made with
// the pool start-end and the given DNS servers.
func importedNetwork(t *testing.T, name, cidr, start, end string, dns ...string) networkModel {
	t.Helper()

	m := networkConfigOf(name, cidr, dns...)
	m.ID, m.SubnetID, m.RouterID = types.StringValue("net-1"), types.StringValue("sub-1"), types.StringValue("router-1")
	m.Region, m.ExternalNetworkID = types.StringValue("RegionOne"), types.StringValue("public")
	m.Description = types.StringValue(unikornNetworkDescription)

	pool, err := ParseRange(start, end)
	if err != nil {
		t.Fatal(err)
	}

	a, err := PlanAddressing(mustCIDR(t, cidr), &pool)
	if err != nil {
		t.Fatal(err)
	}

	m.GatewayIP = types.StringValue(a.Gateway.String())
	m.AllocationPool, m.StaticRange = rangeObject(&a.Pool), rangeObject(a.Static)

	return m
}

func mustCIDR(t *testing.T, s string) netip.Prefix {
	t.Helper()

	p, err := ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}

	return p
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()

	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}

	return a
}

// TestPlan_importedUnikornNetworkShowsNoChange: the plan of a configuration that mirrors an
// imported Unikorn network (name, cidr, DNS; no allocation_pool, description or external
// network) is the state as it is, whatever pool the network's generation made, and one made by
// an earlier release of this provider (the upper half) keeps its pool too. A change the
// configuration asks for (DNS) changes only that.
func TestPlan_importedUnikornNetworkShowsNoChange(t *testing.T) {
	t.Parallel()

	id := "b5e0d4a6-8c1f-4f7e-9d2a-3c4b5a6d7e8f"
	pools := []struct{ name, cidr, start, end string }{
		{"Unikorn v1.10", "10.0.0.0/24", "10.0.0.2", "10.0.0.127"},
		{"Unikorn v1.10 /16", "10.1.0.0/16", "10.1.0.2", "10.1.255.127"},
		{"Unikorn v1.11 on", "10.2.0.0/16", "10.2.0.128", "10.2.255.254"},
		{"this provider before: the upper half", "10.3.0.0/16", "10.3.128.0", "10.3.255.254"},
	}

	for _, p := range pools {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()

			state := importedNetwork(t, id, p.cidr, p.start, p.end, "192.0.2.53")

			got := plan(t, "network", networkConfigOf(id, p.cidr, "192.0.2.53"), &state)
			if !got.AllocationPool.Equal(state.AllocationPool) || !got.Description.Equal(state.Description) ||
				!got.StaticRange.Equal(state.StaticRange) || !got.ExternalNetworkID.Equal(state.ExternalNetworkID) ||
				!got.RouterID.Equal(state.RouterID) || !got.GatewayIP.Equal(state.GatewayIP) {
				t.Fatalf("planned %+v\nwant the state %+v", got, state)
			}

			// A DNS change: the rest as it is.
			got = plan(t, "network", networkConfigOf(id, p.cidr, "192.0.2.54"), &state)
			if !got.AllocationPool.Equal(state.AllocationPool) || !got.Description.Equal(state.Description) ||
				!got.StaticRange.Equal(state.StaticRange) || got.DNSNameservers.Equal(state.DNSNameservers) {
				t.Fatalf("planned %+v\nwant the state's pool and description, and the new DNS", got)
			}
		})
	}
}

// TestPlan_networkPoolAndDescription: a new network gets Unikorn's pool and no description; a
// configured pool or description is planned as configured, also on an existing network.
func TestPlan_networkPoolAndDescription(t *testing.T) {
	t.Parallel()

	created := plan(t, "network", networkConfigOf("a", "10.0.0.0/16"), nil)
	if want := rangeObject(&AddressRange{Start: mustAddr(t, "10.0.0.128"), End: mustAddr(t, "10.0.255.254")}); !created.AllocationPool.Equal(want) {
		t.Fatalf("a new network's pool %v, want %v", created.AllocationPool, want)
	}

	if !created.Description.Equal(types.StringValue("")) {
		t.Fatalf("a new network's description %v, want empty", created.Description)
	}

	state := importedNetwork(t, "a", "10.0.0.0/24", "10.0.0.2", "10.0.0.127")
	config := networkConfigOf("a", "10.0.0.0/24")
	pool := &AddressRange{Start: mustAddr(t, "10.0.0.128"), End: mustAddr(t, "10.0.0.254")}
	config.AllocationPool, config.Description = rangeObject(pool), types.StringValue("")

	got := plan(t, "network", config, &state)
	if !got.AllocationPool.Equal(config.AllocationPool) || !got.Description.Equal(config.Description) ||
		!got.StaticRange.Equal(rangeObject(&AddressRange{Start: mustAddr(t, "10.0.0.2"), End: mustAddr(t, "10.0.0.127")})) {
		t.Fatalf("planned %+v, want the configured pool and description", got)
	}
}

// groupConfigOf is the configuration of unikorn_security_group "<name>" in identity p with
// the rule objects rules.
func groupConfigOf(name string, rules ...attr.Value) securityGroupModel {
	m := securityGroupModel{Description: types.StringNull(), Rules: types.SetValueMust(ruleType, rules)}
	m.ID, m.IdentityID, m.ProjectID = types.StringNull(), types.StringValue("p"), types.StringNull()
	m.Name, m.Region, m.Timeouts = types.StringValue(name), types.StringNull(), nullTimeouts()

	return m
}

// withPrefix is the rule object o with remote_ip_prefix set to prefix.
func withPrefix(o types.Object, prefix string) types.Object {
	attrs := o.Attributes()
	attrs["remote_ip_prefix"] = types.StringValue(prefix)

	return types.ObjectValueMust(ruleAttrTypes, attrs)
}

// TestPlan_importedUnikornGroupShowsNoChange: the plan of rules that mirror an imported
// Unikorn group's (no descriptions; 0.0.0.0/0 written out or not) is the state as it is, so
// nothing is applied; a rule added to them is the plan's only new element, the others planned
// as the group has them.
func TestPlan_importedUnikornGroupShowsNoChange(t *testing.T) {
	t.Parallel()

	id := "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f"
	_, mirror := unikornRules()

	var read, config []attr.Value

	for i, r := range mirror {
		unikorn := r
		unikorn.Description, unikorn.EtherType = unikornRuleDescription, "IPv4"
		read = append(read, ruleObject(unikorn))

		o := ruleObject(r)
		if i == 1 {
			o = withPrefix(o, "0.0.0.0/0") // written out where Unikorn gave none
		}

		config = append(config, o)
	}

	// The state of the import: Read's canonical form of every rule, with Unikorn's descriptions.
	state := groupConfigOf(id, read...)
	state.ID, state.Region = types.StringValue("sg-1"), types.StringValue("RegionOne")
	// A group made before Unikorn v1.10 and renamed by its upgrade keeps this description.
	state.Description = types.StringValue("unikorn managed security group")

	got := plan(t, "security_group", groupConfigOf(id, config...), &state)
	if !got.Rules.Equal(state.Rules) || !got.Description.Equal(state.Description) || !got.ID.Equal(state.ID) {
		t.Fatalf("planned %v\nwant the state %v", got, state)
	}

	// One more rule: the plan adds it, and plans the others as the group has them.
	http := ruleObject(Rule{Direction: "ingress", Protocol: "tcp", PortMin: 80, PortMax: 80, RemoteIPPrefix: "0.0.0.0/0"})

	got = plan(t, "security_group", groupConfigOf(id, append(config, http)...), &state)
	if want := types.SetValueMust(ruleType, append(read, http)); !got.Rules.Equal(want) {
		t.Fatalf("planned rules %v\nwant %v", got.Rules, want)
	}
}
