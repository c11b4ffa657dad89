package network

import (
	"context"
	"maps"
	"net/netip"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// stateRef is the IDs state knows.
func stateRef(m networkModel) Ref {
	return Ref{
		NetworkID: m.ID.ValueString(),
		SubnetID:  m.SubnetID.ValueString(),
		RouterID:  m.RouterID.ValueString(),
	}
}

// expandRange reads an address range object: (nil, true) when null, (nil, false) when any
// part is unknown.
func expandRange(ctx context.Context, obj types.Object) (*AddressRange, bool, diag.Diagnostics) {
	if obj.IsNull() {
		return nil, true, nil
	}

	if obj.IsUnknown() {
		return nil, false, nil
	}

	var m rangeModel

	diags := obj.As(ctx, &m, basetypes.ObjectAsOptions{})
	if diags.HasError() || m.Start.IsUnknown() || m.End.IsUnknown() {
		return nil, false, diags
	}

	r, err := ParseRange(m.Start.ValueString(), m.End.ValueString())
	if err != nil {
		return nil, false, diags // the attributes' validators report it
	}

	return &r, true, diags
}

// rangeObject is the object of an address range; null for nil.
func rangeObject(r *AddressRange) types.Object {
	if r == nil {
		return types.ObjectNull(rangeAttrTypes)
	}

	return types.ObjectValueMust(rangeAttrTypes, map[string]attr.Value{
		"end":   types.StringValue(r.End.String()),
		"start": types.StringValue(r.Start.String()),
	})
}

// expandNetworkSpec turns the plan into the core's spec. A description the configuration does
// not set is not written (Spec.Description nil).
func expandNetworkSpec(ctx context.Context, plan, config networkModel) (Spec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := Spec{
		Name:              plan.Name.ValueString(),
		Description:       configuredString(config.Description),
		ExternalNetworkID: plan.ExternalNetworkID.ValueString(), // "" while unknown: the default
	}

	prefix, err := ParseCIDR(plan.CIDR.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("cidr"), "Invalid CIDR", err.Error())
		return spec, diags
	}

	pool, _, d := expandRange(ctx, plan.AllocationPool)
	diags.Append(d...)

	spec.Addressing, err = PlanAddressing(prefix, pool)
	if err != nil {
		diags.AddAttributeError(path.Root("allocation_pool"), "Invalid allocation pool", err.Error())
	}

	if !plan.DNSNameservers.IsNull() {
		diags.Append(plan.DNSNameservers.ElementsAs(ctx, &spec.DNSNameservers, false)...)
	}

	if !plan.Routes.IsNull() {
		routes := map[string]string{}
		diags.Append(plan.Routes.ElementsAs(ctx, &routes, false)...)

		for _, dest := range slices.Sorted(maps.Keys(routes)) {
			spec.Routes = append(spec.Routes, Route{Destination: dest, NextHop: routes[dest]})
		}
	}

	return spec, diags
}

// flattenNetwork writes what Neutron holds into m. Parts that are missing keep the values m
// has (from the plan or the prior state), except their IDs, which become null.
func flattenNetwork(m *networkModel, n *Network) {
	m.ID = types.StringValue(n.ID)
	m.Description = types.StringValue(n.Description)

	m.owned(n.ProjectID)

	m.VLANID = types.Int64Null()
	if n.VLANID != nil {
		m.VLANID = types.Int64Value(int64(*n.VLANID))
	}

	m.SubnetID = types.StringNull()

	if s := n.Subnet; s != nil {
		m.SubnetID = types.StringValue(s.ID)
		m.CIDR = types.StringValue(s.CIDR)
		m.GatewayIP = adapter.StringOrNull(s.GatewayIP)

		m.AllocationPool = types.ObjectNull(rangeAttrTypes)
		m.StaticRange = types.ObjectNull(rangeAttrTypes)

		if len(s.AllocationPools) == 1 {
			pool := s.AllocationPools[0]
			m.AllocationPool = rangeObject(&pool)

			if p, err := netip.ParsePrefix(s.CIDR); err == nil {
				if a, err := PlanAddressing(p, &pool); err == nil {
					m.StaticRange = rangeObject(a.Static)
				}
			}
		}

		m.DNSNameservers = adapter.StringList(s.DNSNameservers, m.DNSNameservers)
		m.Routes = adapter.StringMap(routeMap(s.Routes), m.Routes)
	}

	m.RouterID = types.StringNull()

	if rt := n.Router; rt != nil {
		m.ExternalNetworkID = adapter.StringOrNull(rt.ExternalNetworkID)

		if n.InterfacePortID != "" {
			m.RouterID = types.StringValue(rt.ID)
		}
	}

	m.ExternalNetworkID = adapter.KnownOrNull(m.ExternalNetworkID)
	m.GatewayIP = adapter.KnownOrNull(m.GatewayIP)
	m.CIDR = adapter.KnownOrNull(m.CIDR)

	if m.AllocationPool.IsUnknown() {
		m.AllocationPool = types.ObjectNull(rangeAttrTypes)
	}

	if m.StaticRange.IsUnknown() {
		m.StaticRange = types.ObjectNull(rangeAttrTypes)
	}
}

// routeMap is the routes as destination to next hop.
func routeMap(routes []Route) map[string]string {
	out := make(map[string]string, len(routes))
	for _, r := range routes {
		out[r.Destination] = r.NextHop
	}

	return out
}

// networkModel is the resource's data.
type networkModel struct {
	tenantFields

	AllocationPool    types.Object `tfsdk:"allocation_pool"`
	CIDR              types.String `tfsdk:"cidr"`
	Description       types.String `tfsdk:"description"`
	DNSNameservers    types.List   `tfsdk:"dns_nameservers"`
	ExternalNetworkID types.String `tfsdk:"external_network_id"`
	GatewayIP         types.String `tfsdk:"gateway_ip"`
	RouterID          types.String `tfsdk:"router_id"`
	Routes            types.Map    `tfsdk:"routes"`
	StaticRange       types.Object `tfsdk:"static_range"`
	SubnetID          types.String `tfsdk:"subnet_id"`
	VLANID            types.Int64  `tfsdk:"vlan_id"`
}

// rangeModel is an address range object.
type rangeModel struct {
	End   types.String `tfsdk:"end"`
	Start types.String `tfsdk:"start"`
}
