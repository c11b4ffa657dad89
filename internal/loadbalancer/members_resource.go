package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure      = (*membersResource)(nil)
	_ resource.ResourceWithImportState    = (*membersResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*membersResource)(nil)
	_ resource.ResourceWithValidateConfig = (*membersResource)(nil)
)

// NewMembersResource is the constructor of unikorn_loadbalancer_members, which the provider
// lists.
func NewMembersResource() resource.Resource {
	return &membersResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "loadbalancer_members",
		Noun:     "load balancer members",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 30 * time.Minute, Delete: 15 * time.Minute},
	})}
}

type membersResource struct {
	adapter.ResourceBase[meta]
}

func (r *membersResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The members of one listener's pool of a `unikorn_loadbalancer`, given outside the load " +
			"balancer resource: the load balancer, its listeners, pools and health monitors can then be made while the " +
			"servers boot, and only this resource waits for the servers' addresses.\n\n" +
			"A listener's members are managed in exactly one place. Leave `members` unset (null, not `[]`) on that " +
			"listener of the `unikorn_loadbalancer`: the load balancer resource then tags the listener's pool " +
			"`" + naming.MembersExternalTag + "` and leaves its members alone. This resource holds only such a pool " +
			"(else its create fails before any change, and its plan warns); it sets the members exactly as `members` says, " +
			"each tagged `" + naming.MembersHeldTag + "`, with the load balancer resource's update: a change of one " +
			"member's weight alone updates that member, anything else is one batch update of the pool's members, tags " +
			"included (one change of the load balancer). With no members, it tags the pool itself instead. While " +
			"it holds the pool, a `unikorn_loadbalancer` whose listener gives `members` fails before any change.\n\n" +
			"**Moving members** from the load balancer resource to this resource and back replaces nothing: unset the " +
			"listener's `members` and add this resource in one apply (the load balancer is updated first, the members " +
			"stay in Octavia, and this resource takes them as they are); to move them back, give them inline again and " +
			"remove this resource in one apply (this resource is destroyed first: the pool has no members until the " +
			"load balancer's update sets them again, a few seconds).\n\n" +
			"Deletion sets the pool's members to none and takes the tag off; a load balancer or listener already gone is " +
			"fine. A refresh reads the pool's members, so that a change out of band shows in the next plan; when the load " +
			"balancer, the pool or its tag is gone, the resource is gone.\n\n" +
			"**Import** by `REGION/<loadbalancer_id>/<listener>` or `<loadbalancer_id>/<listener>` (looked for in every " +
			"served region, the provider's default first), of a pool this resource held.",
		Attributes: map[string]schema.Attribute{
			"id": adapter.IDAttribute("`<loadbalancer_id>/<listener>`."),
			"identity_id": func() schema.StringAttribute {
				a := adapter.IdentityIDAttribute("load balancer members")
				a.MarkdownDescription = "ID of the `unikorn_identity` (its Keystone project) the load balancer belongs to. " +
					"Changing it replaces the resource."

				return a
			}(),
			"listener": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the listener, as in the load balancer's `listeners[*].name`: its pool is " +
					"`lb-<name>-<listener>-pool`. Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"loadbalancer_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the load balancer (a `unikorn_loadbalancer`'s `id`). Changing it replaces the " +
					"resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"members": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "The pool's members, on the load balancer's VIP subnet, each address and port at most " +
					"once; `[]` for none. Octavia holds them as a set: their order changes nothing there.",
				NestedObject: schema.NestedAttributeObject{Attributes: memberAttributes()},
			},
			"region":   adapter.RegionAttribute("load balancer members"),
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}

// open begins operation kind on m and binds the core to the identity's project in m's region
// with scope, as the load balancer resource does (writes as the identity's user, reads and
// deletes in the privileged scope). o.id is the load balancer's ID.
func (r *membersResource) open(ctx context.Context, kind adapter.Op, m membersModel, scope cloud.Scope, diags *diag.Diagnostics,
) (*opened, bool) {
	ctx, op, ok := r.Begin(ctx, kind, m.Timeouts, diags)
	o := &opened{ctx: ctx, op: op, id: m.LoadBalancerID.ValueString(),
		name: fmt.Sprintf("listener %q of load balancer", m.Listener.ValueString())}

	if !ok {
		return o, false
	}

	o.ctx = tflog.SetField(tflog.SetField(ctx, "loadbalancer_id", o.id), "listener", m.Listener.ValueString())

	return o, o.bind(r.Cloud(), m.IdentityID.ValueString(), m.Region.ValueString(), scope, false)
}

func (r *membersResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, nil, adapter.Create, &resp.State, resp.Private, &resp.Diagnostics)
}

func (r *membersResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, req.Private, adapter.Update, &resp.State, resp.Private, &resp.Diagnostics)
}

