package network

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure      = (*networkResource)(nil)
	_ resource.ResourceWithImportState    = (*networkResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*networkResource)(nil)
	_ resource.ResourceWithValidateConfig = (*networkResource)(nil)
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
	NetworkConfig() *Config
}

// Default timeouts of the operations.
const (
	defaultCreateTimeout = 10 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 10 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

// NewNetworkResource is the constructor the provider lists.
func NewNetworkResource() resource.Resource {
	return &networkResource{}
}

type networkResource struct {
	meta meta
}

func (r *networkResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_network"
}

// rangeAttrTypes are the attributes of an address range object.
var rangeAttrTypes = map[string]attr.Type{"end": types.StringType, "start": types.StringType}

func (r *networkResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A tenant network in an identity's project: a Neutron network, an IPv4 subnet, a router to an " +
			"external network and the router's interface on the subnet, all named `network-<name>`. When the provider " +
			"configures `provider_network`, the network is a VLAN provider network whose VLAN ID is chosen from what " +
			"Neutron reports in use.\n\n" +
			"Every part is found again by its exact name in the identity's project: a create adopts what an interrupted " +
			"apply left behind (never a twin), two objects with the name are an error that names both, and a part " +
			"deleted out of band is restored by the next apply. Destroying deletes the router interface, the router, the " +
			"subnet and the network, in that order, and fails naming any port still on them.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"allocation_pool": schema.SingleNestedAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The addresses DHCP hands out. Default, as Unikorn does: the upper half of `cidr` " +
					"without the broadcast address, which keeps the lower half (after the gateway) for static addresses " +
					"(`static_range`). A given pool must lie inside `cidr`, after the gateway and before the broadcast " +
					"address. Updated in place.",
				Attributes: map[string]schema.Attribute{
					"end": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Last address of the pool.",
						Validators:          []validator.String{addressValidator{v4: true}},
					},
					"start": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "First address of the pool.",
						Validators:          []validator.String{addressValidator{v4: true}},
					},
				},
			},
			"cidr": schema.StringAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("IPv4 prefix of the subnet, in canonical form, /%d at most, e.g. `10.0.0.0/24`. "+
					"The gateway is its first address. Changing it replaces the network.", MaxPrefixLength),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{cidrValidator{}},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "Description of the network, subnet and router. Updated in place.",
			},
			"dns_nameservers": schema.ListAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "DNS servers DHCP hands out, in order. Updated in place.",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(addressValidator{}),
				},
			},
			"external_network_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "External network of the router's gateway. Default: the first external network that the " +
					"provider's `external_networks` selector admits (see the `unikorn_external_networks` data source), " +
					"chosen once at create. Updated in place.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"gateway_ip": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The subnet's gateway: the first address of `cidr`, on the router.",
			},
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Neutron network.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"identity_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the `unikorn_identity` (its Keystone project) the network belongs to. Changing it " +
					"replaces the network.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the network; the Neutron network, subnet and router are called `network-<name>`. " +
					"Changing it replaces the network.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{nameValidator{kind: naming.KindNetwork}},
			},
			"region": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Region of the network. Default: the provider's `region`. Changing it replaces the network.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"router_id": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "ID of the router `network-<name>` attached to the subnet. Null when the router or its " +
					"interface has gone missing, which the next apply restores.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"routes": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Host routes DHCP hands out: destination CIDR to next hop address. Updated in place.",
				Validators: []validator.Map{
					mapvalidator.SizeAtLeast(1),
					mapvalidator.KeysAre(prefixValidator{v4: true}),
					mapvalidator.ValueStringsAre(addressValidator{v4: true}),
				},
			},
			"static_range": schema.SingleNestedAttribute{
				Computed: true,
				MarkdownDescription: "The addresses between the gateway and the allocation pool, which DHCP never hands out: " +
					"free for static addresses (virtual IPs, storage). Null when the pool starts right after the gateway.",
				Attributes: map[string]schema.Attribute{
					"end": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "Last static address.",
					},
					"start": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "First static address.",
					},
				},
			},
			"subnet_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the subnet `network-<name>`. Null when it has gone missing, which the next apply restores.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true}),
			"vlan_id": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "Segmentation ID of a VLAN provider network (see the provider's `provider_network`); null " +
					"for other networks.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *networkResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		r.meta = m
	}
}

// service opens the core in the network's identity project and region.
func (r *networkResource) service(ctx context.Context, m networkModel) (*Service, error) {
	return NewService(ctx, r.meta.Cloud(), r.meta.NetworkConfig(), m.IdentityID.ValueString(), m.Region.ValueString())
}

