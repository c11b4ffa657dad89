package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*serverResource)(nil)
	_ resource.ResourceWithImportState = (*serverResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*serverResource)(nil)
)

// meta is what this package needs from the provider's client bundle: the cloud, and the
// flavor and image catalogs (shared listings) for the plan-time checks.
type meta interface {
	Cloud() *cloud.Client
	FlavorCache() *flavor.Cache
	FlavorOverrides() flavor.Overrides
	ImageCache() *image.Cache
}

// Default timeouts of the operations.
const (
	defaultCreateTimeout = 30 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 30 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)

// Private state keys.
const (
	// privateFlavor holds {"id": ..., "name": ...}: the flavor the server was last seen on.
	// Nova names a server's flavor without its ID; the pair spares a flavor lookup per refresh.
	privateFlavor = "flavor"
	// privateUserDataUnknown marks an imported server, whose user data nobody can read back:
	// the next apply records the configured user data's hash without rebuilding.
	privateUserDataUnknown = "user_data_unknown"
)

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &serverResource{}
}

type serverResource struct {
	meta meta
}

func (r *serverResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_server"
}

func (r *serverResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A server in an identity's project: the Neutron port `server-<name>` on a network (with its " +
			"security groups and allowed address pairs), the Nova server `<name>` on that port, and optionally a floating " +
			"IP. They are made as the identity's own user (through its Keystone trust), so the cloud records them as that " +
			"user's. Every server carries the linkage metadata `serverID`, `organizationID`, `projectID`, `regionID` and " +
			"`region:server_id`, `identity:organization_id`, `identity:project_id`, `region:region_id` (organization and " +
			"project from the identity's Keystone tags), plus its `tags`; the metadata is kept exactly so.\n\n" +
			"The port and server are found again by their exact names in the identity's project: a create adopts what an " +
			"interrupted apply left behind (never a twin), and a server and port of the name that do not belong together are " +
			"an error. IDs are recorded before any wait, so a server that fails to boot (Nova's `ERROR`, reported with its " +
			"fault) is left tainted, never untracked. A refresh costs two requests per server (the server and its port).\n\n" +
			"Updated in place: `security_group_ids` and `allowed_address_pairs` (port update), `public_ip`, `tags`, " +
			"`power_state` (start / stop), `flavor_id` (resize, confirmed), `image_id`, `ssh_key` and `user_data` (rebuild, " +
			"which keeps the port and its addresses but re-images the root disk). Changing `name`, `network_id`, `region`, " +
			"`identity_id` or `server_group` replaces the server.\n\n" +
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
							Validators:          []validator.String{addressValidator{}},
						},
						"mac_address": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "A MAC address. Unset: the port's own.",
							Validators:          []validator.String{macValidator{}},
						},
					},
				},
			},
			"flavor_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the Nova flavor. The plan checks it against the image (CPU architecture, root disk " +
					"size, baremetal) from the flavor and image catalogs. Changing it resizes the server (and confirms the resize).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Nova server.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"identity_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the `unikorn_identity` (its Keystone project) the server belongs to. Changing it " +
					"replaces the server.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"image_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "ID of the Glance image. Changing it rebuilds the server in place.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"mac_address": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "MAC address of the server's port.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"metadata": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				MarkdownDescription: "The server's metadata as Nova holds it: the linkage keys and the translated `tags`. " +
					"Metadata changed out of band shows here and is rewritten by the next apply. The organization and project " +
					"keys are read from the identity's Keystone tags whenever the server is created or updated.",
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the Nova server; its port is called `server-<name>`. Changing it replaces the server.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{nameValidator{}},
			},
			"network_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the network (a `unikorn_network`) the server's port is on; the port takes an " +
					"address from its subnet. Changing it replaces the server.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"port_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the server's Neutron port `server-<name>`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"power_state": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(PowerRunning),
				MarkdownDescription: "`running` (the default) or `stopped`. Changing it starts or stops the server. A server " +
					"found in another state (paused, suspended, ...) is left alone; `status` shows it.",
				Validators: []validator.String{stringvalidator.OneOf(PowerStates...)},
			},
			"private_ip": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The port's fixed IP address (IPv4 first).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"provider_id": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "`openstack://REGION/ID`, the form a Kubernetes node's `spec.providerID` takes on " +
					"OpenStack.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
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
			"region": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Region of the server. Default: the provider's `region`. Changing it replaces the server.",
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"security_group_ids": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "IDs of the security groups (`unikorn_security_group`) of the server's port, exactly: " +
					"with none the port has no security group at all (and, port security being on, lets no traffic through). " +
					"Updated in place.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"server_group": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Schedule the server into its identity's server group (`server_group` of the " +
					"`unikorn_identity`). Changing it replaces the server. Default `false`.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"ssh_key": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Inject the identity's keypair (`ssh_public_key` of the `unikorn_identity`, Nova keypair `" +
					naming.KeypairName + "`). Changing it rebuilds the server. Default `false`.",
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Nova's status of the server (`ACTIVE`, `SHUTOFF`, `ERROR`, ...). A server in `ERROR` is reported with Nova's fault on every refresh.",
			},
			"tags": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Tags, written as server metadata: a key `service.domain/local-name` becomes the metadata " +
					"key `service:local_name` (e.g. `monitoring.example.com/team-name` → `monitoring:team_name`). Other keys " +
					"are rejected at plan time. The linkage keys win over a tag that translates to one of them. Updated in place.",
				Validators: []validator.Map{tagsValidator{}},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true}),
			"user_data": schema.StringAttribute{
				Optional:  true,
				WriteOnly: true,
				MarkdownDescription: "User data (for example a cloud-init document) handed to the server at boot. " +
					"Write-only: never stored in the state or plan, and never logged (Terraform 1.11 / OpenTofu 1.11 or later). " +
					"Changing it rebuilds the server, which boots again with it; `user_data_sha256` shows the change.",
				Validators: []validator.String{userDataValidator{}},
			},
			"user_data_sha256": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Hex SHA-256 of `user_data`, so that a change shows in the plan; null without user data.",
			},
		},
	}
}

