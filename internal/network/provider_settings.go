package network

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Provider arguments of this package.
const (
	ExternalNetworksArgument = "external_networks"
	ProviderNetworkArgument  = "provider_network"
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
				"order) that passes the selector; the `unikorn_external_networks` data source shows them. Unset: every " +
				"external network.",
			Attributes: map[string]schema.Attribute{
				"ids": schema.SetAttribute{
					Optional:            true,
					ElementType:         types.StringType,
					MarkdownDescription: "Only these external networks (Neutron IDs).",
					Validators: []validator.Set{
						setvalidator.SizeAtLeast(1),
						setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
					},
				},
				"tags": schema.SetAttribute{
					Optional:            true,
					ElementType:         types.StringType,
					MarkdownDescription: "Only external networks that carry every one of these Neutron tags.",
					Validators: []validator.Set{
						setvalidator.SizeAtLeast(1),
						setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
					},
				},
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
					Validators:          []validator.List{listvalidator.SizeAtLeast(1), vlanRangesDisjoint{}},
					NestedObject: schema.NestedAttributeObject{
						Validators: []validator.Object{vlanRangeOrdered{}},
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

// ExpandConfig builds the package's Config from the provider arguments. Unknown values are
// errors: the provider is configured before any plan.
func ExpandConfig(ctx context.Context, externalNetworks, providerNetwork types.Object) (*Config, diag.Diagnostics) {
	var diags diag.Diagnostics

	unknown := func(p path.Path) {
		diags.AddAttributeError(p, "Unknown provider argument",
			"The provider cannot be configured because this argument depends on a value that is only known after apply.")
	}

	var selector ExternalNetworkSelector

	switch {
	case externalNetworks.IsUnknown():
		unknown(path.Root(ExternalNetworksArgument))
	case !externalNetworks.IsNull():
		var m externalNetworksModel

		diags.Append(externalNetworks.As(ctx, &m, basetypes.ObjectAsOptions{})...)

		for _, f := range []struct {
			name string
			set  types.Set
			dst  *[]string
		}{{"ids", m.IDs, &selector.IDs}, {"tags", m.Tags, &selector.Tags}} {
			if f.set.IsUnknown() {
				unknown(path.Root(ExternalNetworksArgument).AtName(f.name))
				continue
			}

			diags.Append(f.set.ElementsAs(ctx, f.dst, false)...)
			slices.Sort(*f.dst)
		}
	}

	var pn *ProviderNetwork

	switch {
	case providerNetwork.IsUnknown():
		unknown(path.Root(ProviderNetworkArgument))
	case !providerNetwork.IsNull():
		var m providerNetworkModel

		diags.Append(providerNetwork.As(ctx, &m, basetypes.ObjectAsOptions{})...)

		if m.PhysicalNetwork.IsUnknown() || m.VLANRanges.IsUnknown() {
			unknown(path.Root(ProviderNetworkArgument))
			break
		}

		var ranges []vlanRangeModel

		diags.Append(m.VLANRanges.ElementsAs(ctx, &ranges, false)...)

		pn = &ProviderNetwork{PhysicalNetwork: m.PhysicalNetwork.ValueString()}

		for i, r := range ranges {
			if r.Start.IsUnknown() || r.End.IsUnknown() {
				unknown(path.Root(ProviderNetworkArgument).AtName("vlan_ranges").AtListIndex(i))
				continue
			}

			pn.VLANRanges = append(pn.VLANRanges, VLANRange{Start: int(r.Start.ValueInt64()), End: int(r.End.ValueInt64())})
		}

		if err := checkVLANRanges(pn.VLANRanges); err != nil {
			diags.AddAttributeError(path.Root(ProviderNetworkArgument).AtName("vlan_ranges"), "Invalid VLAN ranges", err.Error())
		}
	}

	if diags.HasError() {
		return nil, diags
	}

	return NewConfig(selector, pn), diags
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
