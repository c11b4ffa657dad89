package providernetwork

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// The object types of the nested attributes.
var (
	poolType   = types.ObjectType{AttrTypes: map[string]attr.Type{"end": types.StringType, "start": types.StringType}}
	routeType  = types.ObjectType{AttrTypes: map[string]attr.Type{"destination": types.StringType, "next_hop": types.StringType}}
	subnetType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"allocation_pools": types.SetType{ElemType: poolType},
		"cidr":             types.StringType,
		"dns_nameservers":  types.ListType{ElemType: types.StringType},
		"enable_dhcp":      types.BoolType,
		"gateway_ip":       types.StringType,
		"host_routes":      types.SetType{ElemType: routeType},
		"id":               types.StringType,
		"name":             types.StringType,
	}}
)

// The smallest MTU Neutron accepts for IPv4 (RFC 791).
const minMTU = 68

func (r *providerNetworkResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Neutron provider network of a region: a flat or VLAN network on a physical network, with its " +
			"subnets, made by the service user in its own project (an admin object of the region: it needs cloud admin). " +
			"An `external` one is what routers of `unikorn_network` reach the outside through, and what the " +
			"`unikorn_external_networks` data source lists.\n\n" +
			"The network is found again by its exact name in the service user's project (two of the name are an error), its " +
			"subnets by their names. Destroying deletes " +
			"the subnets, then the network; a network that ports of other projects still use (routers' gateways, floating " +
			"IPs, servers) is not deleted, and the error lists those ports.\n\n" +
			"**Adoption.** The network and its subnets carry the provider's ownership marks as Neutron tags: " +
			"`unikorn-terraform:unikorn_provider_network` from their creation (posted as the description until they are " +
			"tagged, since Neutron takes no tags in a create), and `unikorn-terraform:created` on the network once its " +
			"subnets exist. A create that finds a network of its name adopts it only when it is what an interrupted create " +
			"of a `unikorn_provider_network` left (the first mark without the second) and every subnet in it carries the " +
			"first mark. Any other network of the name (made by hand, by Unikorn, by another tool, or a finished " +
			"`unikorn_provider_network` of another configuration) is refused before anything is written, with the " +
			"`terraform import` command that takes it over. A network gone by its recorded ID is replaced by one of its name " +
			"only under the same rule; networks made before these marks existed keep working by their recorded IDs.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"external": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Whether routers may use the network as their gateway (`router:external`). Default " +
					"false. Updated in place.",
			},
			"id": adapter.IDAttribute("ID of the Neutron network."),
			"mtu": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "MTU of the network. Default: Neutron's, for the physical network. Updated in place.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				Validators:          []validator.Int64{int64validator.AtLeast(minMTU)},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the Neutron network, exactly as given (no prefix). Updated in place.",
				Validators:          []validator.String{adapter.Name(naming.KindNetwork)},
			},
			"network_type": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "`flat` or `vlan`. Changing it replaces the network.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.OneOf(TypeFlat, TypeVLAN)},
			},
			"physical_network": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The physical network (ML2's `flat_networks` / `network_vlan_ranges`) the network is " +
					"on. Neutron allows one flat network per physical network. Changing it replaces the network.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"region": adapter.RegionAttribute("provider network"),
			"segmentation_id": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "VLAN ID of a `vlan` network, 1 to 4094; must not be set for a `flat` one (null). " +
					"Unset: allocated from Neutron's own view at create, as `unikorn_network` allocates its VLAN IDs — the " +
					"lowest ID of the provider's `provider_network.vlan_ranges` that no VLAN network uses when " +
					"`provider_network` names this physical network, else one that Neutron chooses from its own ranges. " +
					"Setting or changing it replaces the network.",
				PlanModifiers: []planmodifier.Int64{
					int64planmodifier.UseStateForUnknown(),
					int64planmodifier.RequiresReplaceIfConfigured(),
				},
				Validators: []validator.Int64{int64validator.Between(network.MinVLANID, network.MaxVLANID)},
			},
			"shared": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Whether every project may attach ports to the network. Default false. Updated in place.",
			},
			"subnets":  subnetsAttribute(),
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}

func subnetsAttribute() schema.ListNestedAttribute {
	address := []validator.String{adapter.IPAddress(adapter.AnyFamily)}

	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "The network's subnets, converged by name: a subnet of a name no longer listed is deleted, one " +
			"whose `cidr` changes is deleted and made again, every other change is made in place.",
		Validators: []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"allocation_pools": schema.SetNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The ranges DHCP hands out, inside the subnet's host addresses and without the " +
					"gateway. Default: Neutron's, every host address but the gateway. Updated in place.",
				Validators: []validator.Set{setvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"end":   schema.StringAttribute{Required: true, MarkdownDescription: "Last address.", Validators: address},
					"start": schema.StringAttribute{Required: true, MarkdownDescription: "First address.", Validators: address},
				}},
			},
			"cidr": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Prefix of the subnet in canonical form, e.g. `203.0.113.0/24`. Changing it replaces " +
					"this subnet (not the network).",
				Validators: []validator.String{adapter.Prefix(adapter.AnyFamily)},
			},
			"dns_nameservers": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "DNS servers DHCP hands out, in order. Updated in place.",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(address...),
				},
			},
			"enable_dhcp": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether Neutron serves DHCP on the subnet. Default true. Updated in place.",
			},
			"gateway_ip": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The subnet's gateway, a host address of `cidr`. Default: its first host address. " +
					"Updated in place.",
				Validators: address,
			},
			"host_routes": schema.SetNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Host routes DHCP hands out. Updated in place.",
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"destination": schema.StringAttribute{
						Required: true, MarkdownDescription: "Destination prefix, in canonical form.",
						Validators: []validator.String{adapter.Prefix(adapter.AnyFamily)},
					},
					"next_hop": schema.StringAttribute{Required: true, MarkdownDescription: "Next hop address.", Validators: address},
				}},
			},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the Neutron subnet."},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the subnet, unique in the network: what it is found again by.",
				Validators: []validator.String{adapter.Name(naming.KindNetwork)},
			},
		}},
	}
}
