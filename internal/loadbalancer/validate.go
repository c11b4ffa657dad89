package loadbalancer

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Defaults and limits of the health monitor and the listener. The defaults are those of
// Unikorn's load balancer API (uni-region pkg/handler/loadbalancer/client_v2.go, the same from
// v1.16.5 to v1.19.0): what Unikorn writes for a health check or a TCP listener that leaves a
// value unset, so that a Unikorn load balancer imported with a configuration that leaves them
// unset too plans no change. Before, this provider's thresholds were 3 and a TCP listener's
// idle timeout was left as Octavia had it (oldDefaultThreshold: planDefaults warns of the
// change).
const (
	defaultMonitorInterval    = 10
	defaultMonitorTimeout     = 5
	defaultHealthyThreshold   = 2
	defaultUnhealthyThreshold = 2
	// defaultIdleTimeout is a TCP listener's idle timeout when unset, in seconds.
	defaultIdleTimeout = 60
	// oldDefaultThreshold is the thresholds' default of earlier versions of this provider.
	oldDefaultThreshold = 3
	minThreshold        = 1
	maxThreshold        = 10
	// minUDPMonitorInterval is Octavia's default udp_connect_min_interval_health_monitor: a
	// UDP-CONNECT monitor may not check more often.
	minUDPMonitorInterval = 3
	// maxIdleTimeout is Octavia's longest data timeout (24 h), in seconds.
	maxIdleTimeout = 24 * 60 * 60
)

// ValidateConfig checks the rules that span attributes, so that each is a plan-time
// diagnostic on the attribute at fault rather than a failed API call mid-apply: listener
// names (valid, unique, and short enough with the load balancer's name), one listener per
// transport protocol and port, TCP-only settings on UDP listeners, and health monitor
// timing.
func (r *loadBalancerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg loadBalancerModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)

	if resp.Diagnostics.HasError() || cfg.Listeners.IsNull() || cfg.Listeners.IsUnknown() {
		return
	}

	var ls []listenerModel

	resp.Diagnostics.Append(cfg.Listeners.ElementsAs(ctx, &ls, false)...)

	if resp.Diagnostics.HasError() {
		return
	}

	names := map[string]int{}
	ports := map[string]int{}

	for i, l := range ls {
		at := path.Root("listeners").AtListIndex(i)

		if !l.Name.IsUnknown() && !l.Name.IsNull() {
			name := l.Name.ValueString()

			var err error
			if cfg.Name.IsUnknown() || cfg.Name.IsNull() {
				err = naming.ValidateName(naming.KindListener, name)
			} else {
				err = naming.ValidateListenerName(cfg.Name.ValueString(), name)
			}

			if err != nil {
				resp.Diagnostics.AddAttributeError(at.AtName("name"), "Invalid listener name", err.Error())
			}

			if j, dup := names[name]; dup {
				resp.Diagnostics.AddAttributeError(at.AtName("name"), "Duplicate listener name",
					fmt.Sprintf("Listeners %d and %d are both named %q: listener names must be unique, they name the "+
						"listener's Octavia objects.", j, i, name))
			} else {
				names[name] = i
			}
		}

		protocol, udp := l.Protocol.ValueString(), l.Protocol.ValueString() == ProtocolUDP
		known := !l.Protocol.IsUnknown() && !l.Protocol.IsNull()

		if known && !l.Port.IsUnknown() && !l.Port.IsNull() {
			key := fmt.Sprintf("%s/%d", protocol, l.Port.ValueInt64())
			if j, dup := ports[key]; dup {
				resp.Diagnostics.AddAttributeError(at.AtName("port"), "Duplicate listener port",
					fmt.Sprintf("Listeners %d and %d both listen on %s port %d: Octavia allows one listener per transport "+
						"protocol and port.", j, i, protocol, l.Port.ValueInt64()))
			} else {
				ports[key] = i
			}
		}

		if known && udp {
			if !l.IdleTimeoutSeconds.IsNull() && !l.IdleTimeoutSeconds.IsUnknown() {
				resp.Diagnostics.AddAttributeError(at.AtName("idle_timeout_seconds"), "Idle timeout on a UDP listener",
					"idle_timeout_seconds applies to TCP listeners only: remove it from this UDP listener.")
			}

			if l.ProxyProtocolV2.ValueBool() {
				resp.Diagnostics.AddAttributeError(at.AtName("proxy_protocol_v2"), "PROXY protocol on a UDP listener",
					"proxy_protocol_v2 applies to TCP listeners only: remove it from this UDP listener.")
			}
		}

		if !l.HealthMonitor.IsNull() && !l.HealthMonitor.IsUnknown() {
			var hm healthMonitorModel

			resp.Diagnostics.Append(l.HealthMonitor.As(ctx, &hm, objectAsOptions)...)
			validateMonitor(&resp.Diagnostics, at.AtName("health_monitor"), hm, known && udp)
		}

		validateMembers(ctx, &resp.Diagnostics, at.AtName("members"), l.Members)
	}
}

// validateMembers refuses a member (address and port) listed twice in one pool: Octavia holds
// members as a set, so the second would silently vanish.
func validateMembers(ctx context.Context, diags *diag.Diagnostics, at path.Path, members types.List) {
	if members.IsNull() || members.IsUnknown() {
		return
	}

	var ms []memberModel

	diags.Append(members.ElementsAs(ctx, &ms, false)...)

	seen := map[Member]int{}

	for j, m := range ms {
		if m.Address.IsUnknown() || m.Port.IsUnknown() {
			continue
		}

		key := Member{Address: m.Address.ValueString(), Port: int(m.Port.ValueInt64())}
		if i, dup := seen[key]; dup {
			diags.AddAttributeError(at.AtListIndex(j), "Duplicate member",
				fmt.Sprintf("Members %d and %d are both %s port %d: a pool holds each address and port once; remove one.",
					i, j, key.Address, key.Port))

			continue
		}

		seen[key] = j
	}
}

// validateMonitor checks timeout < interval, and the UDP-CONNECT minimum interval.
func validateMonitor(diags diagAdder, at path.Path, hm healthMonitorModel, udp bool) {
	interval, iKnown := int64OrDefault(hm.IntervalSeconds, defaultMonitorInterval)
	timeout, tKnown := int64OrDefault(hm.TimeoutSeconds, defaultMonitorTimeout)

	if iKnown && tKnown && timeout >= interval {
		diags.AddAttributeError(at.AtName("timeout_seconds"), "Health monitor timeout not below its interval",
			fmt.Sprintf("timeout_seconds (%d) must be less than interval_seconds (%d): a check must end before the next "+
				"one starts.", timeout, interval))
	}

	if udp && iKnown && interval < minUDPMonitorInterval {
		diags.AddAttributeError(at.AtName("interval_seconds"), "Health monitor interval too short for UDP",
			fmt.Sprintf("A UDP listener's monitor (UDP-CONNECT) may check at most every %d seconds (Octavia's "+
				"udp_connect_min_interval_health_monitor); interval_seconds is %d.", minUDPMonitorInterval, interval))
	}
}

type diagAdder interface {
	AddAttributeError(path.Path, string, string)
}

// int64OrDefault is v, or def when v is null; ok is false when v is unknown.
func int64OrDefault(v types.Int64, def int64) (int64, bool) {
	switch {
	case v.IsUnknown():
		return 0, false
	case v.IsNull():
		return def, true
	}

	return v.ValueInt64(), true
}
