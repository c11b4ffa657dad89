package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

// summaryCheck is the summary of a check that could not run (the cloud did not answer).
const summaryCheck = "Error checking server"

// ModifyPlan fills what the plan can know (the region by the one region rule, the user data's
// hash, what stays as it is) and marks what the apply will change. It runs the server's checks
// (Checker) on what is new and known, and fails the plan on a problem; Terraform plans again
// during the apply, when the values only the apply knows are known, so that the checks run
// again there, before anything is made.
func (r *serverResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[serverModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	plan, config, state := &p.Plan, p.Config, p.State

	plan.Region = r.PlanRegion(plan.Region, config.Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	plan.UserDataSHA256 = userDataHash(config.UserData)

	priorFlag, prior := types.BoolNull(), types.StringNull()
	if state != nil {
		priorFlag, prior = state.PublicIP, state.PublicIPAddress
	}

	plan.PublicIPAddress = adapter.PlanFlaggedValue(plan.PublicIP, priorFlag, prior)

	if r.Configured() {
		r.check(ctx, preflightOf(ctx, *plan, state), &resp.Diagnostics, func(err error) {
			resp.Diagnostics.AddError(summaryCheck, err.Error())
		})

		r.checkRootClass(ctx, config, state, plan.Region, &resp.Diagnostics)
	}

	if state != nil && !replaces(*plan, *state) {
		warnRebuild(*plan, *state, &resp.Diagnostics)
	}

	if state != nil {
		reboot := !plan.FlavorID.Equal(state.FlavorID) || !plan.ImageID.Equal(state.ImageID) ||
			!plan.SSHKey.Equal(state.SSHKey) || !plan.PowerState.Equal(state.PowerState) ||
			(!plan.UserDataSHA256.Equal(state.UserDataSHA256) && !state.UserDataSHA256.IsNull())

		plan.Status = state.Status
		if reboot {
			plan.Status = types.StringUnknown()
		}

		plan.Metadata = plannedMetadata(ctx, *plan, *state, madeOf(ctx, req.Private))
	}

	p.Save(ctx, resp)
}

// checkRootClass refuses a configured root_volume.volume_class that the region does not offer,
// when the server is made or its root volume's class changes (volume.CheckClass).
func (r *serverResource) checkRootClass(ctx context.Context, config serverModel, state *serverModel, region types.String, diags *diag.Diagnostics) {
	class := rootVolumeClass(ctx, config.RootVolume)

	switch {
	case class.IsNull() || class.IsUnknown() || region.IsUnknown():
		return
	case state != nil && rootVolumeClass(ctx, state.RootVolume).Equal(class):
		return
	}

	volume.CheckClass(ctx, r.Cloud(), r.Meta.VolumeClassCache(), region.ValueString(), class.ValueString(),
		path.Root("root_volume").AtName("volume_class"), diags)
}

// rootVolumeClass is root_volume.volume_class (null without root_volume, unknown while it is).
func rootVolumeClass(ctx context.Context, v types.Object) types.String {
	if v.IsUnknown() {
		return types.StringUnknown()
	}

	if rv, ok, _ := rootVolumeOf(ctx, v); ok {
		return rv.VolumeClass
	}

	return types.StringNull()
}

// check runs the server's checks of pre, adding each problem at its attribute; a check that
// could not run goes to fail. It tells whether all is well.
func (r *serverResource) check(ctx context.Context, pre Preflight, diags *diag.Diagnostics, fail func(error)) bool {
	problems, err := Checker{
		Cloud: r.Cloud(), Flavors: r.Meta.FlavorCache(), Images: r.Meta.ImageCache(), Reads: r.Meta.ServerCheckCache(),
	}.Check(ctx, pre)
	if err != nil {
		fail(err)
		return false
	}

	for _, p := range problems {
		diags.AddAttributeError(path.Root(p.Attribute), p.Summary, p.Detail)
	}

	return len(problems) == 0
}

// preflightOf is what the checks look at in plan: the values that are known and new (all of
// them when the server is made or replaced, else those that changed since state).
func preflightOf(ctx context.Context, plan serverModel, state *serverModel) Preflight {
	making := state == nil || replaces(plan, *state)
	pre := Preflight{IdentityID: known(plan.IdentityID), Region: known(plan.Region)}

	// Both when either is new: the flavor is checked against the image.
	if making || !plan.FlavorID.Equal(state.FlavorID) || !plan.ImageID.Equal(state.ImageID) {
		pre.FlavorID, pre.ImageID = known(plan.FlavorID), known(plan.ImageID)
		pre.Root = rootDiskOf(ctx, plan.RootVolume)
	}

	if making {
		pre.NetworkID = known(plan.NetworkID) // a new network replaces the server
	}

	if groups, ok := knownStrings(ctx, plan.SecurityGroupIDs); ok {
		var before []string
		if !making {
			before, _ = knownStrings(ctx, state.SecurityGroupIDs)
		}

		for _, g := range groups {
			if !slices.Contains(before, g) {
				pre.SecurityGroupIDs = append(pre.SecurityGroupIDs, g)
			}
		}
	}

	pre.HostSet = !plan.Host.IsNull() || !plan.HypervisorHostname.IsNull()
	if making {
		pre.Host, pre.Hypervisor = known(plan.Host), known(plan.HypervisorHostname)
	}

	pre.ServerGroup = making && plan.ServerGroup.ValueBool()
	pre.SSHKey = plan.SSHKey.ValueBool() && (making || !state.SSHKey.ValueBool())

	return pre
}

// rootDiskOf is where root_volume puts the root disk (its size 0 while unknown).
func rootDiskOf(ctx context.Context, v types.Object) RootDisk {
	if v.IsNull() {
		return RootDisk{}
	}

	root := RootDisk{FromVolume: true}

	if rv, ok, _ := rootVolumeOf(ctx, v); ok && !rv.SizeGB.IsUnknown() && !rv.SizeGB.IsNull() {
		root.SizeGB = int(rv.SizeGB.ValueInt64())
	}

	return root
}

// replaces tells whether the plan replaces the server of state: the attributes whose change
// requires it (RequiresReplace runs before ModifyPlan but does not tell it).
func replaces(plan, state serverModel) bool {
	return !plan.Name.Equal(state.Name) || !plan.IdentityID.Equal(state.IdentityID) ||
		!plan.NetworkID.Equal(state.NetworkID) || !plan.Region.Equal(state.Region) ||
		!plan.ServerGroup.Equal(state.ServerGroup) || movesHost(state.Host, plan.Host) ||
		movesHost(state.HypervisorHostname, plan.HypervisorHostname) || rootVolumeReplaces(plan, state) ||
		((replacesForImage(plan.ImageChange) || !plan.RootVolume.IsNull()) && !plan.ImageID.Equal(state.ImageID))
}

// What a change of image_id does (image_change).
const (
	ImageChangeRebuild = "rebuild"
	ImageChangeReplace = "replace"
)

// ImageChanges are the values of image_change.
var ImageChanges = []string{ImageChangeRebuild, ImageChangeReplace}

// replacesForImage tells whether image_change makes a change of image_id a replace (unset is
// a rebuild).
func replacesForImage(choice types.String) bool { return choice.ValueString() == ImageChangeReplace }

// rootVolumeToggles is root_volume's RequiresReplaceIf: it is added or removed.
func rootVolumeToggles(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.IsNull() != req.PlanValue.IsNull()
}

// rootVolumeReplaces tells whether the plan replaces the server of state for its root volume:
// added, removed, or any of it changed (as root_volume's plan modifiers decide it).
func rootVolumeReplaces(plan, state serverModel) bool {
	if plan.RootVolume.IsNull() || state.RootVolume.IsNull() {
		return plan.RootVolume.IsNull() != state.RootVolume.IsNull()
	}

	p, s := plan.RootVolume.Attributes(), state.RootVolume.Attributes()

	for _, k := range []string{"size_gb", "delete_on_termination", "volume_class"} {
		if pv, ok := p[k]; ok && !pv.IsUnknown() && !pv.Equal(s[k]) {
			return true
		}
	}

	return false
}

// imageReplaces is image_id's RequiresReplaceIf: image_change says replace, or the server boots
// from a volume (Nova rebuilds such a server only with the image it was made from).
func imageReplaces(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	var root types.Object

	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("root_volume"), &root)...)

	if !root.IsNull() {
		resp.RequiresReplace = true
		return
	}

	var choice types.String

	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("image_change"), &choice)...)
	resp.RequiresReplace = replacesForImage(choice)
}

