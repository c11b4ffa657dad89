package providernetwork

import (
	"context"
	"net/netip"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// model is the state of a unikorn_provider_network.
type model struct {
	adapter.RegionalObject

	External        types.Bool   `tfsdk:"external"`
	MTU             types.Int64  `tfsdk:"mtu"`
	NetworkType     types.String `tfsdk:"network_type"`
	PhysicalNetwork types.String `tfsdk:"physical_network"`
	SegmentationID  types.Int64  `tfsdk:"segmentation_id"`
	Shared          types.Bool   `tfsdk:"shared"`
	Subnets         types.List   `tfsdk:"subnets"`
}

type subnetModel struct {
	AllocationPools types.Set    `tfsdk:"allocation_pools"`
	CIDR            types.String `tfsdk:"cidr"`
	DNSNameservers  types.List   `tfsdk:"dns_nameservers"`
	EnableDHCP      types.Bool   `tfsdk:"enable_dhcp"`
	GatewayIP       types.String `tfsdk:"gateway_ip"`
	HostRoutes      types.Set    `tfsdk:"host_routes"`
	ID              types.String `tfsdk:"id"`
	Name            types.String `tfsdk:"name"`
}

type poolModel struct {
	End   types.String `tfsdk:"end"`
	Start types.String `tfsdk:"start"`
}

type routeModel struct {
	Destination types.String `tfsdk:"destination"`
	NextHop     types.String `tfsdk:"next_hop"`
}

// expand turns the plan into the core's spec.
func expand(ctx context.Context, m model, diags *diag.Diagnostics) Spec {
	spec := Spec{
		Name: m.Name.ValueString(), NetworkType: m.NetworkType.ValueString(), PhysicalNetwork: m.PhysicalNetwork.ValueString(),
		SegmentationID: int(m.SegmentationID.ValueInt64()), External: m.External.ValueBool(), Shared: m.Shared.ValueBool(),
		MTU: int(m.MTU.ValueInt64()),
	}

	for _, s := range adapter.Elements[subnetModel](ctx, m.Subnets, diags) {
		sub := SubnetSpec{
			Name: s.Name.ValueString(), CIDR: s.CIDR.ValueString(), GatewayIP: s.GatewayIP.ValueString(),
			EnableDHCP: s.EnableDHCP.ValueBool(), DNSNameservers: nil,
		}

		if !s.AllocationPools.IsNull() && !s.AllocationPools.IsUnknown() {
			sub.Pools = []Pool{}
			for _, p := range adapter.Elements[poolModel](ctx, s.AllocationPools, diags) {
				sub.Pools = append(sub.Pools, Pool{Start: p.Start.ValueString(), End: p.End.ValueString()})
			}
		}

		for _, d := range adapter.Elements[types.String](ctx, s.DNSNameservers, diags) {
			sub.DNSNameservers = append(sub.DNSNameservers, d.ValueString())
		}

		for _, r := range adapter.Elements[routeModel](ctx, s.HostRoutes, diags) {
			sub.HostRoutes = append(sub.HostRoutes, network.Route{Destination: r.Destination.ValueString(), NextHop: r.NextHop.ValueString()})
		}

		spec.Subnets = append(spec.Subnets, sub)
	}

	return spec
}

func poolsValue(ps []Pool) types.Set {
	elems := make([]attr.Value, 0, len(ps))
	for _, p := range ps {
		elems = append(elems, types.ObjectValueMust(poolType.AttrTypes, map[string]attr.Value{
			"end": types.StringValue(p.End), "start": types.StringValue(p.Start),
		}))
	}

	return types.SetValueMust(poolType, elems)
}

func routesValue(rs []network.Route, prior types.Set) types.Set {
	elems := make([]attr.Value, 0, len(rs))
	for _, r := range rs {
		elems = append(elems, types.ObjectValueMust(routeType.AttrTypes, map[string]attr.Value{
			"destination": types.StringValue(r.Destination), "next_hop": types.StringValue(r.NextHop),
		}))
	}

	return adapter.SetOf(routeType, elems, prior)
}

// subnetValue is the state of one subnet; prior is its previous state (or the plan), which
// keeps unset collections null.
func subnetValue(s Subnet, prior *subnetModel) attr.Value {
	var priorDNS types.List

	priorRoutes := types.SetNull(routeType)

	if prior != nil {
		priorDNS, priorRoutes = prior.DNSNameservers, prior.HostRoutes
	}

	return types.ObjectValueMust(subnetType.AttrTypes, map[string]attr.Value{
		"allocation_pools": poolsValue(s.Pools),
		"cidr":             types.StringValue(canonicalPrefix(s.CIDR)),
		"dns_nameservers":  adapter.StringList(s.DNSNameservers, priorDNS),
		"enable_dhcp":      types.BoolValue(s.EnableDHCP),
		"gateway_ip":       adapter.StringOrNull(s.GatewayIP),
		"host_routes":      routesValue(s.HostRoutes, priorRoutes),
		"id":               types.StringValue(s.ID),
		"name":             types.StringValue(s.Name),
	})
}

func canonicalPrefix(s string) string {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked().String()
	}

	return s
}

// flatten writes what Neutron holds into m, in region; the subnets follow m's order (the plan's, or the
// state's on a refresh), the ones m does not know come after them in Neutron's order.
func flatten(ctx context.Context, m *model, n *Network, region string, diags *diag.Diagnostics) {
	m.ID = types.StringValue(n.ID)
	m.Region = types.StringValue(region)
	m.Name = types.StringValue(n.Name)
	m.NetworkType = types.StringValue(n.NetworkType)
	m.PhysicalNetwork = types.StringValue(n.PhysicalNetwork)
	m.External = types.BoolValue(n.External)
	m.Shared = types.BoolValue(n.Shared)
	m.MTU = types.Int64Value(int64(n.MTU))

	m.SegmentationID = types.Int64Null()
	if n.NetworkType == TypeVLAN && n.SegmentationID > 0 {
		m.SegmentationID = types.Int64Value(int64(n.SegmentationID))
	}

	known := adapter.Elements[subnetModel](ctx, m.Subnets, diags)
	subs := slices.Clone(n.Subnets)
	elems := []attr.Value{}

	for i := range known {
		at := slices.IndexFunc(subs, func(s Subnet) bool { return s.Name == known[i].Name.ValueString() })
		if at < 0 {
			continue
		}

		elems = append(elems, subnetValue(subs[at], &known[i]))
		subs = slices.Delete(subs, at, at+1)
	}

	for _, s := range subs {
		elems = append(elems, subnetValue(s, nil))
	}

	if len(elems) == 0 && (m.Subnets.IsNull() || m.Subnets.IsUnknown()) {
		m.Subnets = types.ListNull(subnetType)
		return
	}

	m.Subnets = types.ListValueMust(subnetType, elems)
}

// subnetsOfModel reads the subnets of a list; nil when unknown or null.
func subnetsOfModel(ctx context.Context, l basetypes.ListValue, diags *diag.Diagnostics) []subnetModel {
	return adapter.Elements[subnetModel](ctx, l, diags)
}
