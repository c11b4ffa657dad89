package loadbalancer

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure      = (*loadBalancerResource)(nil)
	_ resource.ResourceWithImportState    = (*loadBalancerResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*loadBalancerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*loadBalancerResource)(nil)
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	// LoadBalancerSingleCallCreate opts into Octavia's fully-populated single-call create.
	LoadBalancerSingleCallCreate() bool
	// LoadBalancerNetworkCache is the run's VIP network lookups, shared by every plan.
	LoadBalancerNetworkCache() *NetworkCache
}

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &loadBalancerResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "loadbalancer",
		Noun:     "load balancer",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 30 * time.Minute, Delete: 15 * time.Minute},
	})}
}

type loadBalancerResource struct {
	adapter.ResourceBase[meta]
}

// opened is a CRUD call in progress on one load balancer, bound to its tenant.
type opened struct {
	ctx    context.Context
	op     *adapter.Operation
	svc    *Service
	tenant *cloud.Tenant
	name   string // lb-<name>; for unikorn_loadbalancer_members, the listener of the load balancer
	id     string // the load balancer's ID
}

// end ends the operation (nothing when none began).
func (o *opened) end() {
	if o.op != nil {
		o.op.End(o.ctx)
	}
}

// fail reports err about the load balancer (its ID, when known, and where it is).
func (o *opened) fail(err error) {
	var where fmt.Stringer
	if o.tenant != nil {
		where = o.tenant
	}

	o.op.Fail(adapter.Subject(o.name, o.id, where), err)
}

// open begins operation kind on load balancer m and binds the core to the identity's
// project in m's region with scope: writes act as the identity's user (what they make is that
// user's), reads and deletes use the privileged scope, so that a broken or missing trust never
// blocks a refresh or a destroy. The caller ends o.op; false when the call cannot go on (the
// diagnostics say why).
func (r *loadBalancerResource) open(ctx context.Context, kind adapter.Op, m loadBalancerModel, scope cloud.Scope,
	diags *diag.Diagnostics,
) (*opened, bool) {
	ctx, op, ok := r.Begin(ctx, kind, m.Timeouts, diags)
	o := &opened{ctx: ctx, op: op, name: naming.LoadBalancer(m.Name.ValueString()), id: m.ID.ValueString()}

	if !ok {
		return o, false
	}

	o.ctx = tflog.SetField(tflog.SetField(ctx, "loadbalancer", o.name), "loadbalancer_id", o.id)

	if !o.bind(r.Cloud(), m.IdentityID.ValueString(), m.Region.ValueString(), scope, r.Meta.LoadBalancerSingleCallCreate()) {
		return o, false
	}

	o.svc.Networks = r.Meta.LoadBalancerNetworkCache()

	return o, true
}

// bind binds the core of o to the identity's project in region with scope; false (o has
// failed) when it cannot.
func (o *opened) bind(c *cloud.Client, identityID, region string, scope cloud.Scope, singleCallCreate bool) bool {
	t, err := c.Tenant(o.ctx, identityID, region, scope)
	if err == nil {
		o.tenant = t
		o.svc, err = NewService(t, singleCallCreate)
	}

	if err != nil {
		o.fail(err)
		return false
	}

	return true
}

func (r *loadBalancerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := adapter.Get[loadBalancerModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}

	spec, diags := expandSpec(ctx, plan)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}

	o, ok := r.open(ctx, adapter.Create, plan, cloud.AsIdentity, &resp.Diagnostics)
	defer o.end()

	if !ok {
		return
	}

	ctx, region := o.ctx, o.tenant.Region()
	plan.Region = types.StringValue(region)

	id, top, err := o.svc.Create(ctx, spec, func(got string) {
		// Recorded before the first wait: a failed or interrupted create leaves a tainted
		// resource that knows its load balancer.
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), got)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
	})
	if o.id = id; err != nil {
		o.fail(err)
	}

	if w := Adopted(top, o.tenant.String()); w != "" {
		resp.Diagnostics.AddWarning("Adopted an existing load balancer", w)
	}

	if id != "" {
		state := applied(ctx, plan, id, top, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		keepMemo(ctx, resp.Private, memoOf(top, err), &resp.Diagnostics)
		adapter.KeepTrustor(ctx, r.Cloud(), resp.Private, plan.IdentityID.ValueString(), &resp.Diagnostics)
	}
}

