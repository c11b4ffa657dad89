package network

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// Provider arguments of this package.
const (
	ExternalNetworksArgument = "external_networks"
	ProviderNetworkArgument  = "provider_network"

	// ExternalNetworkIDsEnv is what `external_networks` falls back to when the provider block
	// leaves it unset: a comma-separated list of Neutron IDs, as `external_networks.ids`.
	ExternalNetworkIDsEnv = "UNIKORN_EXTERNAL_NETWORK_IDS"
)

// ProviderAttributes are the provider arguments that configure tenant networking:
// `external_networks = { ids, tags }` and `provider_network = { physical_network,
// vlan_ranges = [{ start, end }] }`.
func ProviderAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		ExternalNetworksArgument: schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Which external networks routers may use, as Unikorn's region selector chooses them. A " +
				"`unikorn_network` without `external_network_id` routes through the first external network (in Neutron's " +
				"order) that passes the selector; the `unikorn_external_networks` data source shows them. Unset: the " +
				"IDs in `" + ExternalNetworkIDsEnv + "` (comma-separated) when that is set, else every external network.",
			Attributes: map[string]schema.Attribute{
				"ids":  adapter.StringSetArgument("Only these external networks (Neutron IDs)."),
				"tags": adapter.StringSetArgument("Only external networks that carry every one of these Neutron tags."),
			},
		},
		ProviderNetworkArgument: schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Make every `unikorn_network` a VLAN provider network on a physical network (needs the " +
				"service user to be an admin of the identities' projects, as Neutron's policy requires). The VLAN ID of a " +
				"new network is taken from Neutron itself: the lowest ID of `vlan_ranges` that no VLAN network of the " +
				"physical network uses; when a concurrent apply takes it first, the next one. No allocation state is " +
				"kept anywhere else.",
			Attributes: map[string]schema.Attribute{
				"physical_network": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "Neutron physical network name, e.g. `physnet1` (ML2 `network_vlan_ranges`).",
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"vlan_ranges": schema.ListNestedAttribute{
					Required:            true,
					MarkdownDescription: "The VLAN IDs networks may use, as inclusive ranges that do not overlap.",
					Validators:          []validator.List{listvalidator.SizeAtLeast(1), vlanRangesDisjoint},
					NestedObject: schema.NestedAttributeObject{
						Validators: []validator.Object{vlanRangeOrdered},
						Attributes: map[string]schema.Attribute{
							"end": schema.Int64Attribute{
								Required:            true,
								MarkdownDescription: fmt.Sprintf("Last VLAN ID of the range (%d-%d).", MinVLANID, MaxVLANID),
								Validators:          []validator.Int64{int64validator.Between(MinVLANID, MaxVLANID)},
							},
							"start": schema.Int64Attribute{
								Required:            true,
								MarkdownDescription: fmt.Sprintf("First VLAN ID of the range (%d-%d).", MinVLANID, MaxVLANID),
								Validators:          []validator.Int64{int64validator.Between(MinVLANID, MaxVLANID)},
							},
						},
					},
				},
			},
		},
	}
}

// externalNetworksModel is the `external_networks` provider argument.
type externalNetworksModel struct {
	IDs  types.Set `tfsdk:"ids"`
	Tags types.Set `tfsdk:"tags"`
}

// providerNetworkModel is the `provider_network` provider argument.
type providerNetworkModel struct {
	PhysicalNetwork types.String `tfsdk:"physical_network"`
	VLANRanges      types.List   `tfsdk:"vlan_ranges"`
}

// vlanRangeModel is one of `provider_network.vlan_ranges`.
type vlanRangeModel struct {
	End   types.Int64 `tfsdk:"end"`
	Start types.Int64 `tfsdk:"start"`
}

// ExpandConfig builds the package's Config from the provider arguments, with getenv for the
// fallback of an unset `external_networks`. Unknown values are errors: the provider is
// configured before any plan.
func ExpandConfig(ctx context.Context, externalNetworks, providerNetwork types.Object, getenv func(string) string) (*Config, diag.Diagnostics) {
	var diags diag.Diagnostics

	var selector ExternalNetworkSelector

	root := path.Root(ExternalNetworksArgument)
	if m, ok := adapter.ReadObjectArgument[externalNetworksModel](ctx, root, externalNetworks, &diags); ok {
		selector.IDs = adapter.ReadStringSetArgument(ctx, root.AtName("ids"), m.IDs, &diags)
		selector.Tags = adapter.ReadStringSetArgument(ctx, root.AtName("tags"), m.Tags, &diags)
	} else if externalNetworks.IsNull() {
		for _, id := range strings.Split(getenv(ExternalNetworkIDsEnv), ",") {
			if id = strings.TrimSpace(id); id != "" {
				selector.IDs = append(selector.IDs, id)
			}
		}
	}

	var pn *ProviderNetwork

	if m, ok := adapter.ReadObjectArgument[providerNetworkModel](ctx, path.Root(ProviderNetworkArgument), providerNetwork, &diags); ok {
		pn = m.expand(ctx, &diags)
	}

	if diags.HasError() {
		return nil, diags
	}

	return NewConfig(selector, pn), diags
}

// expand is the VLAN provider network of the argument; nil when a value is only known after
// apply (reported).
func (m providerNetworkModel) expand(ctx context.Context, diags *diag.Diagnostics) *ProviderNetwork {
	root := path.Root(ProviderNetworkArgument)

	if !adapter.ReadArgument(root.AtName("physical_network"), m.PhysicalNetwork, diags) {
		return nil
	}

	ranges := adapter.ReadListArgument[vlanRangeModel](ctx, root.AtName("vlan_ranges"), m.VLANRanges, diags)
	if ranges == nil {
		return nil // unknown (reported): the argument is required
	}

	pn := &ProviderNetwork{PhysicalNetwork: m.PhysicalNetwork.ValueString()}

	for _, r := range ranges {
		pn.VLANRanges = append(pn.VLANRanges, VLANRange{Start: int(r.Value.Start.ValueInt64()), End: int(r.Value.End.ValueInt64())})
	}

	if err := checkVLANRanges(pn.VLANRanges); err != nil {
		diags.AddAttributeError(root.AtName("vlan_ranges"), "Invalid VLAN ranges", err.Error())
	}

	return pn
}

// checkVLANRanges checks that every range is ordered, within 1-4094, and that no two overlap.
func checkVLANRanges(ranges []VLANRange) error {
	if len(ranges) == 0 {
		return fmt.Errorf("at least one VLAN range is needed")
	}

	for i, r := range ranges {
		switch {
		case r.Start < MinVLANID || r.End > MaxVLANID:
			return fmt.Errorf("range %s: VLAN IDs are %d to %d", r, MinVLANID, MaxVLANID)
		case r.Start > r.End:
			return fmt.Errorf("range %s: start is after end", r)
		}

		for _, o := range ranges[:i] {
			if r.Start <= o.End && o.Start <= r.End {
				return fmt.Errorf("ranges %s and %s overlap", o, r)
			}
		}
	}

	return nil
}
