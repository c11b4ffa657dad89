package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
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
	Cloud() *cloud.Client
	// LoadBalancerSingleCallCreate opts into Octavia's fully-populated single-call create.
	LoadBalancerSingleCallCreate() bool
}

// Default timeouts of the operations.
const (
	defaultCreateTimeout = 30 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 30 * time.Minute
	defaultDeleteTimeout = 15 * time.Minute
	// salvageTimeout bounds the read that records what a failed create or update left.
	salvageTimeout = time.Minute
)

var objectAsOptions = basetypes.ObjectAsOptions{}

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &loadBalancerResource{}
}

type loadBalancerResource struct {
	meta meta
}

func (r *loadBalancerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_loadbalancer"
}

func (r *loadBalancerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A whole Octavia load balancer as one object, in an identity's project: the load balancer " +
			"`lb-<name>` with its VIP on a network, and per listener the listener `lb-<name>-<listener>-listener`, its pool " +
			"`lb-<name>-<listener>-pool` (round robin) with its members, and an optional health monitor " +
			"`lb-<name>-<listener>-monitor`; optionally a floating IP on the VIP.\n\n" +
			"Creation goes step by step — the load balancer, then per listener: listener, pool, members in one batch, " +
			"monitor — waiting for the load balancer to be ACTIVE between steps, so that no request meets Octavia's " +
			"immutability lock. Changes are converged in place, listener by listener: allowed CIDRs, idle timeouts, members " +
			"(one batch update), monitor settings; listeners added to the configuration are created, listeners removed from " +
			"it are deleted with their pool and monitor. A listener's `protocol`, `port` and `proxy_protocol_v2` cannot " +
			"change (Octavia cannot change them): give the listener a new name instead. Objects are found again by their " +
			"names (exact match; two objects with one name are an error), so an interrupted apply adopts what it made.\n\n" +
			"Deletion removes the floating IP, then the load balancer with everything under it in one cascade call.\n\n" +
			"**Import** by `REGION/ID` or `REGION/name` (the `name` of `lb-<name>`); a bare `ID` or `name` means the " +
			"provider's default region.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The Octavia load balancer ID.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"identity_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The `id` of the `unikorn_identity` whose project holds the load balancer. The provider " +
					"acts as the identity's user. Changing it replaces the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"listeners": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "The listeners, created in this order. Each is found again by its `name`, so reordering " +
					"changes nothing in Octavia. An import lists them in the order Octavia created them.",
				NestedObject: schema.NestedAttributeObject{Attributes: listenerAttributes()},
				Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the load balancer: Octavia calls it `lb-<name>` and its children " +
					"`lb-<name>-<listener>-listener`, `-pool` and `-monitor`. Changing it replaces the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{nameValidator{}},
			},
			"network_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the network (a `unikorn_network`'s `id`) the VIP lives on; the VIP subnet is the " +
					"network's subnet. Changing it replaces the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"operating_status": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Octavia's operating status of the load balancer (`ONLINE`, `OFFLINE`, `DEGRADED`, " +
					"`ERROR`, `NO_MONITOR`).",
			},
			"provisioning_status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Octavia's provisioning status of the load balancer; `ACTIVE` after every apply.",
			},
			"public_ip": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Put a floating IP on the VIP port, from the external network of the network's router. " +
					"Default `false`. Updated in place.",
			},
			"public_ip_address": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The floating IP address on the VIP; null without `public_ip`.",
			},
			"region": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Region of the load balancer. Default: the provider's `region`. Changing it replaces " +
					"the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true}),
			"vip_address": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The VIP address. Default: chosen by Octavia from the subnet. Setting or changing it " +
					"replaces the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured()},
				Validators:    []validator.String{ipv4Validator{}},
			},
			"vip_port_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Neutron port of the VIP.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// listenerAttributes are the attributes of one listener.
