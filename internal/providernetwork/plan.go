package providernetwork

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// ValidateConfig checks what needs more than one attribute: a flat network has no
// segmentation ID, subnet names are unique, a gateway is a host address of its subnet, and an
// allocation pool lies inside its subnet, does not contain the gateway and does not overlap
// another pool.
func (r *providerNetworkResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[model](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	if config.NetworkType.ValueString() == TypeFlat && !config.SegmentationID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("segmentation_id"), "Segmentation ID on a flat network",
			"A flat network carries untagged traffic and has no segmentation ID: remove segmentation_id, or set "+
				"network_type = \"vlan\".")
	}

	seen := map[string]int{}

	for i, s := range subnetsOfModel(ctx, config.Subnets, &resp.Diagnostics) {
		at := path.Root("subnets").AtListIndex(i)

		if n := s.Name; !n.IsNull() && !n.IsUnknown() {
			if j, dup := seen[n.ValueString()]; dup {
				resp.Diagnostics.AddAttributeError(at.AtName("name"), "Duplicate subnet name", fmt.Sprintf(
					"subnets[%d] is also called %q: subnets are found again by name, which must be unique in the network.", j, n.ValueString()))
			}

			seen[n.ValueString()] = i
		}

		checkSubnet(ctx, at, s, &resp.Diagnostics)
	}
}

// checkSubnet checks the gateway and pools of one configured subnet, when they are known.
func checkSubnet(ctx context.Context, at path.Path, s subnetModel, diags *diag.Diagnostics) {
	if s.CIDR.IsNull() || s.CIDR.IsUnknown() {
		return
	}

	prefix, err := netip.ParsePrefix(s.CIDR.ValueString())
	if err != nil || prefix.Masked() != prefix {
		return // the attribute's validator reports it
	}

	gateway := DefaultGateway(prefix)

	if g := s.GatewayIP; !g.IsNull() {
		if g.IsUnknown() {
			gateway = netip.Addr{}
		} else if a, err := netip.ParseAddr(g.ValueString()); err == nil {
			gateway = a
			if err := CheckGateway(prefix, a); err != nil {
				diags.AddAttributeError(at.AtName("gateway_ip"), "Gateway outside the subnet", err.Error())
			}
		}
	}

	var ranges [][2]netip.Addr

	for _, p := range adapter.Elements[poolModel](ctx, s.AllocationPools, diags) {
		start, errS := netip.ParseAddr(p.Start.ValueString())
		end, errE := netip.ParseAddr(p.End.ValueString())

		if errS != nil || errE != nil {
			continue // unknown, or the attribute's validator reports it
		}

		if err := CheckPool(prefix, gateway, start, end); err != nil {
			diags.AddAttributeError(at.AtName("allocation_pools"), "Invalid allocation pool", err.Error())
			continue
		}

		for _, o := range ranges {
			if Overlap(start, end, o[0], o[1]) {
				diags.AddAttributeError(at.AtName("allocation_pools"), "Overlapping allocation pools",
					fmt.Sprintf("allocation pools %s-%s and %s-%s overlap", start, end, o[0], o[1]))
			}
		}

		ranges = append(ranges, [2]netip.Addr{start, end})
	}
}

// modifyPlan is the resource's part of ModifyPlan, after the kit's region rule.
func modifyPlan(ctx context.Context, plan, config, state *model, diags *diag.Diagnostics) {
	if plan == nil {
		return // destroy
	}

	// A replacement is a new network: what Neutron chose for the old one does not carry over.
	if state != nil && (!plan.NetworkType.Equal(state.NetworkType) || !plan.PhysicalNetwork.Equal(state.PhysicalNetwork)) {
		if config.SegmentationID.IsNull() {
			plan.SegmentationID = types.Int64Unknown()
		}

		if config.MTU.IsNull() {
			plan.MTU = types.Int64Unknown()
		}
	}

	if plan.NetworkType.ValueString() == TypeFlat {
		plan.SegmentationID = types.Int64Null()
	}

	var prior []subnetModel
	if state != nil {
		prior = subnetsOfModel(ctx, state.Subnets, diags)
	}

	planSubnets(ctx, plan, *config, prior, diags)
}

// planSubnets fills in the computed attributes of the planned subnets from the configuration
// and the prior state, matched by name (never by position, as Terraform pairs list elements):
// the ID and the unset gateway and pools of a subnet that keeps its name and CIDR are the
// state's, a new subnet's are Neutron's defaults.
func planSubnets(ctx context.Context, plan *model, config model, prior []subnetModel, diags *diag.Diagnostics) {
	if plan.Subnets.IsNull() || plan.Subnets.IsUnknown() {
		return
	}

	planned := subnetsOfModel(ctx, plan.Subnets, diags)
	configured := subnetsOfModel(ctx, config.Subnets, diags)

	if diags.HasError() || len(planned) != len(configured) {
		return
	}

	elems := make([]attr.Value, 0, len(planned))

	for i, c := range configured {
		s := planned[i]
		s.ID, s.GatewayIP, s.AllocationPools = types.StringUnknown(), c.GatewayIP, c.AllocationPools

		var was *subnetModel

		for j := range prior {
			if prior[j].Name.Equal(c.Name) && prior[j].CIDR.Equal(c.CIDR) {
				was = &prior[j]
			}
		}

		if was != nil {
			s.ID = was.ID
		}

		planAddresses(&s, c, was)

		v, d := types.ObjectValueFrom(ctx, subnetType.AttrTypes, s)
		diags.Append(d...)

		elems = append(elems, v)
	}

	list, d := types.ListValue(subnetType, elems)
	diags.Append(d...)

	if !diags.HasError() {
		plan.Subnets = list
	}
}

// planAddresses plans the unset gateway and pools of subnet s (configured as c, in the state
// as was, nil when it is new or replaced).
func planAddresses(s *subnetModel, c subnetModel, was *subnetModel) {
	prefix, err := netip.ParsePrefix(c.CIDR.ValueString())
	if c.CIDR.IsUnknown() || err != nil {
		s.GatewayIP = unknownIfNull(c.GatewayIP)
		s.AllocationPools = unknownSetIfNull(c.AllocationPools)

		return
	}

	if c.GatewayIP.IsNull() {
		s.GatewayIP = types.StringValue(DefaultGateway(prefix).String())
		if was != nil && !was.GatewayIP.IsNull() {
			s.GatewayIP = was.GatewayIP
		}
	}

	if !c.AllocationPools.IsNull() {
		return
	}

	switch gateway, err := netip.ParseAddr(s.GatewayIP.ValueString()); {
	case was != nil && was.GatewayIP.Equal(s.GatewayIP) && !was.AllocationPools.IsNull():
		s.AllocationPools = was.AllocationPools
	case err == nil && prefix.Addr().Is4():
		s.AllocationPools = poolsValue(DefaultPools(prefix, gateway))
	default:
		s.AllocationPools = types.SetUnknown(poolType)
	}
}

func unknownIfNull(v types.String) types.String {
	if v.IsNull() {
		return types.StringUnknown()
	}

	return v
}

func unknownSetIfNull(v types.Set) types.Set {
	if v.IsNull() {
		return types.SetUnknown(poolType)
	}

	return v
}
