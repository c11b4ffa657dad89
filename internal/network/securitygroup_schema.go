package network

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Prefixes under which rules that refer to a remote group are read back: the schema has no
// place for them, and they are removed by the next apply.
const (
	remoteGroupMarker        = "group:"
	remoteAddressGroupMarker = "address-group:"
)

var (
	portRangeAttrTypes = map[string]attr.Type{"max": types.Int64Type, "min": types.Int64Type}
	ruleAttrTypes      = map[string]attr.Type{
		"description":      types.StringType,
		"direction":        types.StringType,
		"port":             types.Int64Type,
		"port_range":       types.ObjectType{AttrTypes: portRangeAttrTypes},
		"protocol":         types.StringType,
		"remote_ip_prefix": types.StringType,
	}
	ruleType = types.ObjectType{AttrTypes: ruleAttrTypes}
)

func (r *securityGroupResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	portNumber := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: what + " (1-65535).",
			Validators:          []validator.Int64{int64validator.Between(1, 65535)},
		}
	}

	identityID, projectID := adapter.OwnerAttributes("security group")

	resp.Schema = schema.Schema{
		MarkdownDescription: "A Neutron security group `securitygroup-<name>` in an identity's project (or, with " +
			"`project_id`, in a `unikorn_project`'s), with its rules reconciled as a set: one request reads the group with its rules, the rules that are not configured are " +
			"deleted, and the missing ones are created together in one bulk request. Neutron's default egress rules " +
			"(any protocol to anywhere, IPv4 and IPv6) are never deleted. A rule added or removed out of band shows in " +
			"the next plan.\n\n" +
			"The group is found again by its exact name in its project; two groups with the name are an error that names " +
			"both.\n\n" +
			"**Adoption.** The group the provider makes carries its creation mark (the Neutron tag " +
			"`unikorn-terraform:unikorn_security_group`, and until it is tagged, that text as its description) and gets " +
			"the completion mark (the tag `unikorn-terraform:created`) once its rules are written, as the create's last " +
			"step. A create that finds a group of its name adopts it only when an interrupted create of a " +
			"`unikorn_security_group` left it unfinished (the creation mark, no completion mark), and reconciles its rules. " +
			"Anything else — another configuration's group (finished), one made by hand, by Unikorn or by another tool — " +
			"is never taken over and its rules are never touched: the create fails before it writes anything, naming the " +
			"group and the `terraform import` that takes it over. A refresh that finds the recorded group gone takes " +
			"another group of the name only under the same rule (otherwise the plan shows a create). An imported group is " +
			"managed as it is and never marked.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"description": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "Description of the security group. Updated in place.",
			},
			"id":          adapter.IDAttribute("ID of the Neutron security group."),
			"identity_id": identityID,
			"name": adapter.NameAttribute(naming.KindSecurityGroup,
				"Name of the group; the Neutron security group is called `securitygroup-<name>`."),
			"project_id": projectID,
			"region":     adapter.RegionAttribute("security group"),
			"rules": schema.SetNestedAttribute{
				Optional: true,
				Computed: true,
				Default:  setdefault.StaticValue(types.SetValueMust(ruleType, nil)),
				MarkdownDescription: "The rules, as a set. A rule is identified by all its attributes: changing one replaces " +
					"that rule only (Neutron rules cannot be updated), and the other rules stay untouched. Two rules that " +
					"Neutron would call duplicates (they differ only in `description`, or in `port = N` against " +
					"`port_range = { min = N, max = N }`) are rejected at plan time. Default: none besides Neutron's " +
					"default egress rules.",
				Validators: []validator.Set{rulesUnique},
				NestedObject: schema.NestedAttributeObject{
					Validators: []validator.Object{ruleValidator},
					Attributes: map[string]schema.Attribute{
						"description": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "Description of the rule.",
							Validators:          []validator.String{stringvalidator.LengthBetween(1, 255)},
						},
						"direction": schema.StringAttribute{
							Required:            true,
							MarkdownDescription: "`ingress` or `egress`.",
							Validators:          []validator.String{stringvalidator.OneOf(Directions...)},
						},
						"port": schema.Int64Attribute{
							Optional:            true,
							MarkdownDescription: "One port (1-65535), with `tcp` or `udp` only. Unset, with no `port_range`: every port.",
							Validators:          []validator.Int64{int64validator.Between(1, 65535)},
						},
						"port_range": schema.SingleNestedAttribute{
							Optional:            true,
							MarkdownDescription: "An inclusive port range, with `tcp` or `udp` only; not with `port`.",
							Attributes: map[string]schema.Attribute{
								"max": portNumber("Last port"),
								"min": portNumber("First port"),
							},
						},
						"protocol": schema.StringAttribute{
							Required:            true,
							MarkdownDescription: "One of `" + strings.Join(Protocols, "`, `") + "`.",
							Validators:          []validator.String{stringvalidator.OneOf(Protocols...)},
						},
						"remote_ip_prefix": schema.StringAttribute{
							Optional: true,
							MarkdownDescription: "The remote addresses, as a CIDR in canonical form. Unset: `" + DefaultRemoteIPPrefix +
								"`. The rule's ether type (IPv4 or IPv6) follows its family. A rule created out of band that " +
								"refers to a remote security group reads back as `" + remoteGroupMarker + "<ID>` (and is " +
								"removed by the next apply).",
							Validators: []validator.String{adapter.Prefix(adapter.AnyFamily)},
						},
					},
				},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}
