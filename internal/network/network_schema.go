package network

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// rangeAttrTypes are the attributes of an address range object.
var rangeAttrTypes = map[string]attr.Type{"end": types.StringType, "start": types.StringType}

// cidrValidator checks a network's IPv4 prefix (see ParseCIDR).
var cidrValidator = adapter.StringCheck("CIDR",
	fmt.Sprintf("an IPv4 prefix in canonical form of at most /%d bits, e.g. 10.0.0.0/24", MaxPrefixLength),
	func(s string) error { _, err := ParseCIDR(s); return err })

func (r *networkResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	identityID, projectID := adapter.OwnerAttributes("network")

	resp.Schema = schema.Schema{
		MarkdownDescription: "A tenant network in an identity's project (or, with `project_id`, in a `unikorn_project`'s): " +
			"a Neutron network, an IPv4 subnet, a router to an external network and the router's interface on the " +
			"subnet, all named `network-<name>`. When the provider " +
			"configures `provider_network`, the network is a VLAN provider network whose VLAN ID is chosen from what " +
			"Neutron reports in use.\n\n" +
			"Every part is found again by its exact name in its project: two objects with the name are an error that " +
			"names both, and a part deleted out of band is restored by the next apply. Destroying deletes the router " +
			"interface, the router, the subnet and the network, in that order, and fails naming any port still on them.\n\n" +
			"**Adoption.** Every object the provider makes carries its creation mark (the Neutron tag " +
			"`unikorn-terraform:unikorn_network`, and until it is tagged, that text as its description), and the network " +
			"gets the completion mark (the tag `unikorn-terraform:created`) as the create's last step. A create that finds " +
			"a network of its name adopts it only when an interrupted create of a `unikorn_network` left it unfinished " +
			"(the creation mark, no completion mark), and completes it; its subnet and the router of the name must carry " +
			"the creation mark too. Anything else — a network of another configuration (finished), one made by hand, by " +
			"Unikorn or by another tool, a subnet or router without the mark — is never taken over nor changed: the create " +
			"fails before it writes anything, naming the object and the `terraform import` that takes it over. A refresh " +
			"that finds the recorded network gone takes another network of the name only under the same rule (otherwise " +
			"the plan shows a create). An imported network, with its subnet and router, is managed as it is and never " +
			"marked.\n\n" +
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
						Validators:          []validator.String{adapter.IPAddress(adapter.IPv4)},
					},
					"start": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "First address of the pool.",
						Validators:          []validator.String{adapter.IPAddress(adapter.IPv4)},
					},
				},
			},
			"cidr": schema.StringAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("IPv4 prefix of the subnet, in canonical form, /%d at most, e.g. `10.0.0.0/24`. "+
					"The gateway is its first address. It must not overlap the subnets of the router's external network "+
					"(checked at plan time). Changing it replaces the network.", MaxPrefixLength),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{cidrValidator},
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
					listvalidator.ValueStringsAre(adapter.IPAddress(adapter.AnyFamily)),
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
			"id":          adapter.IDAttribute("ID of the Neutron network."),
			"identity_id": identityID,
			"name": adapter.NameAttribute(naming.KindNetwork,
				"Name of the network; the Neutron network, subnet and router are called `network-<name>`."),
			"project_id": projectID,
			"region":     adapter.RegionAttribute("network"),
			"router_id": adapter.StableString("ID of the router `network-<name>` attached to the subnet. Null when the router or its " +
				"interface has gone missing, which the next apply restores."),
			"routes": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Host routes DHCP hands out: destination CIDR to next hop address, which must lie inside " +
					"`cidr`. Updated in place.",
				Validators: []validator.Map{
					mapvalidator.SizeAtLeast(1),
					mapvalidator.KeysAre(adapter.Prefix(adapter.IPv4)),
					mapvalidator.ValueStringsAre(adapter.IPAddress(adapter.IPv4)),
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
			"subnet_id": adapter.StableString("ID of the subnet `network-<name>`. Null when it has gone missing, which the next apply restores."),
			"timeouts":  adapter.TimeoutsAttribute(ctx),
			"vlan_id": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "Segmentation ID of a VLAN provider network (see the provider's `provider_network`); null " +
					"for other networks.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
		},
	}
}