func (r *serverResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		r.meta = m
	}
}

// service is the core in the identity scope (to make and change: objects belong to the
// identity's user) or the privileged scope (enough to read and delete, and independent of the
// identity's trust).
func (r *serverResource) service(ctx context.Context, m serverModel, asIdentity bool) (*Service, error) {
	c := r.meta.Cloud()
	projectID := m.IdentityID.ValueString()

	var (
		sess *cloud.Session
		err  error
	)

	if asIdentity {
		sess, err = c.Identity(ctx, projectID)
	} else {
		sess, err = c.Privileged(ctx, projectID)
	}

	if err != nil {
		return nil, err
	}

	return NewService(c, sess, m.Region.ValueString())
}

func (r *serverResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan, config serverModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan, config.UserData)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "server", spec.Name)

	svc, err := r.service(ctx, plan, true)
	if err != nil {
		resp.Diagnostics.AddError("Error creating server", fmt.Sprintf("%s in project %s: %s", spec.Name, plan.IdentityID.ValueString(), err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	out, err := svc.Ensure(ctx, spec, Known{})

	tflog.Debug(ctx, "Created the server", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		resp.Diagnostics.AddError("Error creating server", fmt.Sprintf("%s in project %s, region %s: %s",
			spec.Name, svc.ProjectID(), svc.Region(), err))

		return
	}

	// The server exists: record it whatever happened next (a failed wait leaves it tainted).
	state := plan
	flatten(&state, svc.Region(), out, plan)
	state.UserDataSHA256 = userDataHash(config.UserData)

	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(setPrivateFlavor(ctx, resp.Private, out)...)
	addNotes(&resp.Diagnostics, out)

	if err != nil {
		resp.Diagnostics.AddError("Error creating server", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			spec.Name, out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *serverResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state serverModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Read(ctx, defaultReadTimeout)
	resp.Diagnostics.Append(diags...)

	known, diags := knownOf(ctx, state, req.Private)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "server_id", known.ServerID)

	svc, err := r.service(ctx, state, false)
	if err != nil {
		resp.Diagnostics.AddError("Error reading server", fmt.Sprintf("%s (%s): %s", state.Name.ValueString(), known.ServerID, err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	out, err := svc.Observe(ctx, state.Name.ValueString(), known)
	if err != nil {
		resp.Diagnostics.AddError("Error reading server", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			state.Name.ValueString(), known.ServerID, svc.ProjectID(), svc.Region(), err))

		return
	}

	tflog.Debug(ctx, "Read the server", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		tflog.Warn(ctx, "The server is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	prior := state
	flatten(&state, svc.Region(), out, prior)

	if out.Status == statusError {
		resp.Diagnostics.AddWarning("Server is in ERROR",
			fmt.Sprintf("Server %s (%s) in region %s is in ERROR: %s. Replace it with `-replace` (or fix it in the cloud).",
				out.Name, out.ID, svc.Region(), out.Fault))
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(setPrivateFlavor(ctx, resp.Private, out)...)
}

func (r *serverResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state, config serverModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan, config.UserData)
	resp.Diagnostics.Append(diags...)

	known, diags := knownOf(ctx, state, req.Private)
	resp.Diagnostics.Append(diags...)

	imported, diags := req.Private.GetKey(ctx, privateUserDataUnknown)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	// After an import nobody knows the server's user data: the first apply records the hash only.
	hash := userDataHash(config.UserData)
	unknownUserData := imported != nil && state.UserDataSHA256.IsNull()
	spec.RebuildForUserData = !hash.Equal(state.UserDataSHA256) && !unknownUserData

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "server_id", known.ServerID)

	svc, err := r.service(ctx, plan, true)
	if err != nil {
		resp.Diagnostics.AddError("Error updating server", fmt.Sprintf("%s (%s): %s", spec.Name, known.ServerID, err))
		return
	}

	out, err := svc.Ensure(ctx, spec, known)
	if out == nil {
		resp.Diagnostics.AddError("Error updating server", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			spec.Name, known.ServerID, svc.ProjectID(), svc.Region(), err))

		return
	}

	newState := plan
	flatten(&newState, svc.Region(), out, plan)
	newState.UserDataSHA256 = hash

	if err != nil && spec.RebuildForUserData {
		newState.UserDataSHA256 = state.UserDataSHA256 // not known to be applied: the next apply tries again
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &newState)...)
	resp.Diagnostics.Append(setPrivateFlavor(ctx, resp.Private, out)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUserDataUnknown, nil)...)
	addNotes(&resp.Diagnostics, out)

	if err != nil {
		resp.Diagnostics.AddError("Error updating server", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			spec.Name, out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *serverResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state serverModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	known := Known{ServerID: state.ID.ValueString(), PortID: state.PortID.ValueString()}
	ctx = tflog.SetField(ctx, "server_id", known.ServerID)

	svc, err := r.service(ctx, state, false)
	if err != nil {
		resp.Diagnostics.AddError("Error deleting server", fmt.Sprintf("%s (%s): %s", state.Name.ValueString(), known.ServerID, err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	if err := svc.Delete(ctx, state.Name.ValueString(), known); err != nil {
		resp.Diagnostics.AddError("Error deleting server", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			state.Name.ValueString(), known.ServerID, svc.ProjectID(), svc.Region(), err))

		return
	}

	tflog.Debug(ctx, "Deleted the server", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})
}

func (r *serverResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if r.meta == nil {
		resp.Diagnostics.AddError("Error importing server", "The provider is not configured.")
		return
	}

	region, idOrName, err := adapter.SplitImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Error importing server", fmt.Sprintf("%s (or REGION/name)", err))
		return
	}

	if region, err = r.meta.Cloud().ResolveRegion(region); err != nil {
		resp.Diagnostics.AddError("Error importing server", err.Error())
		return
	}

	loc, err := Locate(ctx, r.meta.Cloud(), region, idOrName)
	if err != nil {
		resp.Diagnostics.AddError("Error importing server", err.Error())
		return
	}

	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), loc.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("identity_id"), loc.ProjectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), loc.Name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUserDataUnknown, []byte("true"))...)
}

// ModifyPlan fills what the plan can know (the default region, the user data's hash, what
// stays as it is) and marks what the apply will change; it runs the flavor and image checks
// when either is new, and fails the plan on a mismatch.
func (r *serverResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}

	var plan, config serverModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)

	if resp.Diagnostics.HasError() {
		return
	}

	var state *serverModel

	if !req.State.Raw.IsNull() {
		state = &serverModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)

		if resp.Diagnostics.HasError() {
			return
		}
	}

	if r.meta != nil && !plan.Region.IsUnknown() {
		if _, err := r.meta.Cloud().ResolveRegion(plan.Region.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("region"), "Region not served", err.Error())
			return
		}
	}

	if plan.Region.IsUnknown() && state == nil && r.meta != nil {
		plan.Region = types.StringValue(r.meta.Cloud().DefaultRegion())
	}

	plan.UserDataSHA256 = userDataHash(config.UserData)

	switch {
	case plan.PublicIP.IsUnknown():
		plan.PublicIPAddress = types.StringUnknown()
	case !plan.PublicIP.ValueBool():
		plan.PublicIPAddress = types.StringNull()
	case state != nil && state.PublicIP.ValueBool() && !state.PublicIPAddress.IsNull():
		plan.PublicIPAddress = state.PublicIPAddress
	default:
		plan.PublicIPAddress = types.StringUnknown()
	}

	if state == nil || !plan.FlavorID.Equal(state.FlavorID) || !plan.ImageID.Equal(state.ImageID) {
		r.checkCompatibility(ctx, plan, &resp.Diagnostics)
	}

	if state != nil {
		reboot := !plan.FlavorID.Equal(state.FlavorID) || !plan.ImageID.Equal(state.ImageID) ||
			!plan.SSHKey.Equal(state.SSHKey) || !plan.PowerState.Equal(state.PowerState) ||
			(!plan.UserDataSHA256.Equal(state.UserDataSHA256) && !state.UserDataSHA256.IsNull())

		plan.Status = state.Status
		if reboot {
			plan.Status = types.StringUnknown()
		}

		plan.Metadata = plannedMetadata(ctx, plan, *state)
	}

	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// plannedMetadata is the state's metadata when it already is what the tags and linkage ask