func listenerAttributes() map[string]schema.Attribute {
	threshold := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(defaultMonitorThreshold),
			MarkdownDescription: fmt.Sprintf("%s, 1 to 10. Default %d.", what, defaultMonitorThreshold),
			Validators:          []validator.Int64{int64validator.Between(minThreshold, maxThreshold)},
		}
	}

	return map[string]schema.Attribute{
		"allowed_cidrs": schema.SetAttribute{
			Optional:    true,
			ElementType: types.StringType,
			MarkdownDescription: "IPv4 prefixes (canonical, e.g. `10.0.0.0/8`) allowed to connect; unset or empty allows " +
				"everyone. Updated in place.",
			Validators: []validator.Set{setvalidator.ValueStringsAre(cidrValidator{})},
		},
		"health_monitor": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "A health monitor on the pool: `TCP` for TCP listeners, `UDP-CONNECT` for UDP listeners. " +
				"Updated in place; removing it deletes the monitor.",
			Attributes: map[string]schema.Attribute{
				"healthy_threshold": threshold("Successful checks before a member is healthy (Octavia's `max_retries`)"),
				"interval_seconds": schema.Int64Attribute{
					Optional: true,
					Computed: true,
					Default:  int64default.StaticInt64(defaultMonitorInterval),
					MarkdownDescription: fmt.Sprintf("Seconds between checks (at least %d for UDP). Default %d.",
						minUDPMonitorInterval, defaultMonitorInterval),
					Validators: []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
				},
				"timeout_seconds": schema.Int64Attribute{
					Optional:            true,
					Computed:            true,
					Default:             int64default.StaticInt64(defaultMonitorTimeout),
					MarkdownDescription: fmt.Sprintf("Seconds a check may take; less than `interval_seconds`. Default %d.", defaultMonitorTimeout),
					Validators:          []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
				},
				"unhealthy_threshold": threshold("Failed checks before a member is unhealthy (Octavia's `max_retries_down`)"),
			},
		},
		"idle_timeout_seconds": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "TCP only: seconds a connection may stay idle, written into both Octavia's client and member " +
				"data timeouts. Unset: left as Octavia has it (a new listener gets Octavia's default, usually 50), and shown. " +
				"Updated in place.",
			Validators: []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
		},
		"listener_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "ID of the Octavia listener.",
		},
		"members": schema.SetNestedAttribute{
			Optional: true,
			MarkdownDescription: "The pool's members, on the network's subnet. Compared as a set and changed in one batch " +
				"update.",
			NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{
					"address": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "IPv4 address of the member.",
						Validators:          []validator.String{ipv4Validator{}},
					},
					"port": schema.Int64Attribute{
						Required:            true,
						MarkdownDescription: "Port of the member, 1 to 65535.",
						Validators:          []validator.Int64{int64validator.Between(1, 65535)},
					},
				},
			},
		},
		"monitor_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "ID of the Octavia health monitor; null without `health_monitor`.",
		},
		"name": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Name of the listener, unique in the load balancer. Renaming a listener replaces its " +
				"listener, pool and monitor (the old ones are deleted first).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"pool_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "ID of the listener's Octavia pool.",
		},
		"port": schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: "Port the listener listens on, 1 to 65535. Cannot change: rename the listener instead.",
			Validators:          []validator.Int64{int64validator.Between(1, 65535)},
		},
		"protocol": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "`TCP` or `UDP`. The pool speaks `UDP` for UDP, `PROXYV2` for TCP with " +
				"`proxy_protocol_v2`, else `TCP`. Cannot change: rename the listener instead.",
			Validators: []validator.String{stringvalidator.OneOf(ProtocolTCP, ProtocolUDP)},
		},
		"proxy_protocol_v2": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "TCP only: send the PROXY protocol v2 header to the members (the pool speaks `PROXYV2`). " +
				"Default `false`. Cannot change: rename the listener instead.",
		},
	}
}

func (r *loadBalancerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		r.meta = m
	}
}

// service is the core for identityID in region, in the identity scope.
func (r *loadBalancerResource) service(ctx context.Context, identityID, region string) (*Service, error) {
	sess, err := r.meta.Cloud().Identity(ctx, identityID)
	if err != nil {
		return nil, fmt.Errorf("identity %s: %w", identityID, err)
	}

	octavia, err := sess.LoadBalancer(region)
	if err != nil {
		return nil, err
	}

	neutron, err := sess.Network(region)
	if err != nil {
		return nil, err
	}

	return &Service{Octavia: octavia, Neutron: neutron, SingleCallCreate: r.meta.LoadBalancerSingleCallCreate()}, nil
}

// region resolves the model's region ("" or unknown: the provider's default).
func (r *loadBalancerResource) region(m loadBalancerModel) (string, error) {
	if m.Region.IsUnknown() {
		return r.meta.Cloud().ResolveRegion("")
	}

	return r.meta.Cloud().ResolveRegion(m.Region.ValueString())
}

