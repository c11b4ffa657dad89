package loadbalancer

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Defaults and limits of the health monitor.
const (
	defaultMonitorInterval  = 10
	defaultMonitorTimeout   = 5
	defaultMonitorThreshold = 3
	minThreshold            = 1
	maxThreshold            = 10
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

// nameValidator checks a load balancer name with naming.ValidateName.
type nameValidator struct{}

func (nameValidator) Description(context.Context) string {
	return "a load balancer name: printable, no white space at either end, short enough for Octavia's 255 characters"
}

func (v nameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (nameValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := naming.ValidateName(naming.KindLoadBalancer, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid load balancer name", err.Error())
	}
}

// ipv4Validator checks an IPv4 address (VIPs and members live on the network's IPv4 subnet).
type ipv4Validator struct{}

func (ipv4Validator) Description(context.Context) string { return "an IPv4 address such as 10.0.0.5" }

func (v ipv4Validator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (ipv4Validator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	s := req.ConfigValue.ValueString()

	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() || a.String() != s {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid IPv4 address",
			fmt.Sprintf("%q is not an IPv4 address in dotted form such as 10.0.0.5.", s))
	}
}

// cidrValidator checks an IPv4 prefix in canonical form (Octavia stores 10.0.0.1/24 as
// 10.0.0.0/24, which would show as a change on every plan).
type cidrValidator struct{}

func (cidrValidator) Description(context.Context) string {
	return "an IPv4 CIDR prefix in canonical form such as 10.0.0.0/8"
}

func (v cidrValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (cidrValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	s := req.ConfigValue.ValueString()

	p, err := netip.ParsePrefix(s)

	switch {
	case err != nil || !p.Addr().Is4():
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CIDR",
			fmt.Sprintf("%q is not an IPv4 CIDR prefix such as 10.0.0.0/8 (the VIP is IPv4).", s))
	case p.Masked() != p:
		resp.Diagnostics.AddAttributeError(req.Path, "CIDR with host bits",
			fmt.Sprintf("%q has host bits set: write %s.", s, p.Masked()))
	}
}