// for, unknown (rewritten by the apply) otherwise.
func plannedMetadata(ctx context.Context, plan, state serverModel) types.Map {
	if plan.Tags.IsUnknown() || state.Metadata.IsNull() || state.Metadata.IsUnknown() {
		return types.MapUnknown(types.StringType)
	}

	var tags, md map[string]string

	if plan.Tags.ElementsAs(ctx, &tags, false).HasError() || state.Metadata.ElementsAs(ctx, &md, false).HasError() {
		return types.MapUnknown(types.StringType)
	}

	if !MetadataConverged(md, state.ID.ValueString(), state.Region.ValueString(), tags) {
		return types.MapUnknown(types.StringType)
	}

	return state.Metadata
}

// checkCompatibility runs Compatibility on the planned flavor and image, from the shared
// catalog listings of the region (and a direct read of a flavor or image they do not hold).
// What cannot be found is not checked: Nova will say what it thinks of it.
func (r *serverResource) checkCompatibility(ctx context.Context, plan serverModel, diags *diag.Diagnostics) {
	if r.meta == nil || plan.Region.IsUnknown() || plan.FlavorID.IsUnknown() || plan.ImageID.IsUnknown() {
		return
	}

	region := plan.Region.ValueString()

	f, ok := r.flavorFacts(ctx, region, plan.FlavorID.ValueString())
	if !ok {
		return
	}

	img, ok := r.imageFacts(ctx, region, plan.ImageID.ValueString())
	if !ok {
		return
	}

	for _, p := range Compatibility(f, img) {
		diags.AddAttributeError(path.Root(p.Attribute), p.Summary, p.Detail)
	}
}