func (r *loadBalancerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan loadBalancerModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	region, err := r.region(plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid region", err.Error())
		return
	}

	plan.Region = types.StringValue(region)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "loadbalancer", naming.LoadBalancer(spec.Name))

	svc, err := r.service(ctx, plan.IdentityID.ValueString(), region)
	if err != nil {
		resp.Diagnostics.AddError("Error creating load balancer", fmt.Sprintf("%s: %s", naming.LoadBalancer(spec.Name), err))
		return
	}

	client := r.meta.Cloud()
	before, start := client.RequestCount(), time.Now()

	var id string

	top, err := svc.Ensure(ctx, spec, "", func(got string) {
		id = got
		// Recorded before the first wait: a failed or interrupted create leaves a tainted
		// resource that knows its load balancer.
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), got)...)
	})

	tflog.Debug(ctx, "Created the load balancer", map[string]any{
		"requests": client.RequestCount() - before, "seconds": time.Since(start).Seconds(), "id": id,
	})

	var lost *CreateError

	if id == "" && errors.As(err, &lost) {
		// The POST may have reached Octavia with its answer lost (a deadline, a dropped
		// connection), and Octavia commits the load balancer only once its VIP port exists,
		// which may be after the provider gave up: wait for it by name, so that it is tracked,
		// not orphaned and twinned by the next apply.
		var answered gophercloud.ErrUnexpectedResponseCode

		found := r.salvage(ctx, svc, "", spec.Name, nil)
		if found == nil && !errors.As(err, &answered) {
			found = r.awaitLost(ctx, svc, spec.Name) // no answer: the outcome is unknown
		}

		if found != nil {
			id, top = found.ID, found
		}
	}

	if id == "" {
		resp.Diagnostics.AddError("Error creating load balancer", fmt.Sprintf("%s: %s", naming.LoadBalancer(spec.Name), err))
		return
	}

	if err != nil {
		top = r.salvage(ctx, svc, id, spec.Name, top)
		resp.Diagnostics.AddError("Error creating load balancer",
			fmt.Sprintf("%s (%s) in region %s: %s", naming.LoadBalancer(spec.Name), id, region, err))
	}

	state := applied(ctx, plan, id, top, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// awaitLost looks for the load balancer of a POST whose answer was lost, for up to
// salvageTimeout with a context of its own: Octavia may still be making it.
func (r *loadBalancerResource) awaitLost(ctx context.Context, svc *Service, name string) *Topology {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), salvageTimeout)
	defer cancel()

	found, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"absent"}, Target: []string{"present"}, MinInterval: time.Second},
		func(ctx context.Context) (*Topology, string, string, error) {
			top, err := svc.Observe(ctx, "", name)
			if err != nil || top == nil {
				return nil, "absent", "", err
			}

			return top, "present", "", nil
		})
	if err != nil {
		tflog.Warn(ctx, "The load balancer of a lost create did not appear", map[string]any{"name": name, "error": err.Error()})
		return nil
	}

	return found
}

// salvage reads what a failed create or update left, with a context of its own (the
// operation's may have ended), so that the state shows it; top when that fails too.
func (r *loadBalancerResource) salvage(ctx context.Context, svc *Service, id, name string, top *Topology) *Topology {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), salvageTimeout)
	defer cancel()

	if observed, err := svc.Observe(ctx, id, name); err == nil && observed != nil {
		return observed
	}

	return top
}