func (r *networkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan networkModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandNetworkSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "network", naming.Network(spec.Name))
	summary := "Error creating network"

	svc, err := r.service(ctx, plan)
	if err != nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("%s: %s", naming.Network(spec.Name), err))
		return
	}

	plan.Region = types.StringValue(svc.Region())
	before := r.meta.Cloud().RequestCount()

	out, err := svc.EnsureNetwork(ctx, spec, NetworkRef{})

	tflog.Debug(ctx, "Created the network", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil || out.ID == "" {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("%s in project %s, region %s: %s",
			naming.Network(spec.Name), svc.ProjectID(), svc.Region(), err))

		return
	}

	// The network exists: record it whatever happened next (a failed create leaves a
	// tainted resource, never an untracked network).
	state := plan
	flattenNetwork(&state, out)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)

	if err != nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.Network(spec.Name), out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *networkResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state networkModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Read(ctx, defaultReadTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := state.Name.ValueString()
	ctx = tflog.SetField(ctx, "network", naming.Network(name))

	svc, err := r.service(ctx, state)
	if err != nil {
		resp.Diagnostics.AddError("Error reading network", fmt.Sprintf("%s: %s", naming.Network(name), err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	out, err := svc.ObserveNetwork(ctx, name, stateRef(state))
	if err != nil {
		resp.Diagnostics.AddError("Error reading network", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.Network(name), state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))

		return
	}

	tflog.Debug(ctx, "Read the network", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		tflog.Warn(ctx, "The network is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	if !out.Complete() {
		tflog.Warn(ctx, "Parts of the network are missing; the next apply restores them", map[string]any{
			"subnet": out.Subnet != nil, "router": out.Router != nil, "interface": out.InterfacePortID != "",
		})
	}

	state.Region = types.StringValue(svc.Region())
	flattenNetwork(&state, out)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *networkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state networkModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandNetworkSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "network", naming.Network(spec.Name))

	svc, err := r.service(ctx, plan)
	if err != nil {
		resp.Diagnostics.AddError("Error updating network", fmt.Sprintf("%s: %s", naming.Network(spec.Name), err))
		return
	}

	out, err := svc.EnsureNetwork(ctx, spec, stateRef(state))
	if out == nil || out.ID == "" {
		resp.Diagnostics.AddError("Error updating network", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.Network(spec.Name), state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))

		return
	}

	newState := plan
	flattenNetwork(&newState, out)
	resp.Diagnostics.Append(resp.State.Set(ctx, &newState)...)

	if err != nil {
		resp.Diagnostics.AddError("Error updating network", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.Network(spec.Name), out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *networkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state networkModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := state.Name.ValueString()
	ctx = tflog.SetField(ctx, "network", naming.Network(name))

	svc, err := r.service(ctx, state)
	if err != nil {
		resp.Diagnostics.AddError("Error deleting network", fmt.Sprintf("%s: %s", naming.Network(name), err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	if err := svc.DeleteNetwork(ctx, name, stateRef(state)); err != nil {
		resp.Diagnostics.AddError("Error deleting network", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.Network(name), state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))

		return
	}

	tflog.Debug(ctx, "Deleted the network", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})
}

func (r *networkResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	loc, region, err := importLocate(ctx, r.meta, req.ID, LocateNetwork)
	if err != nil {
		resp.Diagnostics.AddError("Error importing network", err.Error())
		return
	}

	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), loc.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("identity_id"), loc.ProjectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), loc.Name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
}

// importLocate parses an import ID of the form REGION/ID, REGION/name, ID or name and finds
// the object with locate.
func importLocate(ctx context.Context, m meta, importID string,
	locate func(context.Context, *cloud.Client, string, string) (Located, error),
) (Located, string, error) {
	if m == nil {
		return Located{}, "", fmt.Errorf("the provider is not configured")
	}

	region, idOrName, err := adapter.SplitImportID(importID)
	if err != nil {
		return Located{}, "", fmt.Errorf("%w (or REGION/name)", err)
	}

	region, err = m.Cloud().ResolveRegion(region)
	if err != nil {
		return Located{}, "", err
	}

	loc, err := locate(ctx, m.Cloud(), region, idOrName)

	return loc, region, err
}

func (r *networkResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config networkModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() || config.CIDR.IsUnknown() || config.CIDR.IsNull() {
		return
	}

	prefix, err := ParseCIDR(config.CIDR.ValueString())
	if err != nil {
		return // the attribute's validator reports it
	}

	pool, known, diags := expandRange(ctx, config.AllocationPool)
	resp.Diagnostics.Append(diags...)

	if !known || pool == nil {
		return
	}

	if _, err := PlanAddressing(prefix, pool); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("allocation_pool"), "Invalid allocation pool", err.Error())
	}
}