// flavorFacts is the enriched flavor id of region.
func (r *serverResource) flavorFacts(ctx context.Context, region, id string) (flavor.Flavor, bool) {
	compute, err := r.meta.Cloud().Base().Compute(region)
	if err != nil {
		tflog.Warn(ctx, "Cannot check the flavor", map[string]any{"error": err.Error()})
		return flavor.Flavor{}, false
	}

	if list, err := r.meta.FlavorCache().Flavors(ctx, region, compute); err == nil {
		if i := slices.IndexFunc(list, func(f flavor.Flavor) bool { return f.ID == id }); i >= 0 {
			return list[i], true
		}
	}

	nf, err := flavors.Get(ctx, compute, id).Extract()
	if err != nil {
		tflog.Debug(ctx, "Flavor not found for the plan-time checks", map[string]any{"flavor_id": id, "error": err.Error()})
		return flavor.Flavor{}, false
	}

	return flavor.Enrich(*nf, r.meta.FlavorOverrides()), true
}

// imageFacts is the translated image id of region: from the public listing (accepted or
// rejected by the image schema, the facts are the same), else read directly.
func (r *serverResource) imageFacts(ctx context.Context, region, id string) (image.Image, bool) {
	client, err := r.meta.Cloud().Base().Image(region)
	if err != nil {
		tflog.Warn(ctx, "Cannot check the image", map[string]any{"error": err.Error()})
		return image.Image{}, false
	}

	if listing, err := r.meta.ImageCache().Images(ctx, region, "", client); err == nil {
		if i := slices.IndexFunc(listing.Images, func(img image.Image) bool { return img.ID == id }); i >= 0 {
			return listing.Images[i], true
		}

		if i := slices.IndexFunc(listing.Rejected, func(rj image.Rejected) bool { return rj.ID == id }); i >= 0 {
			return listing.Rejected[i].Image, true
		}
	}

	img, err := images.Get(ctx, client, id).Extract()
	if err != nil {
		tflog.Debug(ctx, "Image not found for the plan-time checks", map[string]any{"image_id": id, "error": err.Error()})
		return image.Image{}, false
	}

	return image.Translate(*img), true
}