func (r *loadBalancerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state loadBalancerModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Read(ctx, defaultReadTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	region, err := r.region(state)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid region", err.Error())
		return
	}

	ctx = tflog.SetField(ctx, "loadbalancer_id", state.ID.ValueString())

	svc, err := r.service(ctx, state.IdentityID.ValueString(), region)
	if err != nil {
		resp.Diagnostics.AddError("Error reading load balancer", fmt.Sprintf("%s: %s", state.ID.ValueString(), err))
		return
	}

	client := r.meta.Cloud()
	before := client.RequestCount()

	top, err := svc.Observe(ctx, state.ID.ValueString(), state.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Error reading load balancer", fmt.Sprintf("%s in region %s: %s", state.ID.ValueString(), region, err))
		return
	}

	tflog.Debug(ctx, "Read the load balancer", map[string]any{"requests": client.RequestCount() - before})

	if top == nil {
		tflog.Warn(ctx, "The load balancer is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	state.Region = types.StringValue(region)
	next := observed(ctx, state, top, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *loadBalancerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state loadBalancerModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	region, err := r.region(state)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid region", err.Error())
		return
	}

	plan.Region = types.StringValue(region)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	id := state.ID.ValueString()
	ctx = tflog.SetField(ctx, "loadbalancer_id", id)

	svc, err := r.service(ctx, plan.IdentityID.ValueString(), region)
	if err != nil {
		resp.Diagnostics.AddError("Error updating load balancer", fmt.Sprintf("%s: %s", id, err))
		return
	}

	client := r.meta.Cloud()
	before, start := client.RequestCount(), time.Now()

	top, err := svc.Ensure(ctx, spec, id, func(got string) { id = got })

	tflog.Debug(ctx, "Converged the load balancer", map[string]any{
		"requests": client.RequestCount() - before, "seconds": time.Since(start).Seconds(),
	})

	if err != nil {
		resp.Diagnostics.AddError("Error updating load balancer",
			fmt.Sprintf("%s (%s) in region %s: %s", naming.LoadBalancer(spec.Name), id, region, err))
		top = r.salvage(ctx, svc, id, spec.Name, top)
	}

	next := applied(ctx, plan, id, top, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *loadBalancerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state loadBalancerModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	region, err := r.region(state)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid region", err.Error())
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	id := state.ID.ValueString()
	ctx = tflog.SetField(ctx, "loadbalancer_id", id)

	svc, err := r.service(ctx, state.IdentityID.ValueString(), region)
	if err != nil {
		resp.Diagnostics.AddError("Error deleting load balancer", fmt.Sprintf("%s: %s", id, err))
		return
	}

	client := r.meta.Cloud()
	before, start := client.RequestCount(), time.Now()

	if err := svc.Delete(ctx, id, state.Name.ValueString()); err != nil {
		resp.Diagnostics.AddError("Error deleting load balancer", fmt.Sprintf("%s in region %s: %s", id, region, err))
		return
	}

	tflog.Debug(ctx, "Deleted the load balancer", map[string]any{
		"requests": client.RequestCount() - before, "seconds": time.Since(start).Seconds(),
	})
}

// ImportState takes `REGION/ID`, `REGION/name`, `ID` or `name`, finds the load balancer and
// the identity it belongs to, and leaves the rest to Read.
func (r *loadBalancerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	region, idOrName, err := adapter.SplitImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error()+" (REGION/ID or REGION/name)")
		return
	}

	region, err = r.meta.Cloud().ResolveRegion(region)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}

	found, err := LocateForImport(ctx, r.meta.Cloud(), region, idOrName)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import load balancer", err.Error())
		return
	}

	name, err := NameOf(found.Name)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import load balancer", err.Error())
		return
	}

	for _, set := range []struct {
		attr  string
		value string
	}{{"id", found.ID}, {"identity_id", found.ProjectID}, {"name", name}, {"region", region}} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(set.attr), set.value)...)
	}
}

// ModifyPlan resolves the default region, refuses changes Octavia cannot make (a listener's
// protocol, port or PROXY protocol) with an error on the attribute, and plans the computed
// values of each listener by its name, not its position: IDs of listeners that stay are
// known, those of new ones unknown, and a missing pool or monitor (deleted out of band)
// shows as a change that the apply repairs.
func (r *loadBalancerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}

	var plan, cfg loadBalancerModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)

	if resp.Diagnostics.HasError() {
		return
	}

	var state *loadBalancerModel

	if !req.State.Raw.IsNull() {
		state = &loadBalancerModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)

		if resp.Diagnostics.HasError() {
			return
		}
	}

	if plan.Region.IsUnknown() && r.meta != nil {
		region, err := r.meta.Cloud().ResolveRegion("")
		if err == nil {
			plan.Region = types.StringValue(region)
		}
	} else if !plan.Region.IsUnknown() && r.meta != nil {
		if _, err := r.meta.Cloud().ResolveRegion(plan.Region.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("region"), "Region not served", err.Error())
			return
		}
	}

	planListeners, diags := listenerModels(ctx, plan.Listeners)
	resp.Diagnostics.Append(diags...)

	cfgListeners, diags := listenerModels(ctx, cfg.Listeners)
	resp.Diagnostics.Append(diags...)

	var stateListeners []listenerModel

	if state != nil {
		stateListeners, diags = listenerModels(ctx, state.Listeners)
		resp.Diagnostics.Append(diags...)
	}

	if resp.Diagnostics.HasError() {
		return
	}

	if !plan.Listeners.IsUnknown() && !plan.Listeners.IsNull() {
		for i := range planListeners {
			var configured *listenerModel
			if i < len(cfgListeners) {
				configured = &cfgListeners[i]
			}

			planListener(&resp.Diagnostics, path.Root("listeners").AtListIndex(i), &planListeners[i], configured, stateListeners)
		}

		if resp.Diagnostics.HasError() {
			return
		}

		list, diags := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: listenerAttrTypes}, planListeners)
		resp.Diagnostics.Append(diags...)
		plan.Listeners = list
	}

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

	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planListener checks the immutable fields of listener l against the state's listener of
