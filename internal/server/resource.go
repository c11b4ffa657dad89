package server

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

var (
	_ resource.ResourceWithConfigure      = (*serverResource)(nil)
	_ resource.ResourceWithImportState    = (*serverResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serverResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serverResource)(nil)
)

// meta is what this package needs from the provider's client bundle: the cloud, and for the
// server's checks the flavor, image and volume class catalogs (the run's shared listings) and
// the run's memo of the other reads.
type meta interface {
	Cloud() *cloud.Client
	FlavorCache() *flavor.Cache
	ImageCache() *image.Cache
	VolumeClassCache() *volume.Cache
	ServerCheckCache() *CheckCache
}

// Private state keys.
const (
	// privateFlavor holds {"id": ..., "name": ...}: the flavor the server was last seen on.
	// Nova names a server's flavor without its ID; the pair spares a flavor lookup per refresh.
	privateFlavor = "flavor"
	// privateUserDataUnknown marks an imported server, whose user data nobody can read back:
	// the next apply records the configured user data's hash without rebuilding.
	privateUserDataUnknown = "user_data_unknown"
	// privateMade holds {"made": bool}: whether the server carried this provider's creation mark
	// when last seen, for the plan to tell which rule its metadata follows (Server.Made); the
	// apply asks the cloud again.
	privateMade = "made"
)

// madeMemo is what privateMade holds.
type madeMemo struct {
	Made bool `json:"made"`
}

// madeOf is what the private state says of whether this provider made the server; true when it
// does not say (a state written before it was kept): the plan of such a server's metadata is
// then the exact rule's, at worst unknown where the apply changes nothing.
func madeOf(ctx context.Context, src adapter.PrivateReader) bool {
	if m := adapter.GetPrivate[madeMemo](ctx, src, privateMade); m != nil {
		return m.Made
	}

	return true
}

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &serverResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "server",
		Noun:     "server",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 30 * time.Minute, Delete: 30 * time.Minute},
	})}
}

type serverResource struct {
	adapter.ResourceBase[meta]
}

// service is the core bound to m's tenant with scope: cloud.AsIdentity to make and change (the
// objects belong to the identity's user), cloud.Privileged to read and delete (which a broken
// or missing trust never blocks).
func (r *serverResource) service(ctx context.Context, m serverModel, scope cloud.Scope) (*Service, error) {
	t, err := r.Cloud().Tenant(ctx, m.IdentityID.ValueString(), m.Region.ValueString(), scope)
	if err != nil {
		return nil, err
	}

	return NewService(t)
}

