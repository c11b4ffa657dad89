package server

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func (r *serverResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A server in an identity's project: the Neutron port `server-<name>` on a network (with its " +
			"security groups and allowed address pairs), the Nova server `<name>` on that port, and optionally a floating " +
			"IP. They are made as the identity's own user (through its Keystone trust), so the cloud records them as that " +
			"user's. Every server carries the linkage metadata `serverID`, `organizationID`, `projectID`, `regionID` and " +
			"`region:server_id`, `identity:organization_id`, `identity:project_id`, `region:region_id` (organization and " +
			"project from the identity's Keystone tags), plus its `tags`; the metadata of a server this provider made is kept " +
			"exactly so. A server it did not make (imported: one that Unikorn's region service made, say) keeps its metadata " +
			"as it is but for the keys of its `tags`: its server and region IDs (Unikorn's own, not Nova's and the OpenStack " +
			"region's), the legacy keys alone of a server Unikorn made before v1.16, `identityID` of one made before v1.10, the " +
			"keys of Unikorn's own tags and any other key are never rewritten or removed; the keys of configured tags are " +
			"written, and removed again when the tag is removed.\n\n" +
			"**Adoption.** The port and server are found again by their exact names in the identity's project. A create " +
			"adopts only what an interrupted create of a `unikorn_server` left unfinished, so that a killed apply never " +
			"leaves a twin: the server carries this provider's creation mark (the metadata key `" + naming.MarkKindKey +
			"`) from its create request and the completion mark (`" + naming.MarkCompletedKey + "`) from the create's last " +
			"step, and its port is tagged `" + naming.MarkPrefix + Type + "`. A server or port of the name that is " +
			"anything else — another configuration's finished server, one Unikorn, a person or another tool made — is " +
			"refused before anything is written, with the `terraform import` command that takes it over; it is never " +
			"rebuilt, resized or re-grouped. A server and port of the name that do not belong together are an error too. " +
			"The marks are system metadata: they never show in `metadata` and no apply removes them; an imported server " +
			"never gets them. Server names are unique per identity and region, so a replacement planned with " +
			"`create_before_destroy` (a change of `server_group` or `host`, say) fails while the old server holds the " +
			"name, and leaves it untouched: give the replacement another name, or drop `create_before_destroy`. IDs are " +
			"recorded before any wait, so a server that fails to boot (Nova's `ERROR`, reported with its fault) is left " +
			"tainted, never untracked. A refresh costs two requests per server (the server and its port); a recorded " +
			"server that is gone is replaced in the state by one of its name only when that one is an unfinished create " +
			"of this kind.\n\n" +
			"Bad input stops at plan time (or, for values only the apply knows, before anything is made): an unknown " +
			"flavor or image, a flavor that cannot boot the image, a network or security group of another identity or " +
			"region, and a server group or keypair the identity does not have.\n\n" +
			"Updated in place: `security_group_ids` and `allowed_address_pairs` (port update), `public_ip`, `tags`, " +
			"`power_state` (start / stop), `flavor_id` (resize, confirmed), `image_id`, `ssh_key` and `user_data` " +
			"(**rebuild**, which keeps the port and its addresses but re-images the root disk: everything written on it is " +
			"lost, and the plan warns, naming the server). With `image_change = \"replace\"` a change of `image_id` " +
			"replaces the server instead. Changing `name`, `network_id`, `region`, `identity_id`, `server_group`, `host` or " +
			"`root_volume` replaces the server.\n\n" +
			"**Boot from volume** with `root_volume`: Nova makes the server's disk as a Cinder volume from the image (required " +
			"on a flavor without a disk); `volumes` attaches further volumes, in place.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region); the " +
			"provider's configured scope must see every project's servers, as an admin's does. Tags cannot be read back " +
			"from the metadata they become, and user data cannot be read at all: after an import the next apply writes the " +
			"tags' metadata and records the user data's hash, without rebuilding.",
		Attributes: map[string]schema.Attribute{
			"allowed_address_pairs": schema.SetNestedAttribute{
				Optional: true,
				MarkdownDescription: "Addresses (and MACs) besides its own that the port may send from, e.g. a virtual IP " +
					"shared by several servers. Updated in place.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"ip_address": schema.StringAttribute{
							Required:            true,
							MarkdownDescription: "An IP address or a CIDR.",
							Validators:          []validator.String{adapter.AddressOrPrefix()},
						},
						"mac_address": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "A MAC address. Unset: the port's own.",
							Validators:          []validator.String{adapter.MAC()},
						},
					},
				},
			},
			"flavor_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the Nova flavor. The plan checks that Nova has it and that it fits the image (RAM " +
					"against the image's `min_ram`, CPU architecture, root disk size, baremetal), from the flavor and image " +
					"catalogs. Changing it resizes the server (and confirms the resize).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Compute host (Nova's service host name, as `openstack compute service list` shows it) to " +
					"pin the server to; the scheduler may pick any of its nodes. Before anything is made, Nova must know the " +
					"host and its Placement resource provider must have room for the flavor (VCPU, MEMORY_MB, DISK_GB: " +
					"inventory less allocations), else the error names the host and the shortfall. A pinned server is created " +
					"by the service user in the identity's project (privileged scope) with Nova's host targeting " +
					"(microversion 2.74), which stock policy reserves for admin: it needs the domain-inherited admin grant " +
					"model, or a Nova policy that lets `manager` do `compute:servers:create:requested_destination`. It cannot " +
					"take `ssh_key` (the identity's keypair belongs to the identity's user; use `user_data`). A flavor " +
					"described as `pinned_only` in the provider's `flavors` requires `host` or `hypervisor_hostname`; only one " +
					"of them may be set. Changing it replaces the server; setting it on a server that has none (an import) " +
					"checks that the server runs there.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(hostReplaces,
					"Changing host replaces the server.", "Changing `host` replaces the server.")},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 255),
					stringvalidator.ConflictsWith(path.MatchRoot("hypervisor_hostname")),
				},
			},
			"hypervisor_hostname": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Hypervisor to pin the server to: Nova's `hypervisor_hostname`, one compute node (as " +
					"`openstack hypervisor list` shows it), on a baremetal cloud one Ironic node. This is how Unikorn's region " +
					"service pins a server (its `infrastructureRef`, from Unikorn v1.17). Before anything is made, Placement " +
					"must have a resource provider named like it, or whose UUID it is (as Unikorn's own preflight finds it), " +
					"whose inventory less its allocations holds the flavor (its VCPU, MEMORY_MB, DISK_GB, or the " +
					"`resources:CUSTOM_*` class of a baremetal flavor), else the error names the hypervisor and the shortfall. " +
					"Made like a server with `host`: by the service user in the identity's project with Nova's host targeting " +
					"(microversion 2.74, the same admin-only policy), and without `ssh_key`. Use it rather than `host` to " +
					"place a server on one machine: where one compute service drives many nodes (Ironic) `host` cannot; where " +
					"each compute host has one node (libvirt) the two pin alike. Only one of `host` and `hypervisor_hostname` " +
					"may be set. Changing it replaces the server; setting it on a server that has none (an import of a server " +
					"Unikorn pinned) checks that the server runs there.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(hostReplaces,
					"Changing hypervisor_hostname replaces the server.", "Changing `hypervisor_hostname` replaces the server.")},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 255),
					stringvalidator.ConflictsWith(path.MatchRoot("host")),
				},
			},
			"id":          adapter.IDAttribute("ID of the Nova server."),
			"identity_id": adapter.IdentityIDAttribute("server"),
			"image_change": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "What a change of `image_id` does. `" + ImageChangeRebuild + "` (the default, also when " +
					"unset): Nova rebuilds the server in place — it keeps its ID, port, addresses and metadata, but its root " +
					"disk is re-imaged and **everything written on it is lost**; the plan shows an update in place and warns. `" +
					ImageChangeReplace + "`: the plan replaces the server (`-/+`): a new server on a new port (new addresses) " +
					"boots from the new image, and the old one is deleted. Changing `image_change` itself changes nothing in " +
					"the cloud.",
				Validators: []validator.String{stringvalidator.OneOf(ImageChanges...)},
			},
			"image_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the Glance image. The plan checks that Glance has it, that it is active and that " +
					"the flavor (or `root_volume`) fits it. Changing it **rebuilds the server in place, which wipes its root " +
					"disk** (the plan warns, naming the server), or replaces the server with `image_change = \"" +
					ImageChangeReplace + "\"` or `root_volume`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(imageReplaces,
					"Changing image_id replaces the server when image_change is replace or the server boots from a volume.",
					"Changing `image_id` replaces the server when `image_change` is `replace` or the server boots from a volume (`root_volume`).")},
				Validators: []validator.String{adapter.UUID()},
			},
			"mac_address": adapter.StableString("MAC address of the server's port."),
			"metadata": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				MarkdownDescription: "The server's metadata as Nova holds it: the linkage keys and the translated `tags`. " +
					"On a server this provider made, metadata changed out of band shows here and is rewritten by the next apply, " +
					"and the organization and project keys are read from the identity's Keystone tags whenever the server is " +
					"created or updated. On a server it did not make (an import), only the keys of `tags` are ever written or " +
					"removed.",
			},
			"name": adapter.NameAttribute(naming.KindServer, "Name of the Nova server; its port is called `server-<name>`."),
			"network_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the network (a `unikorn_network` of the same identity and region) the server's " +
					"port is on; the port takes an address from its subnet. The plan checks that it is the identity's, in " +
					"the server's region. Changing it replaces the server.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{adapter.UUID()},
			},
			"port_id": adapter.StableString("ID of the server's Neutron port `server-<name>`."),
			"power_state": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(PowerRunning),
				MarkdownDescription: "`running` (the default) or `stopped`. Changing it starts or stops the server. A server " +
					"found in another state (paused, suspended, ...) is left alone; `status` shows it.",
				Validators: []validator.String{stringvalidator.OneOf(PowerStates...)},
			},
			"private_ip": adapter.StableString("The port's fixed IP address (IPv4 first)."),
			"provider_id": adapter.StableString("`openstack://REGION/ID`, the form a Kubernetes node's `spec.providerID` takes on " +
				"OpenStack."),
			"public_ip": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Give the server a floating IP on the external network of its network's router. " +
					"Turned on and off in place; turning it off deletes the floating IP this provider made (one attached by " +
					"hand is only detached). Default `false`.",
			},
			"public_ip_address": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The floating IP address; null without `public_ip`.",
			},
			"region": adapter.RegionAttribute("server"),
			"root_volume": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Boot the server from a volume (a Cinder volume in the server's project) that Nova makes " +
					"from `image_id` when it makes the server, instead of from the image on the flavor's local disk. Required " +
					"when the flavor has no disk (disk 0, as flavors meant for boot from volume are sized): Nova refuses to boot " +
					"an image on such a flavor to anyone but an admin (policy `compute:servers:create:zero_disk_flavor`), so " +
					"the plan refuses it. The plan checks that the volume holds the image. The volume is not one of " +
					"`volumes`, and is never detached; `root_volume_id` names it. Nova rebuilds a server that boots from a " +
					"volume only with the image it was made from, so with `root_volume` a change of `image_id` replaces the " +
					"server (a change of `ssh_key` or `user_data` still rebuilds it, which leaves the volume as it is). " +
					"Adding or removing it, or changing any of it, replaces the server. The volume's size and class are as " +
					"made: a change made to the volume out of band is not read back.",
				Attributes: map[string]schema.Attribute{
					"size_gb": schema.Int64Attribute{
						Required:            true,
						MarkdownDescription: "Size of the volume in GiB; it must hold the image.",
						Validators:          []validator.Int64{int64validator.AtLeast(1)},
						PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
					},
					"volume_class": schema.StringAttribute{
						Optional: true,
						Computed: true,
						MarkdownDescription: "ID of the volume class (Cinder volume type) of the volume: one of the region's " +
							"classes that `unikorn_volume_classes` lists (the provider's `volume_classes`), checked at plan " +
							"time. Unset: the region's default class, which this then shows.",
						Validators: []validator.String{adapter.UUID()},
						PlanModifiers: []planmodifier.String{
							stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured(),
						},
					},
					"delete_on_termination": schema.BoolAttribute{
						Optional: true,
						Computed: true,
						Default:  booldefault.StaticBool(true),
						MarkdownDescription: "Delete the volume with the server (Nova does; the destroy waits until Cinder " +
							"no longer has it). `false` keeps it after the server is gone, in the identity's project, where " +
							"the identity's destroy finds it (`force_destroy` deletes it). Default `true`.",
						PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
					},
				},
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(rootVolumeToggles,
					"Adding or removing root_volume replaces the server.", "Adding or removing `root_volume` replaces the server.")},
			},
			"root_volume_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Cinder volume the server boots from (`root_volume`); null when it boots from its image.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"security_group_ids": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "IDs of the security groups (`unikorn_security_group`, of the same identity and region) " +
					"of the server's port, exactly: with none the port has no security group at all (and, port security being " +
					"on, lets no traffic through). The plan checks that they are the identity's, in the server's region. " +
					"Updated in place.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(adapter.UUID())},
			},
			"server_group": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Schedule the server into its identity's server group (`server_group` of the " +
					"`unikorn_identity`; the plan checks that the identity has it). Changing it replaces the server. Default `false`.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"ssh_key": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Inject the identity's keypair (`ssh_public_key` of the `unikorn_identity`, Nova keypair `" +
					naming.KeypairName + "`; the plan checks that the identity has it). Changing it rebuilds the server. Default `false`.",
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Nova's status of the server (`ACTIVE`, `SHUTOFF`, `ERROR`, ...). A server in `ERROR` is reported with Nova's fault on every refresh.",
			},
			"tags": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Tags, written as server metadata by the rule of Unikorn's region service: a key that " +
					"matches `^([a-z0-9][a-z0-9-]*)\\.[^/]+/([a-z0-9][a-z0-9-]*)$` becomes the metadata key `<service>:<local_name>` " +
					"(the part before the first dot, `:`, and the part after the `/` with every `-` made `_`; e.g. " +
					"`compute.unikorn-cloud.org/cluster-id` → `compute:cluster_id`), with the tag's value. Unikorn drops any other " +
					"key silently; this provider refuses it at plan time, and also two tags that become the same metadata key " +
					"(`a.example.com/x` and `a.example.org/x`: a map has no order to say which wins). The linkage keys win over a " +
					"tag that translates to one of them (with a warning). Updated in place.",
				Validators: []validator.Map{tagsValidator{}},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"user_data": schema.StringAttribute{
				Optional:  true,
				WriteOnly: true,
				MarkdownDescription: "User data (for example a cloud-init document) handed to the server at boot. " +
					"Write-only: never stored in the state or plan, and never logged (Terraform 1.11 / OpenTofu 1.11 or later). " +
					"Changing it rebuilds the server, which boots again with it; `user_data_sha256` shows the change.",
				Validators: []validator.String{userDataValidator()},
			},
			"user_data_sha256": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Hex SHA-256 of `user_data`, so that a change shows in the plan; null without user data.",
			},
			"volumes": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "IDs of the volumes (`unikorn_volume`, of the same project and region) attached to the " +
					"server, exactly: attached and detached in place through Nova, without replacing the server, each waited " +
					"for until Cinder says it is done; a volume detached or attached out of band shows in the next plan. A " +
					"volume moved from one server to another in one apply is detached from the first while the second waits " +
					"for it (up to five minutes, then an error naming the server that keeps it). Unset: the attachments are " +
					"not managed (those made elsewhere are left alone); an empty set detaches every volume. Destroying the " +
					"server detaches its volumes (Nova), which are kept.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(adapter.UUID())},
			},
		},
	}
}