// apply holds the members of the plan's listener (Create, Update) and records what it did.
func (r *membersResource) apply(ctx context.Context, src tfsdk.Plan, private adapter.PrivateReader, kind adapter.Op,
	dst *tfsdk.State, keep adapter.PrivateWriter, diags *diag.Diagnostics,
) {
	plan, ok := adapter.Get[membersModel](ctx, src, diags)
	if !ok {
		return
	}

	members := memberSpecs(ctx, plan.Members, diags)
	if diags.HasError() {
		return
	}

	if private != nil {
		adapter.RecallTrustor(ctx, r.Cloud(), private, plan.IdentityID.ValueString())
	}

	o, ok := r.open(ctx, kind, plan, cloud.AsIdentity, diags)
	defer o.end()

	if !ok {
		return
	}

	plan.Region = types.StringValue(o.tenant.Region())
	plan.ID = types.StringValue(membersID(plan.LoadBalancerID.ValueString(), plan.Listener.ValueString()))

	held := false

	lp, err := o.svc.HoldMembers(o.ctx, o.id, plan.Listener.ValueString(), members, kind == adapter.Create, func() {
		held = true

		if kind == adapter.Create {
			// Recorded before the members are set: a failed apply leaves a tainted resource that
			// holds the pool, never an untracked hold.
			diags.Append(dst.SetAttribute(o.ctx, path.Root("id"), plan.ID)...)
			diags.Append(dst.SetAttribute(o.ctx, path.Root("region"), plan.Region)...)
		}
	})
	if err != nil {
		o.fail(err)
	}

	if lp == nil || (!held && kind == adapter.Create) {
		return // nothing changed (an update's state stays as planned; the next refresh reads the pool)
	}

	state := plan
	state.Members = memberList(o.ctx, lp.Pool.Members, plan.Members, diags)

	diags.Append(dst.Set(o.ctx, &state)...)
	adapter.KeepTrustor(o.ctx, r.Cloud(), keep, plan.IdentityID.ValueString(), diags)
}

func (r *membersResource) openState(ctx context.Context, src tfsdk.State, kind adapter.Op, diags *diag.Diagnostics,
) (*opened, membersModel, bool) {
	state, ok := adapter.Get[membersModel](ctx, src, diags)
	if !ok {
		return &opened{ctx: ctx}, state, false
	}

	if lbID, listener, found := strings.Cut(state.ID.ValueString(), "/"); found && state.LoadBalancerID.IsNull() && state.Listener.IsNull() {
		// Only the ID is known (a list resource's result): it names both.
		state.LoadBalancerID, state.Listener = types.StringValue(lbID), types.StringValue(listener)
	}

	o, ok := r.open(ctx, kind, state, cloud.Privileged, diags)

	return o, state, ok
}

func (r *membersResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	o, state, ok := r.openState(ctx, req.State, adapter.Read, &resp.Diagnostics)
	defer o.end()

	if !ok {
		return
	}

	lp, err := o.svc.FindListenerPool(o.ctx, o.id, state.Listener.ValueString())

	switch {
	case err != nil:
		o.fail(err)
		return
	case lp == nil:
		tflog.Warn(o.ctx, "The load balancer or the listener's pool is gone; removing the members from state")
		resp.State.RemoveResource(o.ctx)

		return
	case !lp.Pool.held():
		resp.Diagnostics.AddWarning("Load balancer members no longer held",
			fmt.Sprintf("Neither pool %s (%s) of load balancer %s nor any of its members carries the tag %s any longer: "+
				"no unikorn_loadbalancer_members holds its members. The resource is removed from the state; the plan creates it again.",
				lp.PoolName, lp.Pool.PoolID, lp.LoadBalancerID, naming.MembersHeldTag))
		resp.State.RemoveResource(o.ctx)

		return
	}

	state.ID = types.StringValue(membersID(lp.LoadBalancerID, lp.Listener))
	state.Region = types.StringValue(o.tenant.Region())
	state.Members = memberList(o.ctx, lp.Pool.Members, state.Members, &resp.Diagnostics)

	if state.Members.IsNull() {
		state.Members = emptyMembers(&resp.Diagnostics)
	}

	resp.Diagnostics.Append(resp.State.Set(o.ctx, &state)...)
}

func (r *membersResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	o, state, ok := r.openState(ctx, req.State, adapter.Delete, &resp.Diagnostics)
	defer o.end()

	if ok {
		if err := o.svc.ReleaseMembers(o.ctx, o.id, state.Listener.ValueString()); err != nil {
			o.fail(err)
		}
	}
}

// ImportState takes `REGION/<loadbalancer_id>/<listener>` or `<loadbalancer_id>/<listener>`
// (looked for in every served region, the default first), finds the load balancer and the
// identity it belongs to, and leaves the rest to Read.
func (r *membersResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	region, lbID, listener, err := splitMembersID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Error importing load balancer members", err.Error())
		return
	}

	sub := req
	sub.ID = lbID

	if region != "" {
		sub.ID = region + "/" + lbID
	}

	_, ok := r.ImportRegional(ctx, sub, resp, func(ctx context.Context, region, id string) (cloud.Located, error) {
		loc, err := Locate(ctx, r.Cloud(), region, id)
		if err != nil {
			return loc, err
		}

		return cloud.Located{ID: membersID(loc.ID, listener), ProjectID: loc.ProjectID}, nil
	})
	if !ok {
		return
	}

	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("loadbalancer_id"), lbID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("listener"), listener)...)
}