// makingService is the core bound to make or change the server of m: as the identity, and,
// for a pinned server (host or hypervisor_hostname), with the privileged scope that creates it
// (Service.Pin).
func (r *serverResource) makingService(ctx context.Context, m serverModel) (*Service, error) {
	svc, err := r.service(ctx, m, cloud.AsIdentity)
	if err != nil || (m.Host.ValueString() == "" && m.HypervisorHostname.ValueString() == "") {
		return svc, err
	}

	priv, err := r.Cloud().Tenant(ctx, m.IdentityID.ValueString(), m.Region.ValueString(), cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return svc, svc.Pin(priv)
}

// confirmHost checks, in the admin scope, that the server id of m runs on m's host and
// hypervisor: a host or hypervisor_hostname set on a server recorded without one (an import) is
// recorded only when it is where the server is.
func (r *serverResource) confirmHost(ctx context.Context, m serverModel, id string) error {
	admin, err := r.Cloud().Tenant(ctx, m.IdentityID.ValueString(), m.Region.ValueString(), cloud.Admin)
	if err != nil {
		return err
	}

	compute, err := admin.Compute()
	if err != nil {
		return err
	}

	host, hypervisor, err := hostOf(ctx, compute, id)
	if err != nil {
		return admin.AdminRefusal("Nova", "reading the host of server "+id, err)
	}

	for _, pin := range []struct {
		attribute, has string
		want           types.String
	}{{"host", host, m.Host}, {"hypervisor_hostname", hypervisor, m.HypervisorHostname}} {
		if want := pin.want.ValueString(); !pin.want.IsNull() && pin.has != want {
			return fmt.Errorf("server %s runs on %s %q, not on %q: set %s = %q, or replace the server "+
				"(terraform apply -replace) to pin it to %s", id, pin.attribute, pin.has, want, pin.attribute, pin.has, want)
		}
	}

	return nil
}

// where names m's tenant for messages before it is bound.
type where serverModel

func (w where) String() string { return tenantName(w.IdentityID.ValueString(), w.Region.ValueString()) }

// open reads the model out of src and opens operation op on it. End must be called whatever
// it returns; false when the model or the timeouts could not be read.
func (r *serverResource) open(ctx context.Context, op adapter.Op, src adapter.Source, diags *diag.Diagnostics) (
	context.Context, serverModel, *adapter.Operation, bool,
) {
	m, ok := adapter.Get[serverModel](ctx, src, diags)
	ctx, o, begun := r.Begin(ctx, op, m.Timeouts, diags)

	return ctx, m, o, ok && begun
}

// record writes the server as the apply left it (m refreshed from out) to the state, with its
// flavor pair and notes, and reports err.
func record(ctx context.Context, op *adapter.Operation, resp *tfsdk.State, private privateSetter, m serverModel, out *Server,
	svc *Service, err error, diags *diag.Diagnostics,
) {
	diags.Append(resp.Set(ctx, &m)...)
	diags.Append(setPrivateFlavor(ctx, private, out)...)
	adapter.SetPrivate(ctx, private, privateMade, &madeMemo{Made: out.Made}, diags)
	addNotes(diags, out)

	if err != nil {
		op.Fail(adapter.Subject(m.Name.ValueString(), out.ID, svc), err)
	}
}

func (r *serverResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, plan, op, ok := r.open(ctx, adapter.Create, req.Plan, &resp.Diagnostics)
	defer op.End(ctx)

	config, _ := adapter.Get[serverModel](ctx, req.Config, &resp.Diagnostics)
	spec, diags := expandSpec(ctx, plan, config.UserData)
	resp.Diagnostics.Append(diags...)

	if !ok || resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "server", spec.Name)
	subject := adapter.Subject(spec.Name, "", where(plan))

	// What the plan could not check yet (values only the apply knows) stops here, before the
	// port is made.
	if !r.check(ctx, preflightOf(ctx, plan, nil), &resp.Diagnostics, func(err error) { op.Fail(subject, err) }) {
		return
	}

	svc, err := r.makingService(ctx, plan)
	if err != nil {
		op.Fail(subject, err)
		return
	}

	out, err := svc.Ensure(ctx, spec, Known{})
	if out == nil {
		op.Fail(adapter.Subject(spec.Name, "", svc), err)
		return
	}

	// The server exists: record it whatever happened next (a failed wait leaves it tainted).
	state := plan
	flatten(&state, svc.Region(), out, plan)
	state.UserDataSHA256 = userDataHash(config.UserData)

	record(ctx, op, &resp.State, resp.Private, state, out, svc, err, &resp.Diagnostics)
	adapter.KeepTrustor(ctx, r.Cloud(), resp.Private, plan.IdentityID.ValueString(), &resp.Diagnostics)
}

