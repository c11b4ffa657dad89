package loadbalancer

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file maps the schema's models onto the core's Spec (expand) and the core's Topology
// back onto the models (flatten), and holds the models.

var objectAsOptions = basetypes.ObjectAsOptions{}

// expandSpec turns the plan into the core's Spec.
func expandSpec(ctx context.Context, m loadBalancerModel) (Spec, diag.Diagnostics) {
	spec := Spec{
		Name:       m.Name.ValueString(),
		NetworkID:  m.NetworkID.ValueString(),
		VIPAddress: m.VIPAddress.ValueString(),
		PublicIP:   m.PublicIP.ValueBool(),
	}

	if m.VIPAddress.IsUnknown() {
		spec.VIPAddress = ""
	}

	ls, diags := listenerModels(ctx, m.Listeners)

	for _, l := range ls {
		ln := ListenerSpec{
			Name:            l.Name.ValueString(),
			Protocol:        l.Protocol.ValueString(),
			Port:            int(l.Port.ValueInt64()),
			ProxyProtocolV2: l.ProxyProtocolV2.ValueBool(),
		}

		if !l.IdleTimeoutSeconds.IsNull() && !l.IdleTimeoutSeconds.IsUnknown() && ln.Protocol == ProtocolTCP {
			ln.IdleTimeout = new(int(l.IdleTimeoutSeconds.ValueInt64()))
		}

		diags.Append(l.AllowedCIDRs.ElementsAs(ctx, &ln.AllowedCIDRs, false)...)

		ln.Members = memberSpecs(ctx, l.Members, &diags)
		ln.MembersElsewhere = l.Members.IsNull()

		if !l.HealthMonitor.IsNull() && !l.HealthMonitor.IsUnknown() {
			var hm healthMonitorModel

			diags.Append(l.HealthMonitor.As(ctx, &hm, objectAsOptions)...)

			ln.Monitor = &MonitorSpec{
				Interval:           int(hm.IntervalSeconds.ValueInt64()),
				Timeout:            int(hm.TimeoutSeconds.ValueInt64()),
				HealthyThreshold:   int(hm.HealthyThreshold.ValueInt64()),
				UnhealthyThreshold: int(hm.UnhealthyThreshold.ValueInt64()),
			}
		}

		spec.Listeners = append(spec.Listeners, ln)
	}

	return spec, diags
}

// listenerModels decodes a listeners list; nil when it is null or unknown.
func listenerModels(ctx context.Context, v types.List) ([]listenerModel, diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}

	var out []listenerModel

	diags := v.ElementsAs(ctx, &out, false)

	return out, diags
}

// applied is the state after Create or Update: the configuration from plan, everything
// else from what Octavia and Neutron report (top). Without top (nothing could be read),
// computed values are null.
func applied(ctx context.Context, plan loadBalancerModel, id string, top *Topology, diags *diag.Diagnostics) loadBalancerModel {
	if top == nil {
		s := plan
		s.ID = types.StringValue(id)
		s.VIPAddress = adapter.KnownOrNull(s.VIPAddress)
		s.VIPPortID = types.StringNull()
		s.PublicIPAddress = types.StringNull()
		s.ProvisioningStatus = types.StringNull()
		s.OperatingStatus = types.StringNull()

		ls, d := listenerModels(ctx, plan.Listeners)
		diags.Append(d...)

		for i := range ls {
			ls[i].ListenerID, ls[i].PoolID, ls[i].MonitorID = types.StringNull(), types.StringNull(), types.StringNull()

			if ls[i].IdleTimeoutSeconds.IsUnknown() {
				ls[i].IdleTimeoutSeconds = types.Int64Null()
			}
		}

		s.Listeners = listenerList(ctx, plan.Listeners, ls, diags)

		return s
	}

	return observed(ctx, plan, top, diags)
}

