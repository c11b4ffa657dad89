package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
)

// loadbalancerSettings is the part of the provider block that configures the loadbalancer package.
type loadbalancerSettings struct {
	LoadBalancerSingleCallCreate types.Bool `tfsdk:"loadbalancer_single_call_create"`
}

// loadbalancerMeta is what Configure derives from loadbalancerSettings for the loadbalancer
// package, and the run's memo of the load balancers' VIP network lookups.
type loadbalancerMeta struct {
	singleCallCreate bool
	networks         loadbalancer.NetworkCache
}

// LoadBalancerSingleCallCreate tells whether new load balancers are created with Octavia's
// fully-populated single call instead of step by step.
func (m *loadbalancerMeta) LoadBalancerSingleCallCreate() bool {
	return m.singleCallCreate
}

// LoadBalancerNetworkCache is the run's VIP network lookups, shared by every load balancer's plan.
func (m *loadbalancerMeta) LoadBalancerNetworkCache() *loadbalancer.NetworkCache {
	return &m.networks
}

// loadbalancerAttributes are the provider arguments of loadbalancerSettings.
func loadbalancerAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"loadbalancer_single_call_create": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Create a new `unikorn_loadbalancer` with Octavia's single \"fully populated\" call (the " +
				"load balancer with its listeners, pools, members and monitors in one request) instead of step by step. " +
				"Only for clouds where that call works: on several Octavia releases and providers (the amphora provider " +
				"on Zed, OVN) it answers 201 but leaves every child in `PENDING_CREATE` forever, and the apply then runs " +
				"into its timeout. Default `false`: step by step, which works everywhere.",
		},
	}
}

// configure validates the settings and fills meta.
func (s loadbalancerSettings) configure(_ context.Context, meta *loadbalancerMeta) diag.Diagnostics {
	var diags diag.Diagnostics

	v := s.LoadBalancerSingleCallCreate
	meta.singleCallCreate = adapter.ReadArgument(path.Root("loadbalancer_single_call_create"), v, &diags) && v.ValueBool()

	return diags
}
