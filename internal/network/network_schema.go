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
			"**Unikorn's networks.** A network made by Unikorn's region service (`network-<Unikorn network ID>`, its " +
			"subnet and router, in the identity's project) is imported as any other. With a configuration that mirrors it " +
			"(`name` = the Unikorn network ID, `identity_id` = the identity's project, its `cidr`, `dns_nameservers` and " +
			"`routes`; no `allocation_pool`, `description` or `external_network_id`) the plan shows no change and the " +
			"apply writes nothing. An import never rewrites the DHCP pool (whatever Unikorn's version made: base + 2 to " +
			"base + size - 129 up to v1.10, base + 128 to the last address before the broadcast address from v1.11 on), " +
			"the descriptions (`unikorn managed provider network` on the network), the router or its gateway, and never " +
			"marks anything. Only what the configuration sets is written: `dns_nameservers` and `routes` as configured " +
			"(Unikorn v1.11 and later rewrites both from its own record on its next reconcile, so change them through " +
			"Unikorn), and a pool or description once `allocation_pool` or `description` is set. Hand a network back by " +
			"removing it from the state (a `removed` block with `destroy = false`): destroying it deletes it.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"allocation_pool": schema.SingleNestedAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The addresses DHCP hands out. Unset, a new network gets the layout of Unikorn's " +
					"region service (v1.11 and later; v1.17's default reservation): from the address after the first /25 of " +
					"`cidr` (its base address + 128) to the last address before the broadcast address, which keeps the " +
					"addresses between the gateway and the pool for static addresses (`static_range`); e.g. " +
					"`10.0.0.128`-`10.0.255.254` for `10.0.0.0/16`. A prefix of /25 or longer, too small for that " +
					"reservation, gets the upper half of `cidr` without the broadcast address. Unset, an existing network " +
					"keeps the pool it has (one made by an earlier release of the provider, whose default was the upper " +
					"half, or by Unikorn, or imported): no plan rewrites it unless `allocation_pool` is set. A given pool " +
					"must lie inside `cidr`, after the gateway and before the broadcast address. Updated in place.",
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
				Optional: true,
				Computed: true,
				MarkdownDescription: "Description of the network, subnet and router, written on all three when set. " +
					"Unset: a new network's are empty, and an existing network's (an imported one's, such as Unikorn's " +
					"`unikorn managed provider network`) are kept as they are, never written; the network's is read back " +
					"here. Removing it from the configuration leaves the descriptions as they are: set `\"\"` to clear " +
					"them. Updated in place.",
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
