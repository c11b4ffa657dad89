package network

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure      = (*networkResource)(nil)
	_ resource.ResourceWithImportState    = (*networkResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*networkResource)(nil)
	_ resource.ResourceWithValidateConfig = (*networkResource)(nil)
)

// NewNetworkResource is the constructor the provider lists.
func NewNetworkResource() resource.Resource {
	return &networkResource{tenantResource: newTenantResource[networkModel, Spec, Network, *networkModel](
		adapter.Kind{TypeName: "network", Noun: "network"},
		tenantKind[networkModel, Spec, Network]{
			cloudName: naming.Network,
			expand: func(ctx context.Context, plan, config networkModel, diags *diag.Diagnostics) Spec {
				spec, d := expandNetworkSpec(ctx, plan, config)
				diags.Append(d...)

				return spec
			},
			ensure: func(ctx context.Context, svc *Service, spec Spec, prior *networkModel) (*Network, error) {
				known := Ref{}
				if prior != nil {
					known = stateRef(*prior)
				}

				return svc.EnsureNetwork(ctx, spec, known)
			},
			observe: observeNetwork,
			remove: func(ctx context.Context, svc *Service, m networkModel) error {
				return svc.DeleteNetwork(ctx, m.Name.ValueString(), stateRef(m))
			},
			flatten: func(m *networkModel, n *Network, _ bool) { flattenNetwork(m, n) },
			idOf:    func(o *Network) string { return o.ID },
			refound: func(o *Network) []Refound { return o.Refound },
			locate:  LocateNetwork,
		},
	)}
}

type networkResource struct {
	tenantResource[networkModel, Spec, Network, *networkModel]
}

// observeNetwork reads the network of the state, and says which parts are missing.
func observeNetwork(ctx context.Context, svc *Service, m networkModel) (*Network, error) {
	out, err := svc.ObserveNetwork(ctx, m.Name.ValueString(), stateRef(m))
	if err == nil && out != nil && !out.Complete() {
		tflog.Warn(ctx, "Parts of the network are missing; the next apply restores them", map[string]any{
			"subnet": out.Subnet != nil, "router": out.Router != nil, "interface": out.InterfacePortID != "",
		})
	}

	return out, err
}

// ValidateConfig checks what needs more than one attribute: the allocation pool against the
// cidr, and that every route's next hop lies inside the cidr.
func (r *networkResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[networkModel](ctx, req.Config, &resp.Diagnostics)
	if !ok || config.CIDR.IsUnknown() || config.CIDR.IsNull() {
		return
	}

	prefix, err := ParseCIDR(config.CIDR.ValueString())
	if err != nil {
		return // the attribute's validator reports it
	}

	checkRoutes(prefix, config.Routes, &resp.Diagnostics)

	pool, known, diags := expandRange(ctx, config.AllocationPool)
	resp.Diagnostics.Append(diags...)

	if !known || pool == nil {
		return
	}

	if _, err := PlanAddressing(prefix, pool); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("allocation_pool"), "Invalid allocation pool", err.Error())
	}
}

// checkRoutes reports, at routes[<destination>], every known route whose next hop is an IPv4
// address outside prefix: DHCP would hand out a route through a gateway the network cannot
// reach. Next hops that are not IPv4 addresses are the attribute validator's to report.
func checkRoutes(prefix netip.Prefix, routes types.Map, diags *diag.Diagnostics) {
	if routes.IsNull() || routes.IsUnknown() {
		return
	}

	for dest, v := range routes.Elements() {
		hop, ok := v.(types.String)
		if !ok || hop.IsNull() || hop.IsUnknown() {
			continue
		}

		a, err := netip.ParseAddr(hop.ValueString())
		if err != nil || !a.Is4() || prefix.Contains(a) {
			continue
		}

		diags.AddAttributeError(path.Root("routes").AtMapKey(dest), "Next hop outside the network", fmt.Sprintf(
			"The route to %s goes through %s, which is not inside cidr %s: a host route's next hop must be an address of "+
				"the network.", dest, a, prefix))
	}
}