// warnRebuild warns, at the attribute that causes it, that the plan rebuilds the server of state
// in place: Nova re-images its root disk, and what was written on it is lost. A rebuild follows
// a change of image_id (unless image_change replaces), of ssh_key and of user_data.
func warnRebuild(plan, state serverModel, diags *diag.Diagnostics) {
	// A server that boots from a volume keeps its volume through a rebuild (Nova re-images a
	// boot volume only from microversion 2.93 on, and with another image, which replaces it here).
	if !plan.RootVolume.IsNull() {
		return
	}

	var causes []string

	at := path.Empty()

	cause := func(changed bool, attribute, what string) {
		if !changed {
			return
		}

		if len(causes) == 0 {
			at = path.Root(attribute)
		}

		causes = append(causes, what)
	}

	cause(!plan.ImageID.Equal(state.ImageID), "image_id", fmt.Sprintf("image_id changes from %s to %s",
		state.ImageID.ValueString(), orUnknown(plan.ImageID)))
	cause(!plan.SSHKey.Equal(state.SSHKey), "ssh_key", "ssh_key changes (Nova sets a server's keypair only by a rebuild)")
	cause(!plan.UserDataSHA256.Equal(state.UserDataSHA256) && !state.UserDataSHA256.IsNull(), "user_data",
		"user_data changes (a server boots with new user data only after a rebuild)")

	if len(causes) == 0 {
		return
	}

	detail := fmt.Sprintf("Server %q (%s) will be rebuilt in place: %s. Nova re-images its root disk from the image, so "+
		"everything written on that disk since the server booted is lost; the server keeps its ID, port, addresses, "+
		"metadata and any attached volume. Take a snapshot first if the disk holds anything you need "+
		"(unikorn_server_snapshot or the unikorn_server_snapshot_now action).", state.Name.ValueString(), state.ID.ValueString(),
		strings.Join(causes, "; "))

	if !plan.ImageID.Equal(state.ImageID) {
		detail += " To make a new server instead (a replace, with a new port and addresses), set image_change = \"" +
			ImageChangeReplace + "\"."
	}

	diags.AddAttributeWarning(at, "Server "+state.Name.ValueString()+" will be rebuilt: its root disk is wiped", detail)
}

