package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// networkSettings is the part of the provider block that configures the network packages:
// the external network selector and the VLAN provider network.
type networkSettings struct {
	ExternalNetworks types.Object `tfsdk:"external_networks"`
	ProviderNetwork  types.Object `tfsdk:"provider_network"`
}

// networkMeta is what Configure derives from networkSettings for the network packages.
type networkMeta struct {
	network *network.Config
}

// NetworkConfig is the tenant networking configuration shared by every network resource and
// data source of the provider process.
func (m networkMeta) NetworkConfig() *network.Config {
	if m.network == nil {
		return network.NewConfig(network.ExternalNetworkSelector{}, nil)
	}

	return m.network
}

// networkAttributes are the provider arguments of networkSettings.
func networkAttributes() map[string]schema.Attribute {
	return network.ProviderAttributes()
}

// configure validates the settings (the schema validators already ran at plan time) and
// fills meta.
func (s networkSettings) configure(ctx context.Context, meta *networkMeta) diag.Diagnostics {
	cfg, diags := network.ExpandConfig(ctx, s.ExternalNetworks, s.ProviderNetwork, os.Getenv)
	if diags.HasError() {
		return diags
	}

	meta.network = cfg

	fields := map[string]any{"external_networks": cfg.Selector.String()}
	if pn := cfg.ProviderNetwork; pn != nil {
		fields["physical_network"] = pn.PhysicalNetwork
		fields["vlan_ranges"] = len(pn.VLANRanges)
	}

	tflog.Debug(ctx, "Configured tenant networking", fields)

	return diags
}
