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
			"**Unikorn's groups.** A group made by Unikorn's region service (`securitygroup-<Unikorn security group ID>` " +
			"in the identity's project, each rule described `unikorn managed security group rule`, ether type IPv4) is " +
			"imported as any other. With a configuration that mirrors it (`name` = the Unikorn security group ID, " +
			"`identity_id` = the identity's project, each rule's `direction`, `protocol`, `port` or `port_range` and " +
			"`remote_ip_prefix`, no `description` anywhere) the plan shows no change and the apply writes nothing: the " +
			"rules keep their IDs, the group its description. Only what the configuration asks for is written: a rule it " +
			"adds is created, a rule it lacks is deleted, a rule that gives another `description` is replaced (while " +
			"Unikorn still manages the group, its next reconcile restores the rules of its own record, so change them " +
			"through Unikorn). Neutron's default egress rules are never touched. Hand a group back by removing it from the state (a `removed` block with `destroy = false`): " +
			"destroying it deletes it.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"description": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Description of the security group. Unset: a new group's is empty, and an existing " +
					"group's (an imported one's) is kept as it is, never written, and read back here. Removing it from the " +
					"configuration leaves the description as it is: set `\"\"` to clear it. Updated in place.",
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
				MarkdownDescription: "The rules, as a set. A rule is identified by its direction, protocol, ports, remote and " +
					"ether type, and by its `description` when it gives one: changing any of them replaces that rule only " +
					"(Neutron rules cannot be updated), and the other rules stay untouched. A rule that gives no " +
					"`description` is the group's rule of any description, which it keeps as it is (a rule Unikorn made, " +
					"described `unikorn managed security group rule`, is never deleted and re-made for it), and an unset " +
					"`remote_ip_prefix` is `0.0.0.0/0`, which is also what a rule without a remote prefix means; both as " +
					"Unikorn compares rules. Two rules that Neutron would call duplicates (they differ only in " +
					"`description`, or in `port = N` against `port_range = { min = N, max = N }`) are rejected at plan " +
					"time. Default: none besides Neutron's default egress rules.",
				Validators: []validator.Set{rulesUnique},
				NestedObject: schema.NestedAttributeObject{
					Validators: []validator.Object{ruleValidator},
					Attributes: map[string]schema.Attribute{
						"description": schema.StringAttribute{
							Optional: true,
							MarkdownDescription: "Description of the rule. Unset: the rule matches the group's rule of any " +
								"description and keeps it (a new rule has none).",
							Validators: []validator.String{stringvalidator.LengthBetween(1, 255)},
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