// expandSpec turns the plan (and the configured user data, which never reaches the plan)
// into a Spec.
func expandSpec(ctx context.Context, m serverModel, userData types.String) (Spec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := Spec{
		Name:        m.Name.ValueString(),
		NetworkID:   m.NetworkID.ValueString(),
		FlavorID:    m.FlavorID.ValueString(),
		ImageID:     m.ImageID.ValueString(),
		PublicIP:    m.PublicIP.ValueBool(),
		ServerGroup: m.ServerGroup.ValueBool(),
		SSHKey:      m.SSHKey.ValueBool(),
		PowerState:  m.PowerState.ValueString(),
	}

	if !userData.IsNull() && !userData.IsUnknown() && userData.ValueString() != "" {
		spec.UserData = []byte(userData.ValueString())
	}

	if !m.SecurityGroupIDs.IsNull() {
		diags.Append(m.SecurityGroupIDs.ElementsAs(ctx, &spec.SecurityGroupIDs, false)...)
		slices.Sort(spec.SecurityGroupIDs)
	}

	if !m.Tags.IsNull() {
		diags.Append(m.Tags.ElementsAs(ctx, &spec.Tags, false)...)
	}

	if !m.AllowedAddressPairs.IsNull() {
		var pairs []addressPairModel

		diags.Append(m.AllowedAddressPairs.ElementsAs(ctx, &pairs, false)...)

		for _, p := range pairs {
			spec.AllowedAddressPairs = append(spec.AllowedAddressPairs,
				AddressPair{IPAddress: p.IPAddress.ValueString(), MACAddress: p.MACAddress.ValueString()})
		}
	}

	return spec, diags
}

// knownOf is what the state and private state know of the server.
func knownOf(ctx context.Context, m serverModel, private privateGetter) (Known, diag.Diagnostics) {
	known := Known{ServerID: m.ID.ValueString(), PortID: m.PortID.ValueString()}

	raw, diags := private.GetKey(ctx, privateFlavor)
	if diags.HasError() || raw == nil {
		return known, diags
	}

	var f privateFlavorValue
	if err := json.Unmarshal(raw, &f); err == nil {
		known.FlavorID, known.FlavorName = f.ID, f.Name
	}

	return known, diags
}

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type privateFlavorValue struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// setPrivateFlavor records the flavor pair of a server whose flavor ID is known.
func setPrivateFlavor(ctx context.Context, private privateSetter, out *Server) diag.Diagnostics {
	if out.FlavorID == "" || out.FlavorName == "" {
		return nil
	}

	raw, err := json.Marshal(privateFlavorValue{ID: out.FlavorID, Name: out.FlavorName})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Error recording the flavor", err.Error())

		return diags
	}

	return private.SetKey(ctx, privateFlavor, raw)
}