func (r *serverResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, state, op, ok := r.open(ctx, adapter.Read, req.State, &resp.Diagnostics)
	defer op.End(ctx)

	known, diags := knownOf(ctx, state, req.Private)
	resp.Diagnostics.Append(diags...)

	if !ok || resp.Diagnostics.HasError() {
		return
	}

	name := state.Name.ValueString()
	ctx = tflog.SetField(ctx, "server_id", known.ServerID)

	svc, err := r.service(ctx, state, cloud.Privileged)
	if err != nil {
		op.Fail(adapter.Subject(name, known.ServerID, where(state)), err)
		return
	}

	out, err := svc.Observe(ctx, name, known)
	if err != nil {
		op.Fail(adapter.Subject(name, known.ServerID, svc), err)
		return
	}

	if out == nil {
		tflog.Warn(ctx, "The server is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	// A server or port found again by name in place of a recorded one is said, so that the plan
	// shows it before anything acts on it.
	addNotes(&resp.Diagnostics, out)

	prior := state
	flatten(&state, svc.Region(), out, prior)

	if out.Status == statusError {
		resp.Diagnostics.AddWarning("Server is in ERROR",
			fmt.Sprintf("Server %s (%s) in region %s is in ERROR: %s. Replace it with `-replace` (or fix it in the cloud).",
				out.Name, out.ID, svc.Region(), out.Fault))
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(setPrivateFlavor(ctx, resp.Private, out)...)
	adapter.SetPrivate(ctx, resp.Private, privateMade, &madeMemo{Made: out.Made}, &resp.Diagnostics)
}

func (r *serverResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, plan, op, ok := r.open(ctx, adapter.Update, req.Plan, &resp.Diagnostics)
	defer op.End(ctx)

	state, _ := adapter.Get[serverModel](ctx, req.State, &resp.Diagnostics)
	config, _ := adapter.Get[serverModel](ctx, req.Config, &resp.Diagnostics)

	spec, diags := expandSpec(ctx, plan, config.UserData)
	resp.Diagnostics.Append(diags...)

	known, diags := knownOf(ctx, state, req.Private)
	resp.Diagnostics.Append(diags...)

	imported, diags := req.Private.GetKey(ctx, privateUserDataUnknown)
	resp.Diagnostics.Append(diags...)

	if !ok || resp.Diagnostics.HasError() {
		return
	}

	// After an import nobody knows the server's user data: the first apply records the hash only.
	hash := userDataHash(config.UserData)
	unknownUserData := imported != nil && state.UserDataSHA256.IsNull()
	spec.RebuildForUserData = !hash.Equal(state.UserDataSHA256) && !unknownUserData

	ctx = tflog.SetField(ctx, "server_id", known.ServerID)
	subject := adapter.Subject(spec.Name, known.ServerID, where(plan))

	if !r.check(ctx, preflightOf(ctx, plan, &state), &resp.Diagnostics, func(err error) { op.Fail(subject, err) }) {
		return
	}

	if ((!plan.Host.IsNull() && !plan.Host.Equal(state.Host)) ||
		(!plan.HypervisorHostname.IsNull() && !plan.HypervisorHostname.Equal(state.HypervisorHostname))) && known.ServerID != "" {
		if err := r.confirmHost(ctx, plan, known.ServerID); err != nil {
			op.Fail(subject, err)
			return
		}
	}

	adapter.RecallTrustor(ctx, r.Cloud(), req.Private, plan.IdentityID.ValueString())

	svc, err := r.makingService(ctx, plan)
	if err != nil {
		op.Fail(subject, err)
		return
	}

	out, err := svc.Ensure(ctx, spec, known)
	if out == nil {
		op.Fail(adapter.Subject(spec.Name, known.ServerID, svc), err)
		return
	}

	newState := plan
	flatten(&newState, svc.Region(), out, plan)
	newState.UserDataSHA256 = hash

	if err != nil && spec.RebuildForUserData {
		newState.UserDataSHA256 = state.UserDataSHA256 // not known to be applied: the next apply tries again
	}

	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUserDataUnknown, nil)...)
	record(ctx, op, &resp.State, resp.Private, newState, out, svc, err, &resp.Diagnostics)
	adapter.KeepTrustor(ctx, r.Cloud(), resp.Private, plan.IdentityID.ValueString(), &resp.Diagnostics)
}

func (r *serverResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, state, op, ok := r.open(ctx, adapter.Delete, req.State, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return
	}

	name := state.Name.ValueString()
	known := Known{
		ServerID: state.ID.ValueString(), PortID: state.PortID.ValueString(),
		RootVolumeID: state.RootVolumeID.ValueString(), RootVolumeGoes: rootVolumeGoes(ctx, state.RootVolume),
	}
	ctx = tflog.SetField(ctx, "server_id", known.ServerID)

	svc, err := r.service(ctx, state, cloud.Privileged)
	if err != nil {
		op.Fail(adapter.Subject(name, known.ServerID, where(state)), err)
		return
	}

	if err := svc.Delete(ctx, name, known); err != nil {
		op.Fail(adapter.Subject(name, known.ServerID, svc), err)
	}
}

// ImportState imports a server from `REGION/ID`, `REGION/name`, `ID` or `name`, in whatever
// project it is. Its user data cannot be read back: the next apply records the hash only.
func (r *serverResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	_, ok := r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		return Locate(ctx, r.Cloud(), region, idOrName)
	})
	if ok {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUserDataUnknown, []byte("true"))...)
	}
}