// ModifyPlan applies the one region rule, plans the `id`, and, when the resource is created
// for a load balancer that exists already, looks at the listener's pool in Octavia: a pool
// whose members the load balancer resource manages inline, or that another
// unikorn_loadbalancer_members holds, is warned of (the apply refuses it before any change,
// unless this apply's update of the load balancer unsets the listener's members first, which
// a plan cannot see).
func (r *membersResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[membersModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	plan := &p.Plan

	plan.Region = r.PlanRegion(plan.Region, p.Config.Region, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	if knownString(plan.LoadBalancerID) && knownString(plan.Listener) {
		plan.ID = types.StringValue(membersID(plan.LoadBalancerID.ValueString(), plan.Listener.ValueString()))
	}

	if p.Creating() {
		r.checkPool(ctx, *plan, &resp.Diagnostics)
	}

	if !resp.Diagnostics.HasError() {
		p.Save(ctx, resp)
	}
}

// checkPool warns, once the identity, region, load balancer and listener are known, of a pool
// this resource cannot hold as things are in Octavia now. A load balancer that exists but has
// no such pool yet (a listener added in the same apply) is fine.
func (r *membersResource) checkPool(ctx context.Context, plan membersModel, diags *diag.Diagnostics) {
	c := r.Cloud()
	if c == nil || !knownString(plan.IdentityID) || !knownString(plan.Region) || !knownString(plan.LoadBalancerID) || !knownString(plan.Listener) {
		return
	}

	cannot := func(err error) {
		tflog.Warn(ctx, "Cannot check the listener's pool at plan time; the apply checks it", map[string]any{"error": err.Error()})
	}

	t, svc, err := privileged(ctx, c, plan.IdentityID.ValueString(), plan.Region.ValueString())
	if err != nil {
		cannot(err)
		return
	}

	lp, err := svc.FindListenerPool(ctx, plan.LoadBalancerID.ValueString(), plan.Listener.ValueString())

	switch {
	case err != nil:
		cannot(err)
	case lp == nil:
	case lp.Pool.held():
		diags.AddAttributeWarning(path.Root("listener"), "Members held already",
			(&AlreadyHeldError{Region: t.Region(), LoadBalancerID: lp.LoadBalancerID, Listener: lp.Listener, PoolID: lp.Pool.PoolID}).Error()+
				". Unless this apply destroys the resource that holds them first, it fails before any change.")
	case !lp.Pool.MembersExternal:
		diags.AddAttributeWarning(path.Root("listener"), "Members managed by the load balancer resource",
			(&InlineMembersError{LoadBalancerID: lp.LoadBalancerID, LoadBalancer: lp.LoadBalancer, Listener: lp.Listener,
				PoolID: lp.Pool.PoolID, Unmarked: lp.Pool.PoolMark.Kind != Type}).Error()+". Unless this apply's update of that unikorn_loadbalancer unsets the "+
				"listener's members, the apply of this resource fails before any change.")
	}
}

// ValidateConfig refuses a member (address and port) listed twice.
func (r *membersResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg, ok := adapter.Get[membersModel](ctx, req.Config, &resp.Diagnostics)
	if ok {
		validateMembers(ctx, &resp.Diagnostics, path.Root("members"), cfg.Members)
	}
}

// membersID is the resource's ID: `<loadbalancer_id>/<listener>`.
func membersID(lbID, listener string) string { return lbID + "/" + listener }

// splitMembersID reads an import ID: `REGION/<loadbalancer_id>/<listener>` or
// `<loadbalancer_id>/<listener>` (region "").
func splitMembersID(id string) (region, lbID, listener string, err error) {
	parts := strings.Split(id, "/")

	switch {
	case len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "":
		return parts[0], parts[1], parts[2], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return "", parts[0], parts[1], nil
	}

	return "", "", "", errors.New("import ID " + fmt.Sprintf("%q", id) +
		" is not of the form REGION/<loadbalancer_id>/<listener> or <loadbalancer_id>/<listener>")
}

// emptyMembers is an empty members list.
func emptyMembers(diags *diag.Diagnostics) types.List {
	v, d := types.ListValue(memberType, nil)
	diags.Append(d...)

	return v
}

// knownString tells whether v is neither null nor unknown.
func knownString(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }

// membersModel is the state of unikorn_loadbalancer_members.
type membersModel struct {
	ID             types.String   `tfsdk:"id"`
	IdentityID     types.String   `tfsdk:"identity_id"`
	Listener       types.String   `tfsdk:"listener"`
	LoadBalancerID types.String   `tfsdk:"loadbalancer_id"`
	Members        types.List     `tfsdk:"members"`
	Region         types.String   `tfsdk:"region"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}