// addNotes turns the core's notes into warnings.
func addNotes(diags *diag.Diagnostics, out *Server) {
	for _, note := range out.Notes {
		diags.AddWarning("Server "+out.Name, note)
	}
}

// userDataHash is the hex SHA-256 of the configured user data; null without user data,
// unknown while it is. The user data itself is never kept.
func userDataHash(v types.String) types.String {
	switch {
	case v.IsUnknown():
		return types.StringUnknown()
	case v.IsNull() || v.ValueString() == "":
		return types.StringNull()
	}

	sum := sha256.Sum256([]byte(v.ValueString()))

	return types.StringValue(hex.EncodeToString(sum[:]))
}

// flatten refreshes m from the server found (out) in region, so that drift shows. prior is
// the plan (after an apply) or the state (after a read): it keeps what the cloud cannot say
// (tags, a power state Nova's status does not map) and the spelling of address pairs.
func flatten(m *serverModel, region string, out *Server, prior serverModel) {
	m.ID = types.StringValue(out.ID)
	m.Name = types.StringValue(out.Name)
	m.Region = types.StringValue(region)
	m.ProviderID = types.StringValue(ProviderID(region, out.ID))
	m.Status = types.StringValue(out.Status)
	m.SSHKey = types.BoolValue(out.KeyName != "")
	m.ServerGroup = types.BoolValue(len(out.ServerGroupIDs) > 0)
	m.PublicIP = types.BoolValue(out.PublicIPAddress != "")
	m.PublicIPAddress = stringOrNull(out.PublicIPAddress)
	m.Metadata = stringMap(out.Metadata)
	m.UserData = types.StringNull()

	if out.ProjectID != "" {
		m.IdentityID = types.StringValue(out.ProjectID)
	}

	if out.FlavorID != "" {
		m.FlavorID = types.StringValue(out.FlavorID)
	}

	if out.ImageID != "" {
		m.ImageID = types.StringValue(out.ImageID)
	}

	switch {
	case out.Status == statusActive:
		m.PowerState = types.StringValue(PowerRunning)
	case out.Status == statusShutoff:
		m.PowerState = types.StringValue(PowerStopped)
	case prior.PowerState.IsNull() || prior.PowerState.IsUnknown():
		m.PowerState = types.StringValue(PowerRunning)
	}

	if out.Port == nil {
		m.PortID = types.StringNull()
		m.MACAddress = types.StringNull()
		m.PrivateIP = types.StringNull()

		return
	}

	m.PortID = types.StringValue(out.Port.ID)
	m.MACAddress = types.StringValue(out.Port.MACAddress)
	m.PrivateIP = stringOrNull(out.Port.PrivateIP)
	m.NetworkID = types.StringValue(out.Port.NetworkID)
	m.SecurityGroupIDs = stringSetOrNull(out.Port.SecurityGroupIDs, prior.SecurityGroupIDs)
	m.AllowedAddressPairs = flattenPairs(out.Port.AllowedAddressPairs, out.Port.MACAddress, prior.AllowedAddressPairs)
}

var pairAttrTypes = map[string]attr.Type{"ip_address": types.StringType, "mac_address": types.StringType}