// the same name and plans its computed values.
func planListener(diags *diag.Diagnostics, at path.Path, l *listenerModel, configured *listenerModel, state []listenerModel) {
	var prior *listenerModel

	for i := range state {
		if state[i].Name.Equal(l.Name) && !l.Name.IsUnknown() {
			prior = &state[i]
		}
	}

	udp := l.Protocol.ValueString() == ProtocolUDP

	if prior == nil {
		l.ListenerID, l.PoolID = types.StringUnknown(), types.StringUnknown()
		l.MonitorID = unknownUnless(l.HealthMonitor.IsNull())

		if configured != nil && configured.IdleTimeoutSeconds.IsNull() {
			l.IdleTimeoutSeconds = idleTimeoutPlan(udp, l.Protocol.IsUnknown(), types.Int64Unknown())
		}

		return
	}

	for _, c := range []struct {
		attr       string
		have, want attr.Value
	}{
		{"protocol", prior.Protocol, l.Protocol},
		{"port", prior.Port, l.Port},
		{"proxy_protocol_v2", prior.ProxyProtocolV2, l.ProxyProtocolV2},
	} {
		if c.want.IsUnknown() || c.have.IsNull() || c.have.Equal(c.want) {
			continue
		}

		diags.AddAttributeError(at.AtName(c.attr), "Listener "+c.attr+" cannot change",
			fmt.Sprintf("Listener %s has %s %s; the configuration asks for %s. Octavia cannot change a listener's "+
				"protocol or port, nor its pool's protocol (proxy_protocol_v2). Give the listener a new name: the apply then "+
				"deletes the old listener, pool and monitor and creates new ones.", l.Name, c.attr, c.have, c.want))
	}

	l.ListenerID = knownOrUnknown(prior.ListenerID)
	l.PoolID = knownOrUnknown(prior.PoolID)

	if l.HealthMonitor.IsNull() {
		l.MonitorID = types.StringNull()
	} else {
		l.MonitorID = knownOrUnknown(prior.MonitorID)
	}

	if configured != nil && configured.IdleTimeoutSeconds.IsNull() {
		l.IdleTimeoutSeconds = idleTimeoutPlan(udp, l.Protocol.IsUnknown(), prior.IdleTimeoutSeconds)
	}
}

// idleTimeoutPlan is the planned idle timeout of a listener that does not configure one:
// null for UDP, what Octavia has for TCP (prior; unknown for a new listener).
func idleTimeoutPlan(udp, protocolUnknown bool, prior types.Int64) types.Int64 {
	switch {
	case protocolUnknown:
		return types.Int64Unknown()
	case udp:
		return types.Int64Null()
	case prior.IsNull():
		return types.Int64Unknown()
	}

	return prior
}

func knownOrUnknown(v types.String) types.String {
	if v.IsNull() || v.IsUnknown() {
		return types.StringUnknown()
	}

	return v
}

func unknownUnless(null bool) types.String {
	if null {
		return types.StringNull()
	}

	return types.StringUnknown()
}