func (r *networkResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[networkModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	// The addressing follows from cidr and allocation_pool, so the plan can show it.
	planAddressing(ctx, &p.Plan, p.Config, p.State, &resp.Diagnostics)

	// A description the configuration does not set is the network's own: kept as it is.
	var stateDescription *types.String
	if p.State != nil {
		stateDescription = &p.State.Description
	}

	p.Plan.Description = planKept(p.Plan.Description, p.Config.Description, stateDescription)

	// A part that has gone missing makes the next apply restore it.
	if s := p.State; s != nil && !s.ID.IsNull() && (s.SubnetID.IsNull() || s.RouterID.IsNull()) {
		p.Plan.SubnetID = types.StringUnknown()
		p.Plan.RouterID = types.StringUnknown()
	}

	r.planExternalOverlap(ctx, p, &resp.Diagnostics)

	p.Save(ctx, resp)
}

// planExternalOverlap checks at plan time, when cidr, region and the external network are
// known, that cidr does not overlap a subnet of the router's external network: the one
// configured, or on create the default that the provider's selector chooses. What is only
// known at apply is checked there, before anything is created (Service.EnsureNetwork). A plan
// that changes none of them makes nothing to check.
func (r *networkResource) planExternalOverlap(ctx context.Context, p *adapter.Plan[networkModel], diags *diag.Diagnostics) {
	c, plan := r.Cloud(), p.Plan
	if c == nil || diags.HasError() || plan.CIDR.IsUnknown() || plan.CIDR.IsNull() || plan.Region.IsUnknown() ||
		plan.Region.IsNull() {
		return
	}

	prefix, err := ParseCIDR(plan.CIDR.ValueString())
	if err != nil {
		return
	}

	external := plan.ExternalNetworkID
	if external.IsUnknown() && (!p.Creating() || !p.Config.ExternalNetworkID.IsNull()) {
		return // chosen by another resource: checked at apply
	}

	if s := p.State; s != nil && s.CIDR.Equal(plan.CIDR) && s.ExternalNetworkID.Equal(external) && s.Region.Equal(plan.Region) {
		return // nothing of the addressing is to be made: no external network to read (issue 17)
	}

	region := plan.Region.ValueString()

	sc, err := c.Base().Network(region)
	if err == nil {
		err = r.Meta.NetworkConfig().CheckExternalOverlap(ctx, sc, region, prefix, adapter.KnownOrNull(external).ValueString())
	}

	var (
		overlapErr *OverlapError
		noneErr    *NoExternalNetworkError
	)

	switch {
	case err == nil:
	case errors.As(err, &overlapErr):
		diags.AddAttributeError(path.Root("cidr"), "CIDR overlaps the external network", err.Error())
	case errors.As(err, &noneErr):
		diags.AddAttributeError(path.Root("external_network_id"), "No external network", err.Error())
	default:
		diags.AddError("Error reading external networks", fmt.Sprintf("region %s: %s", region, err))
	}
}

// planAddressing fills gateway_ip, allocation_pool (when not configured) and static_range
// from cidr and the configured pool, when they are known. A pool the configuration does not set
// is the default (DefaultPool) for a network to be made (state nil; a replacement is planned as
// one), and the pool the network has for one that exists: a network made by an older release or
// by Unikorn (whose pool depends on its version), or imported, never sees its pool rewritten
// unless the configuration sets one.
func planAddressing(ctx context.Context, plan *networkModel, config networkModel, state *networkModel, diags *diag.Diagnostics) {
	if plan.CIDR.IsUnknown() || plan.CIDR.IsNull() {
		return
	}

	prefix, err := ParseCIDR(plan.CIDR.ValueString())
	if err != nil {
		return
	}

	pool, known, d := expandRange(ctx, config.AllocationPool)
	diags.Append(d...)

	if !known {
		plan.StaticRange = types.ObjectUnknown(rangeAttrTypes)
		return
	}

	if pool == nil && state != nil && state.CIDR.Equal(plan.CIDR) {
		pool = keptPool(ctx, prefix, state.AllocationPool)
	}

	a, err := PlanAddressing(prefix, pool)
	if err != nil {
		return
	}

	plan.GatewayIP = types.StringValue(a.Gateway.String())
	plan.AllocationPool = rangeObject(&a.Pool)
	plan.StaticRange = rangeObject(a.Static)
}

// keptPool is the pool of the state (have) of a network of prefix, when it is one the network
// can keep (PlanAddressing accepts it); nil when there is none (the subnet has several pools, or
// none) or it cannot be kept.
func keptPool(ctx context.Context, prefix netip.Prefix, have types.Object) *AddressRange {
	pool, known, diags := expandRange(ctx, have)
	if !known || pool == nil || diags.HasError() {
		return nil
	}

	if _, err := PlanAddressing(prefix, pool); err != nil {
		return nil
	}

	return pool
}