// flattenPairs turns the port's pairs into the attribute. A pair on the port's own MAC reads
// back without mac_address (Neutron's default), unless prior spelled it out; prior's
// spelling of an address or MAC that Neutron normalised is kept. No pairs read back as
// prior's null or empty set.
func flattenPairs(pairs []AddressPair, portMAC string, prior types.Set) types.Set {
	var priorPairs []AddressPair

	if !prior.IsNull() && !prior.IsUnknown() {
		for _, e := range prior.Elements() {
			o, ok := e.(types.Object)
			if !ok || o.IsNull() || o.IsUnknown() {
				continue
			}

			ip, _ := o.Attributes()["ip_address"].(types.String)
			mac, _ := o.Attributes()["mac_address"].(types.String)
			priorPairs = append(priorPairs, AddressPair{IPAddress: ip.ValueString(), MACAddress: mac.ValueString()})
		}
	}

	if len(pairs) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.SetNull(types.ObjectType{AttrTypes: pairAttrTypes})
	}

	elems := make([]attr.Value, 0, len(pairs))

	for _, p := range pairs {
		ip, mac := types.StringValue(p.IPAddress), types.StringValue(p.MACAddress)
		spelledOut := false

		for _, pp := range priorPairs {
			if !sameAddress(pp.IPAddress, p.IPAddress) {
				continue
			}

			ip = types.StringValue(pp.IPAddress)

			if pp.MACAddress != "" && strings.EqualFold(pp.MACAddress, p.MACAddress) {
				mac = types.StringValue(pp.MACAddress)
				spelledOut = true
			}
		}

		if !spelledOut && strings.EqualFold(p.MACAddress, portMAC) {
			mac = types.StringNull()
		}

		elems = append(elems, types.ObjectValueMust(pairAttrTypes, map[string]attr.Value{"ip_address": ip, "mac_address": mac}))
	}

	return types.SetValueMust(types.ObjectType{AttrTypes: pairAttrTypes}, elems)
}

// sameAddress compares two addresses or CIDRs by value ("10.0.0.1" is "10.0.0.1/32").
func sameAddress(a, b string) bool {
	pa, errA := toPrefix(a)
	pb, errB := toPrefix(b)

	if errA != nil || errB != nil {
		return a == b
	}

	return pa == pb
}

func toPrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}

	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}

	return p.Masked(), nil
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}

	return types.StringValue(s)
}

// stringSetOrNull is the set of values; none reads back as prior's null or empty set.
func stringSetOrNull(values []string, prior types.Set) types.Set {
	if len(values) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.SetNull(types.StringType)
	}

	elems := make([]attr.Value, 0, len(values))
	for _, v := range values {
		elems = append(elems, types.StringValue(v))
	}

	return types.SetValueMust(types.StringType, elems)
}

func stringMap(values map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}

	return types.MapValueMust(types.StringType, elems)
}

// serverModel is the resource's state.
type serverModel struct {
	AllowedAddressPairs types.Set      `tfsdk:"allowed_address_pairs"`
	FlavorID            types.String   `tfsdk:"flavor_id"`
	ID                  types.String   `tfsdk:"id"`
	IdentityID          types.String   `tfsdk:"identity_id"`
	ImageID             types.String   `tfsdk:"image_id"`
	MACAddress          types.String   `tfsdk:"mac_address"`
	Metadata            types.Map      `tfsdk:"metadata"`
	Name                types.String   `tfsdk:"name"`
	NetworkID           types.String   `tfsdk:"network_id"`
	PortID              types.String   `tfsdk:"port_id"`
	PowerState          types.String   `tfsdk:"power_state"`
	PrivateIP           types.String   `tfsdk:"private_ip"`
	ProviderID          types.String   `tfsdk:"provider_id"`
	PublicIP            types.Bool     `tfsdk:"public_ip"`
	PublicIPAddress     types.String   `tfsdk:"public_ip_address"`
	Region              types.String   `tfsdk:"region"`
	SecurityGroupIDs    types.Set      `tfsdk:"security_group_ids"`
	ServerGroup         types.Bool     `tfsdk:"server_group"`
	SSHKey              types.Bool     `tfsdk:"ssh_key"`
	Status              types.String   `tfsdk:"status"`
	Tags                types.Map      `tfsdk:"tags"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
	UserData            types.String   `tfsdk:"user_data"`
	UserDataSHA256      types.String   `tfsdk:"user_data_sha256"`
}

// addressPairModel is one of allowed_address_pairs.
type addressPairModel struct {
	IPAddress  types.String `tfsdk:"ip_address"`
	MACAddress types.String `tfsdk:"mac_address"`
}