// expandSpec turns the plan into the core's Spec.
func expandSpec(ctx context.Context, m loadBalancerModel) (Spec, diag.Diagnostics) {
	spec := Spec{
		Name:       m.Name.ValueString(),
		NetworkID:  m.NetworkID.ValueString(),
		VIPAddress: m.VIPAddress.ValueString(),
		PublicIP:   m.PublicIP.ValueBool(),
	}

	if m.VIPAddress.IsUnknown() {
		spec.VIPAddress = ""
	}

	ls, diags := listenerModels(ctx, m.Listeners)

	for _, l := range ls {
		ln := ListenerSpec{
			Name:            l.Name.ValueString(),
			Protocol:        l.Protocol.ValueString(),
			Port:            int(l.Port.ValueInt64()),
			ProxyProtocolV2: l.ProxyProtocolV2.ValueBool(),
		}

		if !l.IdleTimeoutSeconds.IsNull() && !l.IdleTimeoutSeconds.IsUnknown() && ln.Protocol == ProtocolTCP {
			ln.IdleTimeout = new(int(l.IdleTimeoutSeconds.ValueInt64()))
		}

		diags.Append(l.AllowedCIDRs.ElementsAs(ctx, &ln.AllowedCIDRs, false)...)

		var members []memberModel

		diags.Append(l.Members.ElementsAs(ctx, &members, false)...)

		for _, mm := range members {
			ln.Members = append(ln.Members, Member{Address: mm.Address.ValueString(), Port: int(mm.Port.ValueInt64())})
		}

		if !l.HealthMonitor.IsNull() && !l.HealthMonitor.IsUnknown() {
			var hm healthMonitorModel

			diags.Append(l.HealthMonitor.As(ctx, &hm, objectAsOptions)...)

			ln.Monitor = &MonitorSpec{
				Interval:           int(hm.IntervalSeconds.ValueInt64()),
				Timeout:            int(hm.TimeoutSeconds.ValueInt64()),
				HealthyThreshold:   int(hm.HealthyThreshold.ValueInt64()),
				UnhealthyThreshold: int(hm.UnhealthyThreshold.ValueInt64()),
			}
		}

		spec.Listeners = append(spec.Listeners, ln)
	}

	return spec, diags
}

// listenerModels decodes a listeners list; nil when it is null or unknown.
func listenerModels(ctx context.Context, v types.List) ([]listenerModel, diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}

	var out []listenerModel

	diags := v.ElementsAs(ctx, &out, false)

	return out, diags
}

// applied is the state after Create or Update: the configuration from plan, everything
// else from what Octavia and Neutron report (top). Without top (nothing could be read),
// computed values are null.
func applied(ctx context.Context, plan loadBalancerModel, id string, top *Topology, diags *diag.Diagnostics) loadBalancerModel {
	if top == nil {
		s := plan
		s.ID = types.StringValue(id)
		s.VIPAddress = nullIfUnknown(s.VIPAddress)
		s.VIPPortID = types.StringNull()
		s.PublicIPAddress = types.StringNull()
		s.ProvisioningStatus = types.StringNull()
		s.OperatingStatus = types.StringNull()

		ls, d := listenerModels(ctx, plan.Listeners)
		diags.Append(d...)

		for i := range ls {
			ls[i].ListenerID, ls[i].PoolID, ls[i].MonitorID = types.StringNull(), types.StringNull(), types.StringNull()

			if ls[i].IdleTimeoutSeconds.IsUnknown() {
				ls[i].IdleTimeoutSeconds = types.Int64Null()
			}
		}

		s.Listeners = listenerList(ctx, plan.Listeners, ls, diags)

		return s
	}

	return observed(ctx, plan, top, diags)
}

// observed is prior (the state, or the plan after an apply) refreshed from top: every
// attribute as Octavia and Neutron report it, so that drift shows. Listeners keep prior's
// order; listeners found in Octavia that prior lacks follow, by name.
func observed(ctx context.Context, prior loadBalancerModel, top *Topology, diags *diag.Diagnostics) loadBalancerModel {
	s := prior

	name, err := NameOf(top.Name)
	if err != nil {
		diags.AddError("Unexpected load balancer name", err.Error())
		return s
	}

	s.ID = types.StringValue(top.ID)
	s.Name = types.StringValue(name)
	s.NetworkID = types.StringValue(top.VIPNetworkID)
	s.VIPAddress = types.StringValue(top.VIPAddress)
	s.VIPPortID = types.StringValue(top.VIPPortID)
	s.ProvisioningStatus = types.StringValue(top.ProvisioningStatus)
	s.OperatingStatus = types.StringValue(top.OperatingStatus)
	s.PublicIP = types.BoolValue(top.FloatingIP != nil)
	s.PublicIPAddress = types.StringNull()

	if top.FloatingIP != nil {
		s.PublicIPAddress = types.StringValue(top.FloatingIP.Address)
	}

	priorListeners, d := listenerModels(ctx, prior.Listeners)
	diags.Append(d...)

	var out []listenerModel

	seen := map[string]bool{}

	for _, p := range priorListeners {
		o, ok := top.Listener(p.Name.ValueString())
		if !ok || o.ListenerID == "" {
			continue // gone: the plan shows it again
		}

		seen[o.Name] = true
		out = append(out, flattenListener(name, o, &p, diags))
	}

	for _, o := range top.Listeners {
		if o.ListenerID == "" || seen[o.Name] {
			continue
		}

		out = append(out, flattenListener(name, o, nil, diags))
	}

	s.Listeners = listenerList(ctx, prior.Listeners, out, diags)

	return s
}

