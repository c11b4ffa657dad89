package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// ModifyPlan applies the one region rule, refuses changes Octavia cannot make (a listener's
// protocol, port or PROXY protocol) with an error on the attribute, plans the computed values
// of each listener by its name, not its position (IDs of listeners that stay are known, those
// of new ones unknown, and a missing pool or monitor, deleted out of band, shows as a change
// that the apply repairs), and checks the network and the addresses (checkNetwork).
func (r *loadBalancerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[loadBalancerModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	plan, cfg, state := &p.Plan, &p.Config, p.State

	plan.Region = r.PlanRegion(plan.Region, cfg.Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	planListeners, diags := listenerModels(ctx, plan.Listeners)
	resp.Diagnostics.Append(diags...)

	cfgListeners, diags := listenerModels(ctx, cfg.Listeners)
	resp.Diagnostics.Append(diags...)

	var stateListeners []listenerModel

	if state != nil {
		stateListeners, diags = listenerModels(ctx, state.Listeners)
		resp.Diagnostics.Append(diags...)
	}

	if resp.Diagnostics.HasError() {
		return
	}

	if !plan.Listeners.IsUnknown() && !plan.Listeners.IsNull() {
		var changed []string

		for i := range planListeners {
			var configured *listenerModel
			if i < len(cfgListeners) {
				configured = &cfgListeners[i]
			}

			prior := planListener(&resp.Diagnostics, path.Root("listeners").AtListIndex(i), &planListeners[i], configured, stateListeners)
			changed = append(changed, defaultChanges(ctx, planListeners[i], configured, prior)...)
		}

		if resp.Diagnostics.HasError() {
			return
		}

		if len(changed) > 0 {
			resp.Diagnostics.AddWarning("Defaults changed: the apply updates the load balancer in place",
				fmt.Sprintf("Load balancer %s: %s. The configuration leaves these unset, and their defaults are now Unikorn's "+
					"(health monitor thresholds 2 and 2, was %d; a TCP listener's idle timeout 60 seconds, was left as Octavia "+
					"had it). The apply changes them in place, nothing is replaced; to keep the present values, set them in the "+
					"configuration.", plan.Name.ValueString(), strings.Join(changed, "; "), oldDefaultThreshold))
		}

		list, diags := types.ListValueFrom(ctx, listenerType, planListeners)
		resp.Diagnostics.Append(diags...)
		plan.Listeners = list
	}

	priorFlag, prior := types.BoolNull(), types.StringNull()
	if state != nil {
		priorFlag, prior = state.PublicIP, state.PublicIPAddress
	}

	plan.PublicIPAddress = adapter.PlanFlaggedValue(plan.PublicIP, priorFlag, prior)

	r.checkNetwork(ctx, *plan, state, &resp.Diagnostics)

	if !resp.Diagnostics.HasError() {
		p.Save(ctx, resp)
	}
}

// checkNetwork checks, once the identity, region and network are known, that the network is
// the identity's in the region and that the VIP and member addresses are inside its VIP
// subnet: a plan-time error on the attribute at fault instead of a failed apply. The network
// comes from the run's NetworkCache, looked up in the privileged scope (so that a broken trust
// does not stop a plan). A plan that changes none of these is not checked again; one whose
// values are unknown now is checked by the apply, before anything is made.
func (r *loadBalancerResource) checkNetwork(ctx context.Context, plan loadBalancerModel, state *loadBalancerModel, diags *diag.Diagnostics) {
	c := r.Cloud()
	if c == nil || plan.IdentityID.IsUnknown() || plan.NetworkID.IsUnknown() || plan.Region.IsUnknown() {
		return
	}

	spec, d := expandSpec(ctx, plan)
	if d.HasError() {
		return // unknown listeners: the apply checks them
	}

	if state != nil && plan.NetworkID.Equal(state.NetworkID) && plan.IdentityID.Equal(state.IdentityID) {
		if prior, d := expandSpec(ctx, *state); !d.HasError() && sameAddresses(spec, prior) {
			return
		}
	}

	// The admin scope sees whose the network is, to tell "another identity's" from "not found".
	t, err := c.Tenant(ctx, plan.IdentityID.ValueString(), plan.Region.ValueString(), cloud.Admin)
	if err != nil {
		tflog.Warn(ctx, "Cannot check the load balancer's network at plan time; the apply checks it", map[string]any{"error": err.Error()})
		return
	}

	svc, err := NewService(t, false)
	if err != nil {
		tflog.Warn(ctx, "Cannot check the load balancer's network at plan time; the apply checks it", map[string]any{"error": err.Error()})
		return
	}

	vip, err := r.Meta.LoadBalancerNetworkCache().VIPNetwork(ctx, svc, spec.NetworkID)

	var wrong *NetworkError

	switch {
	case errors.As(err, &wrong):
		diags.AddAttributeError(path.Root("network_id"), "Network not of the identity", wrong.Error())
		return
	case err != nil:
		tflog.Warn(ctx, "Cannot check the load balancer's network at plan time; the apply checks it", map[string]any{"error": err.Error()})
		return
	}

	addressErrors(CheckAddresses(spec, vip), diags)
}

// addressErrors reports each address outside the VIP subnet on its attribute.
func addressErrors(outside []*AddressError, diags *diag.Diagnostics) {
	for _, e := range outside {
		at := path.Root("vip_address")
		if e.Listener >= 0 {
			at = path.Root("listeners").AtListIndex(e.Listener).AtName("members").AtListIndex(e.Member).AtName("address")
		}

		diags.AddAttributeError(at, "Address outside the VIP subnet", e.Error())
	}
}

// sameAddresses tells whether a and b have the same VIP address and member addresses.
func sameAddresses(a, b Spec) bool {
	addresses := func(s Spec) []string {
		out := []string{s.VIPAddress}
		for _, l := range s.Listeners {
			for _, m := range l.Members {
				out = append(out, m.Address)
			}
		}

		return cloud.SortedSet(out)
	}

	return slices.Equal(addresses(a), addresses(b))
}

// planListener checks the immutable fields of listener l against the state's listener of
// the same name (which it returns; nil for a new listener) and plans its computed values: an
// idle timeout the configuration leaves unset is the default, 60 seconds, on TCP (Unikorn's).
func planListener(diags *diag.Diagnostics, at path.Path, l *listenerModel, configured *listenerModel, state []listenerModel) *listenerModel {
	var prior *listenerModel

	for i := range state {
		if state[i].Name.Equal(l.Name) && !l.Name.IsUnknown() {
			prior = &state[i]
		}
	}

	if configured != nil && configured.IdleTimeoutSeconds.IsNull() {
		l.IdleTimeoutSeconds = idleTimeoutPlan(l.Protocol)
	}

	if prior == nil {
		l.ListenerID, l.PoolID = types.StringUnknown(), types.StringUnknown()
		l.MonitorID = unknownUnless(l.HealthMonitor.IsNull())

		return nil
	}

	for _, c := range []struct {
		attr       string
		have, want attr.Value
	}{
		{"protocol", prior.Protocol, l.Protocol},
		{"port", prior.Port, l.Port},
		{"proxy_protocol_v2", prior.ProxyProtocolV2, l.ProxyProtocolV2},
	} {
		if c.want.IsUnknown() || c.have.IsNull() || c.have.Equal(c.want) {
			continue
		}

		diags.AddAttributeError(at.AtName(c.attr), "Listener "+c.attr+" cannot change",
			fmt.Sprintf("Listener %s has %s %s; the configuration asks for %s. Octavia cannot change a listener's "+
				"protocol or port, nor its pool's protocol (proxy_protocol_v2). Give the listener a new name: the apply then "+
				"deletes the old listener, pool and monitor and creates new ones.", l.Name, c.attr, c.have, c.want))
	}

	l.ListenerID = knownOrUnknown(prior.ListenerID)
	l.PoolID = knownOrUnknown(prior.PoolID)

	if l.HealthMonitor.IsNull() {
		l.MonitorID = types.StringNull()
	} else {
		l.MonitorID = knownOrUnknown(prior.MonitorID)
	}

	return prior
}

// idleTimeoutPlan is the planned idle timeout of a listener of protocol that does not
// configure one: null for UDP, the default for TCP.
func idleTimeoutPlan(protocol types.String) types.Int64 {
	switch {
	case protocol.IsUnknown():
		return types.Int64Unknown()
	case protocol.ValueString() == ProtocolUDP:
		return types.Int64Null()
	}

	return types.Int64Value(defaultIdleTimeout)
}

// defaultChanges says which values of listener l (planned), left unset in the configuration
// (configured), the plan changes from what the state's listener (prior; nil for a new one)
// holds only because the defaults became Unikorn's: monitor thresholds at the former default
// and a TCP idle timeout that was left as Octavia had it. Empty when there are none.
func defaultChanges(ctx context.Context, l listenerModel, configured, prior *listenerModel) []string {
	if configured == nil || prior == nil {
		return nil
	}

	var out []string

	name := l.Name.ValueString()

	if configured.IdleTimeoutSeconds.IsNull() && known(l.IdleTimeoutSeconds) && known(prior.IdleTimeoutSeconds) &&
		!prior.IdleTimeoutSeconds.Equal(l.IdleTimeoutSeconds) {
		out = append(out, fmt.Sprintf("listener %s: idle_timeout_seconds %d → %d", name, prior.IdleTimeoutSeconds.ValueInt64(),
			l.IdleTimeoutSeconds.ValueInt64()))
	}

	was, wasOK := monitorOf(ctx, prior.HealthMonitor)
	set, setOK := monitorOf(ctx, configured.HealthMonitor)
	now, nowOK := monitorOf(ctx, l.HealthMonitor)

	if !wasOK || !setOK || !nowOK {
		return out
	}

	for _, t := range []struct {
		attr          string
		was, set, now types.Int64
	}{
		{"healthy_threshold", was.HealthyThreshold, set.HealthyThreshold, now.HealthyThreshold},
		{"unhealthy_threshold", was.UnhealthyThreshold, set.UnhealthyThreshold, now.UnhealthyThreshold},
	} {
		if t.set.IsNull() && known(t.now) && known(t.was) && t.was.ValueInt64() == oldDefaultThreshold && !t.was.Equal(t.now) {
			out = append(out, fmt.Sprintf("listener %s: health_monitor.%s %d → %d", name, t.attr, t.was.ValueInt64(), t.now.ValueInt64()))
		}
	}

	return out
}

// monitorOf decodes a health_monitor value; false when it is null or unknown.
func monitorOf(ctx context.Context, v types.Object) (healthMonitorModel, bool) {
	var hm healthMonitorModel

	if v.IsNull() || v.IsUnknown() {
		return hm, false
	}

	return hm, !v.As(ctx, &hm, objectAsOptions).HasError()
}

// known tells whether v is neither null nor unknown.
func known(v types.Int64) bool { return !v.IsNull() && !v.IsUnknown() }

func knownOrUnknown(v types.String) types.String {
	if v.IsNull() || v.IsUnknown() {
		return types.StringUnknown()
	}

	return v
}

func unknownUnless(null bool) types.String {
	if null {
		return types.StringNull()
	}

	return types.StringUnknown()
}