// observed is prior (the state, or the plan after an apply) refreshed from top: every
// attribute as Octavia and Neutron report it, so that drift shows. Listeners keep prior's
// order; listeners found in Octavia that prior lacks follow, by name.
func observed(ctx context.Context, prior loadBalancerModel, top *Topology, diags *diag.Diagnostics) loadBalancerModel {
	s := prior

	name, err := NameOf(top.Name)
	if err != nil {
		diags.AddError("Unexpected load balancer name", err.Error())
		return s
	}

	s.ID = types.StringValue(top.ID)
	s.Name = types.StringValue(name)
	s.NetworkID = types.StringValue(top.VIPNetworkID)
	s.VIPAddress = types.StringValue(top.VIPAddress)
	s.VIPPortID = types.StringValue(top.VIPPortID)
	s.ProvisioningStatus = types.StringValue(top.ProvisioningStatus)
	s.OperatingStatus = types.StringValue(top.OperatingStatus)
	s.PublicIP = types.BoolValue(top.FloatingIP != nil)
	s.PublicIPAddress = types.StringNull()

	if top.FloatingIP != nil {
		s.PublicIPAddress = types.StringValue(top.FloatingIP.Address)
	}

	priorListeners, d := listenerModels(ctx, prior.Listeners)
	diags.Append(d...)

	var out []listenerModel

	seen := map[string]bool{}

	for _, p := range priorListeners {
		o, ok := top.Listener(p.Name.ValueString())
		if !ok || o.ListenerID == "" {
			continue // gone: the plan shows it again
		}

		seen[o.Name] = true
		out = append(out, flattenListener(ctx, name, o, &p, diags))
	}

	for _, o := range top.Listeners {
		if o.ListenerID == "" || seen[o.Name] {
			continue
		}

		out = append(out, flattenListener(ctx, name, o, nil, diags))
	}

	s.Listeners = listenerList(ctx, prior.Listeners, out, diags)

	return s
}

// listenerList is ls as a list value; an empty result keeps prior's null.
func listenerList(ctx context.Context, prior types.List, ls []listenerModel, diags *diag.Diagnostics) types.List {
	if len(ls) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.ListNull(listenerType)
	}

	if ls == nil {
		ls = []listenerModel{}
	}

	list, d := types.ListValueFrom(ctx, listenerType, ls)
	diags.Append(d...)

	return list
}

// flattenListener is one observed listener; prior (may be nil) decides how "none" is
// written (null or empty) so that an unchanged configuration shows no difference.
func flattenListener(ctx context.Context, name string, o ObservedListener, prior *listenerModel, diags *diag.Diagnostics) listenerModel {
	l := listenerModel{
		Name:            types.StringValue(o.Name),
		Protocol:        types.StringValue(o.Protocol),
		Port:            types.Int64Value(int64(o.Port)),
		ListenerID:      types.StringValue(o.ListenerID),
		PoolID:          types.StringNull(),
		MonitorID:       types.StringNull(),
		HealthMonitor:   types.ObjectNull(monitorAttrTypes),
		ProxyProtocolV2: types.BoolValue(o.ProxyProtocolV2()),
	}

	if prior != nil && o.PoolID == "" {
		l.ProxyProtocolV2 = prior.ProxyProtocolV2 // unknowable without the pool: keep it
	}

	// A pool that does not balance round robin (changed out of band) shows as missing too, so
	// that the next apply sets it back.
	if o.PoolLinked() && o.PoolRoundRobin() {
		l.PoolID = types.StringValue(o.PoolID)
	}

	priorCIDRs, priorMembers := types.SetNull(types.StringType), types.ListNull(memberType)

	var priorTimeout *int

	if prior != nil {
		priorCIDRs, priorMembers = prior.AllowedCIDRs, prior.Members

		if !prior.IdleTimeoutSeconds.IsNull() && !prior.IdleTimeoutSeconds.IsUnknown() {
			priorTimeout = new(int(prior.IdleTimeoutSeconds.ValueInt64()))
		}
	}

	l.AllowedCIDRs = adapter.StringSet(o.AllowedCIDRs, priorCIDRs)

	l.IdleTimeoutSeconds = types.Int64Null()
	if o.Protocol != ProtocolUDP {
		l.IdleTimeoutSeconds = types.Int64Value(int64(o.IdleTimeout(priorTimeout)))
	}

	// Members left unset are someone else's (a unikorn_loadbalancer_members'): they stay null,
	// whatever the pool holds; so do those of a pool tagged so, when nothing was recorded (an
	// import).
	l.Members = types.ListNull(memberType)
	if elsewhere := priorMembers.IsNull() && (prior != nil || o.MembersExternal || o.held()); !elsewhere {
		l.Members = memberList(ctx, o.Members, priorMembers, diags)
	}

	if o.Monitor != nil {
		v, d := types.ObjectValue(monitorAttrTypes, map[string]attr.Value{
			"healthy_threshold":   types.Int64Value(int64(o.Monitor.HealthyThreshold)),
			"interval_seconds":    types.Int64Value(int64(o.Monitor.Interval)),
			"timeout_seconds":     types.Int64Value(int64(o.Monitor.Timeout)),
			"unhealthy_threshold": types.Int64Value(int64(o.Monitor.UnhealthyThreshold)),
		})
		diags.Append(d...)
		l.HealthMonitor = v

		// A monitor that is not what the provider makes (another type or name) shows as
		// missing, so that the next apply replaces or renames it.
		want := ListenerSpec{Protocol: o.Protocol}.MonitorType()
		if o.MonitorType == want && o.MonitorName == naming.Monitor(name, o.Name) {
			l.MonitorID = types.StringValue(o.MonitorID)
		}
	}

	return l
}