// listenerList is ls as a list value; an empty result keeps prior's null.
func listenerList(ctx context.Context, prior types.List, ls []listenerModel, diags *diag.Diagnostics) types.List {
	if len(ls) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.ListNull(types.ObjectType{AttrTypes: listenerAttrTypes})
	}

	if ls == nil {
		ls = []listenerModel{}
	}

	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: listenerAttrTypes}, ls)
	diags.Append(d...)

	return list
}

// flattenListener is one observed listener; prior (may be nil) decides how "none" is
// written (null or empty) so that an unchanged configuration shows no difference.
func flattenListener(name string, o ObservedListener, prior *listenerModel, diags *diag.Diagnostics) listenerModel {
	l := listenerModel{
		Name:            types.StringValue(o.Name),
		Protocol:        types.StringValue(o.Protocol),
		Port:            types.Int64Value(int64(o.Port)),
		ListenerID:      types.StringValue(o.ListenerID),
		PoolID:          types.StringNull(),
		MonitorID:       types.StringNull(),
		HealthMonitor:   types.ObjectNull(monitorAttrTypes),
		ProxyProtocolV2: types.BoolValue(o.ProxyProtocolV2()),
	}

	if prior != nil && o.PoolID == "" {
		l.ProxyProtocolV2 = prior.ProxyProtocolV2 // unknowable without the pool: keep it
	}

	if o.PoolLinked() {
		l.PoolID = types.StringValue(o.PoolID)
	}

	var priorCIDRs, priorMembers types.Set

	var priorTimeout *int

	if prior != nil {
		priorCIDRs, priorMembers = prior.AllowedCIDRs, prior.Members

		if !prior.IdleTimeoutSeconds.IsNull() && !prior.IdleTimeoutSeconds.IsUnknown() {
			priorTimeout = new(int(prior.IdleTimeoutSeconds.ValueInt64()))
		}
	}

	l.AllowedCIDRs = stringSet(o.AllowedCIDRs, priorCIDRs, diags)

	l.IdleTimeoutSeconds = types.Int64Null()
	if o.Protocol != ProtocolUDP {
		l.IdleTimeoutSeconds = types.Int64Value(int64(o.IdleTimeout(priorTimeout)))
	}

	members := make([]attr.Value, 0, len(o.Members))
	for _, m := range o.Members {
		v, d := types.ObjectValue(memberAttrTypes, map[string]attr.Value{
			"address": types.StringValue(m.Address),
			"port":    types.Int64Value(int64(m.Port)),
		})
		diags.Append(d...)
		members = append(members, v)
	}

	l.Members = setOrPrior(types.ObjectType{AttrTypes: memberAttrTypes}, members, priorMembers, diags)

	if o.Monitor != nil {
		v, d := types.ObjectValue(monitorAttrTypes, map[string]attr.Value{
			"healthy_threshold":   types.Int64Value(int64(o.Monitor.HealthyThreshold)),
			"interval_seconds":    types.Int64Value(int64(o.Monitor.Interval)),
			"timeout_seconds":     types.Int64Value(int64(o.Monitor.Timeout)),
			"unhealthy_threshold": types.Int64Value(int64(o.Monitor.UnhealthyThreshold)),
		})
		diags.Append(d...)
		l.HealthMonitor = v

		// A monitor that is not what the provider makes (another type or name) shows as
		// missing, so that the next apply replaces or renames it.
		want := ListenerSpec{Protocol: o.Protocol}.MonitorType()
		if o.MonitorType == want && o.MonitorName == naming.Monitor(name, o.Name) {
			l.MonitorID = types.StringValue(o.MonitorID)
		}
	}

	return l
}