// orUnknown is v's value, or "a value known after apply".
func orUnknown(v types.String) string {
	if v.IsUnknown() {
		return "a value known after apply"
	}

	return v.ValueString()
}

// movesHost tells whether a planned host (or hypervisor_hostname) moves a pinned server to
// another one (a replace): setting it on a server without one (an import) only records where it
// runs, and unsetting it leaves the server where it is.
func movesHost(state, plan types.String) bool {
	return !state.IsNull() && !plan.IsNull() && !plan.IsUnknown() && !plan.Equal(state)
}

// hostReplaces is the RequiresReplaceIf of host and hypervisor_hostname: movesHost.
func hostReplaces(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = movesHost(req.StateValue, req.PlanValue)
}

// ValidateConfig refuses ssh_key on a pinned server (host or hypervisor_hostname): the server is
// made by the service user, and Nova takes a keypair only from the user who makes the server.
func (r *serverResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[serverModel](ctx, req.Config, &resp.Diagnostics)
	if !ok || (m.Host.IsNull() && m.HypervisorHostname.IsNull()) || !m.SSHKey.ValueBool() {
		return
	}

	resp.Diagnostics.AddAttributeError(path.Root("ssh_key"), "ssh_key on a pinned server", "A server with host or "+
		"hypervisor_hostname is created by the service user (Nova's host targeting is admin-only), and Nova injects only a "+
		"keypair of the user who creates the server, while the identity's keypair belongs to the identity's user. Install "+
		"the key with user_data (cloud-init's ssh_authorized_keys) instead.")
}

// known is a string's value, "" while it is unknown or null.
func known(v types.String) string {
	if v.IsUnknown() || v.IsNull() {
		return ""
	}

	return v.ValueString()
}

// knownStrings are the set's values; false while the set or one of them is unknown.
func knownStrings(ctx context.Context, s types.Set) ([]string, bool) {
	if s.IsUnknown() {
		return nil, false
	}

	var out []types.String
	if s.ElementsAs(ctx, &out, false).HasError() {
		return nil, false
	}

	values := make([]string, 0, len(out))

	for _, v := range out {
		if v.IsUnknown() {
			return nil, false
		}

		values = append(values, v.ValueString())
	}

	return values, true
}

// plannedMetadata is the state's metadata when it already is what the tags (and, on a server
// this provider made, the linkage) ask for, unknown (rewritten by the apply) otherwise.
func plannedMetadata(ctx context.Context, plan, state serverModel, made bool) types.Map {
	if plan.Tags.IsUnknown() || state.Metadata.IsNull() || state.Metadata.IsUnknown() {
		return types.MapUnknown(types.StringType)
	}

	var tags, prior, md map[string]string

	if plan.Tags.ElementsAs(ctx, &tags, false).HasError() || state.Metadata.ElementsAs(ctx, &md, false).HasError() ||
		(!state.Tags.IsUnknown() && state.Tags.ElementsAs(ctx, &prior, false).HasError()) {
		return types.MapUnknown(types.StringType)
	}

	if !MetadataConverged(md, state.ID.ValueString(), state.Region.ValueString(), tags, prior, made) {
		return types.MapUnknown(types.StringType)
	}

	return state.Metadata
}