// memberSpecs decodes a members list into the core's members, in the configuration's order.
func memberSpecs(ctx context.Context, v types.List, diags *diag.Diagnostics) []Member {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}

	var ms []memberModel

	diags.Append(v.ElementsAs(ctx, &ms, false)...)

	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		weight := DefaultMemberWeight
		if !m.Weight.IsNull() && !m.Weight.IsUnknown() {
			weight = int(m.Weight.ValueInt64())
		}

		out = append(out, Member{Address: m.Address.ValueString(), Port: int(m.Port.ValueInt64()), Weight: weight})
	}

	return out
}

// memberList is the members Octavia has as a list: those prior (the state or the plan) lists
// in prior's order, then the others (sorted), so that the order the configuration chose
// survives a refresh. None keeps prior's form (null or empty).
func memberList(ctx context.Context, observed []Member, prior types.List, diags *diag.Diagnostics) types.List {
	left := slices.Clone(observed)

	var ordered []Member

	for _, m := range memberSpecs(ctx, prior, diags) {
		if i := slices.IndexFunc(left, func(o Member) bool { return memberKey(o) == memberKey(m) }); i >= 0 {
			ordered = append(ordered, left[i]) // as observed: a weight changed out of band shows
			left = slices.Delete(left, i, i+1)
		}
	}

	ordered = append(ordered, left...)

	elems := make([]attr.Value, 0, len(ordered))
	for _, m := range ordered {
		v, d := types.ObjectValue(memberAttrTypes, map[string]attr.Value{
			"address": types.StringValue(m.Address),
			"port":    types.Int64Value(int64(m.Port)),
			"weight":  types.Int64Value(int64(m.Weight)),
		})
		diags.Append(d...)
		elems = append(elems, v)
	}

	if len(elems) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.ListNull(memberType)
	}

	v, d := types.ListValue(memberType, elems)
	diags.Append(d...)

	return v
}

// loadBalancerModel is the resource's state.
type loadBalancerModel struct {
	ID                 types.String   `tfsdk:"id"`
	IdentityID         types.String   `tfsdk:"identity_id"`
	Listeners          types.List     `tfsdk:"listeners"`
	Name               types.String   `tfsdk:"name"`
	NetworkID          types.String   `tfsdk:"network_id"`
	OperatingStatus    types.String   `tfsdk:"operating_status"`
	ProvisioningStatus types.String   `tfsdk:"provisioning_status"`
	PublicIP           types.Bool     `tfsdk:"public_ip"`
	PublicIPAddress    types.String   `tfsdk:"public_ip_address"`
	Region             types.String   `tfsdk:"region"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	VIPAddress         types.String   `tfsdk:"vip_address"`
	VIPPortID          types.String   `tfsdk:"vip_port_id"`
}

// listenerModel is one element of listeners.
type listenerModel struct {
	AllowedCIDRs       types.Set    `tfsdk:"allowed_cidrs"`
	HealthMonitor      types.Object `tfsdk:"health_monitor"`
	IdleTimeoutSeconds types.Int64  `tfsdk:"idle_timeout_seconds"`
	ListenerID         types.String `tfsdk:"listener_id"`
	Members            types.List   `tfsdk:"members"`
	MonitorID          types.String `tfsdk:"monitor_id"`
	Name               types.String `tfsdk:"name"`
	PoolID             types.String `tfsdk:"pool_id"`
	Port               types.Int64  `tfsdk:"port"`
	Protocol           types.String `tfsdk:"protocol"`
	ProxyProtocolV2    types.Bool   `tfsdk:"proxy_protocol_v2"`
}

// memberModel is one element of members.
type memberModel struct {
	Address types.String `tfsdk:"address"`
	Port    types.Int64  `tfsdk:"port"`
	Weight  types.Int64  `tfsdk:"weight"`
}

// healthMonitorModel is health_monitor.
type healthMonitorModel struct {
	HealthyThreshold   types.Int64 `tfsdk:"healthy_threshold"`
	IntervalSeconds    types.Int64 `tfsdk:"interval_seconds"`
	TimeoutSeconds     types.Int64 `tfsdk:"timeout_seconds"`
	UnhealthyThreshold types.Int64 `tfsdk:"unhealthy_threshold"`
}