// stringSet is values as a set; none keeps prior's form (null or empty).
func stringSet(values []string, prior types.Set, diags *diag.Diagnostics) types.Set {
	elems := make([]attr.Value, 0, len(values))
	for _, v := range values {
		elems = append(elems, types.StringValue(v))
	}

	return setOrPrior(types.StringType, elems, prior, diags)
}

func setOrPrior(t attr.Type, elems []attr.Value, prior types.Set, diags *diag.Diagnostics) types.Set {
	if len(elems) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.SetNull(t)
	}

	v, d := types.SetValue(t, elems)
	diags.Append(d...)

	return v
}

func nullIfUnknown(v types.String) types.String {
	if v.IsUnknown() {
		return types.StringNull()
	}

	return v
}

var memberAttrTypes = map[string]attr.Type{
	"address": types.StringType,
	"port":    types.Int64Type,
}

var monitorAttrTypes = map[string]attr.Type{
	"healthy_threshold":   types.Int64Type,
	"interval_seconds":    types.Int64Type,
	"timeout_seconds":     types.Int64Type,
	"unhealthy_threshold": types.Int64Type,
}

var listenerAttrTypes = map[string]attr.Type{
	"allowed_cidrs":        types.SetType{ElemType: types.StringType},
	"health_monitor":       types.ObjectType{AttrTypes: monitorAttrTypes},
	"idle_timeout_seconds": types.Int64Type,
	"listener_id":          types.StringType,
	"members":              types.SetType{ElemType: types.ObjectType{AttrTypes: memberAttrTypes}},
	"monitor_id":           types.StringType,
	"name":                 types.StringType,
	"pool_id":              types.StringType,
	"port":                 types.Int64Type,
	"protocol":             types.StringType,
	"proxy_protocol_v2":    types.BoolType,
}

// loadBalancerModel is the resource's state.
type loadBalancerModel struct {
	ID                 types.String   `tfsdk:"id"`
	IdentityID         types.String   `tfsdk:"identity_id"`
	Listeners          types.List     `tfsdk:"listeners"`
	Name               types.String   `tfsdk:"name"`
	NetworkID          types.String   `tfsdk:"network_id"`
	OperatingStatus    types.String   `tfsdk:"operating_status"`
	ProvisioningStatus types.String   `tfsdk:"provisioning_status"`
	PublicIP           types.Bool     `tfsdk:"public_ip"`
	PublicIPAddress    types.String   `tfsdk:"public_ip_address"`
	Region             types.String   `tfsdk:"region"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	VIPAddress         types.String   `tfsdk:"vip_address"`
	VIPPortID          types.String   `tfsdk:"vip_port_id"`
}

// listenerModel is one element of listeners.
type listenerModel struct {
	AllowedCIDRs       types.Set    `tfsdk:"allowed_cidrs"`
	HealthMonitor      types.Object `tfsdk:"health_monitor"`
	IdleTimeoutSeconds types.Int64  `tfsdk:"idle_timeout_seconds"`
	ListenerID         types.String `tfsdk:"listener_id"`
	Members            types.Set    `tfsdk:"members"`
	MonitorID          types.String `tfsdk:"monitor_id"`
	Name               types.String `tfsdk:"name"`
	PoolID             types.String `tfsdk:"pool_id"`
	Port               types.Int64  `tfsdk:"port"`
	Protocol           types.String `tfsdk:"protocol"`
	ProxyProtocolV2    types.Bool   `tfsdk:"proxy_protocol_v2"`
}

// memberModel is one element of members.
type memberModel struct {
	Address types.String `tfsdk:"address"`
	Port    types.Int64  `tfsdk:"port"`
}

// healthMonitorModel is health_monitor.
type healthMonitorModel struct {
	HealthyThreshold   types.Int64 `tfsdk:"healthy_threshold"`
	IntervalSeconds    types.Int64 `tfsdk:"interval_seconds"`
	TimeoutSeconds     types.Int64 `tfsdk:"timeout_seconds"`
	UnhealthyThreshold types.Int64 `tfsdk:"unhealthy_threshold"`
}