// openState reads the state and opens kind on it in the privileged scope (Read, Delete).
func (r *loadBalancerResource) openState(ctx context.Context, src tfsdk.State, kind adapter.Op, diags *diag.Diagnostics,
) (*opened, loadBalancerModel, bool) {
	state, ok := adapter.Get[loadBalancerModel](ctx, src, diags)
	if !ok {
		return &opened{ctx: ctx}, state, false
	}

	o, ok := r.open(ctx, kind, state, cloud.Privileged, diags)

	return o, state, ok
}

func (r *loadBalancerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	o, state, ok := r.openState(ctx, req.State, adapter.Read, &resp.Diagnostics)
	defer o.end()

	if !ok {
		return
	}

	o.svc.Memo = adapter.GetPrivate[Memo](o.ctx, req.Private, privateMemo)
	top, err := o.svc.Observe(o.ctx, o.id, state.Name.ValueString())

	switch {
	case err != nil:
		o.fail(err)
		return
	case top == nil:
		tflog.Warn(o.ctx, "The load balancer is gone; removing it from state")
		resp.State.RemoveResource(o.ctx)

		return
	case o.id != "" && top.ID != o.id:
		resp.Diagnostics.AddWarning("Load balancer found again by name", Refound(o.id, top, o.tenant.String()))
	}

	state.Region = types.StringValue(o.tenant.Region())
	next := observed(o.ctx, state, top, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(o.ctx, &next)...)
	keepMemo(o.ctx, resp.Private, top.memo(), &resp.Diagnostics)
}

func (r *loadBalancerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, ok := adapter.Get[loadBalancerModel](ctx, req.Plan, &resp.Diagnostics)
	state, stateOK := adapter.Get[loadBalancerModel](ctx, req.State, &resp.Diagnostics)

	if !ok || !stateOK {
		return
	}

	spec, diags := expandSpec(ctx, plan)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}

	plan.ID, plan.Region = state.ID, state.Region

	adapter.RecallTrustor(ctx, r.Cloud(), req.Private, plan.IdentityID.ValueString())

	o, ok := r.open(ctx, adapter.Update, plan, cloud.AsIdentity, &resp.Diagnostics)
	defer o.end()

	if !ok {
		return
	}

	o.svc.Memo = adapter.GetPrivate[Memo](o.ctx, req.Private, privateMemo)

	id, top, err := o.svc.Update(o.ctx, spec, o.id)
	if o.id = id; err != nil {
		o.fail(err)
	}

	next := applied(o.ctx, plan, id, top, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(o.ctx, &next)...)
	keepMemo(o.ctx, resp.Private, memoOf(top, err), &resp.Diagnostics)
	adapter.KeepTrustor(o.ctx, r.Cloud(), resp.Private, plan.IdentityID.ValueString(), &resp.Diagnostics)
}

// privateMembers is the key under which providers before the children's Memo kept a memo
// of the members alone: dropped whenever the Memo is kept.
const privateMembers = "members"

// keepMemo keeps m (nil: none) in the resource's private state.
func keepMemo(ctx context.Context, dst adapter.PrivateWriter, m *Memo, diags *diag.Diagnostics) {
	adapter.SetPrivate(ctx, dst, privateMemo, m, diags)
	adapter.SetPrivate[Memo](ctx, dst, privateMembers, nil, diags)
}

// memoOf is the memo of t as a create or update (whose error is err) left it: its updated_at
// and child IDs are the last change's (converge) and the IDs of a batch's members come from the
// status tree (settle). nil when there is no t, or the apply failed: what a failure left is
// listed again by the next read.
func memoOf(t *Topology, err error) *Memo {
	if err != nil {
		return nil
	}

	return t.memo()
}

func (r *loadBalancerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	o, state, ok := r.openState(ctx, req.State, adapter.Delete, &resp.Diagnostics)
	defer o.end()

	if ok {
		if err := o.svc.Delete(o.ctx, o.id, state.Name.ValueString()); err != nil {
			o.fail(err)
		}
	}
}

// ImportState takes `REGION/ID`, `REGION/name`, `ID` or `name`, finds the load balancer and
// the identity it belongs to, and leaves the rest to Read.
func (r *loadBalancerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		return Locate(ctx, r.Cloud(), region, idOrName)
	})
}