func (r *networkResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}

	var plan, config networkModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)

	if resp.Diagnostics.HasError() {
		return
	}

	var state *networkModel

	if !req.State.Raw.IsNull() {
		state = &networkModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)

		if resp.Diagnostics.HasError() {
			return
		}
	}

	if r.meta != nil {
		plan.Region = adapter.PlanRegion(r.meta.Cloud(), plan.Region, config.Region, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	// The addressing follows from cidr and allocation_pool, so the plan can show it.
	r.planAddressing(ctx, &plan, config, &resp.Diagnostics)

	// A part that has gone missing makes the next apply restore it.
	if state != nil && !state.ID.IsNull() && (state.SubnetID.IsNull() || state.RouterID.IsNull()) {
		plan.SubnetID = types.StringUnknown()
		plan.RouterID = types.StringUnknown()
	}

	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planAddressing fills gateway_ip, allocation_pool (when not configured) and static_range
// from cidr and the configured pool, when they are known.
func (r *networkResource) planAddressing(ctx context.Context, plan *networkModel, config networkModel, diags *diag.Diagnostics) {
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

	a, err := PlanAddressing(prefix, pool)
	if err != nil {
		return
	}

	plan.GatewayIP = types.StringValue(a.Gateway.String())
	plan.AllocationPool = rangeObject(&a.Pool)
	plan.StaticRange = rangeObject(a.Static)
}

// stateRef is the IDs state knows.
func stateRef(m networkModel) NetworkRef {
	return NetworkRef{
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

// expandNetworkSpec turns the plan into the core's spec.
func expandNetworkSpec(ctx context.Context, plan networkModel) (NetworkSpec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := NetworkSpec{
		Name:              plan.Name.ValueString(),
		Description:       plan.Description.ValueString(),
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

	if n.ProjectID != "" {
		m.IdentityID = types.StringValue(n.ProjectID)
	}

	m.VLANID = types.Int64Null()
	if n.VLANID != nil {
		m.VLANID = types.Int64Value(int64(*n.VLANID))
	}

	m.SubnetID = types.StringNull()

	if s := n.Subnet; s != nil {
		m.SubnetID = types.StringValue(s.ID)
		m.CIDR = types.StringValue(s.CIDR)
		m.GatewayIP = stringOrNull(s.GatewayIP)

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

		m.DNSNameservers = listOrNull(s.DNSNameservers, m.DNSNameservers)
		m.Routes = routesOrNull(s.Routes, m.Routes)
	}

	m.RouterID = types.StringNull()

	if rt := n.Router; rt != nil {
		m.ExternalNetworkID = stringOrNull(rt.ExternalNetworkID)

		if n.InterfacePortID != "" {
			m.RouterID = types.StringValue(rt.ID)
		}
	}

	if m.ExternalNetworkID.IsUnknown() {
		m.ExternalNetworkID = types.StringNull()
	}

	for _, v := range []*types.String{&m.GatewayIP, &m.CIDR} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}

	if m.AllocationPool.IsUnknown() {
		m.AllocationPool = types.ObjectNull(rangeAttrTypes)
	}

	if m.StaticRange.IsUnknown() {
		m.StaticRange = types.ObjectNull(rangeAttrTypes)
	}
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}

	return types.StringValue(s)
}

// listOrNull is the list of values; an empty list stays null when prior was null.
func listOrNull(values []string, prior types.List) types.List {
	if len(values) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.ListNull(types.StringType)
	}

	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}

	return types.ListValueMust(types.StringType, elems)
}

// routesOrNull is the map of routes; an empty map stays null when prior was null.
func routesOrNull(routes []Route, prior types.Map) types.Map {
	if len(routes) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.MapNull(types.StringType)
	}

	elems := make(map[string]attr.Value, len(routes))
	for _, r := range routes {
		elems[r.Destination] = types.StringValue(r.NextHop)
	}

	return types.MapValueMust(types.StringType, elems)
}

// networkModel is the resource's data.
type networkModel struct {
	AllocationPool    types.Object   `tfsdk:"allocation_pool"`
	CIDR              types.String   `tfsdk:"cidr"`
	Description       types.String   `tfsdk:"description"`
	DNSNameservers    types.List     `tfsdk:"dns_nameservers"`
	ExternalNetworkID types.String   `tfsdk:"external_network_id"`
	GatewayIP         types.String   `tfsdk:"gateway_ip"`
	ID                types.String   `tfsdk:"id"`
	IdentityID        types.String   `tfsdk:"identity_id"`
	Name              types.String   `tfsdk:"name"`
	Region            types.String   `tfsdk:"region"`
	RouterID          types.String   `tfsdk:"router_id"`
	Routes            types.Map      `tfsdk:"routes"`
	StaticRange       types.Object   `tfsdk:"static_range"`
	SubnetID          types.String   `tfsdk:"subnet_id"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
	VLANID            types.Int64    `tfsdk:"vlan_id"`
}

// rangeModel is an address range object.
type rangeModel struct {
	End   types.String `tfsdk:"end"`
	Start types.String `tfsdk:"start"`
}
