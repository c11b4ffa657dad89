package loadbalancer

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func (r *loadBalancerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A whole Octavia load balancer as one object, in an identity's project: the load balancer " +
			"`lb-<name>` with its VIP on a network, and per listener the listener `lb-<name>-<listener>-listener`, its pool " +
			"`lb-<name>-<listener>-pool` (round robin) with its members, and an optional health monitor " +
			"`lb-<name>-<listener>-monitor`; optionally a floating IP on the VIP.\n\n" +
			"Creation goes step by step — the load balancer, then per listener: listener, pool, members in one batch, " +
			"monitor — waiting for the load balancer to be ACTIVE between steps, so that no request meets Octavia's " +
			"immutability lock. Changes are converged in place, listener by listener: allowed CIDRs, idle timeouts, members " +
			"(one batch update; a change of one member's weight alone updates that member), monitor settings; listeners added to the configuration are created, listeners removed from " +
			"it are deleted with their pool and monitor. A listener's `protocol`, `port` and `proxy_protocol_v2` cannot " +
			"change (Octavia cannot change them): give the listener a new name instead. Objects are found again by their " +
			"names (exact match; two objects with one name are an error).\n\n" +
			"**Adoption.** The load balancer, its listeners, pools and health monitors carry this provider's ownership " +
			"marks as Octavia tags: `unikorn-terraform:unikorn_loadbalancer` from their create request on, and, on the load " +
			"balancer only, `unikorn-terraform:created`, written as the last step of its create. A create that finds " +
			"`lb-<name>` in the identity's project and region adopts it only when an interrupted create of a " +
			"`unikorn_loadbalancer` left it (the first mark without the second): it keeps the load balancer's ID and what it " +
			"holds, makes what is missing and marks it finished, so that a killed or failed apply leaves no twin. Any other " +
			"load balancer of that name is refused before anything is changed, and the error gives the `terraform import` " +
			"command that takes it over: one made by Unikorn, by hand or by another tool (no marks), one that another " +
			"configuration holds (finished), or an unfinished one holding a listener, pool or monitor named after this " +
			"resource that this provider did not make. Adoption never re-tags, converges or records what it refuses. The " +
			"floating IP on the VIP is found by its description `lb-<name>`, which only this provider writes.\n\n" +
			"An imported load balancer is managed in place like any other but never marked: updates add no mark (listeners, " +
			"pools and monitors created in it later carry the creation mark). When the recorded load balancer is gone, a " +
			"refresh follows another of its name only when that one is an unfinished create; otherwise the resource is gone " +
			"and the plan creates it again (which then refuses a load balancer of that name made by someone else).\n\n" +
			"Deletion removes the floating IP, then the load balancer with everything under it in one cascade call.\n\n" +
			"**Defaults** are those of Unikorn's load balancer API: a health monitor checks every 10 seconds with a timeout " +
			"of 5 and thresholds of 2 (healthy and unhealthy); a TCP listener's idle timeout is 60 seconds; pools balance " +
			"round robin (a pool set to another algorithm out of band shows as missing, and the apply sets it back in " +
			"place). Earlier versions of this provider had thresholds of 3 and left a TCP listener's idle timeout as Octavia " +
			"had it (usually 50 seconds): a load balancer applied with them, under a configuration that leaves these values " +
			"unset, plans their change to the new defaults as an update in place, and the plan warns, naming each value. " +
			"Nothing is replaced; set the values in the configuration to keep them.\n\n" +
			"**Import** by `REGION/ID` or `REGION/name` (the `name` of `lb-<name>`); a bare `ID` or `name` means the " +
			"provider's default region.\n\n" +
			"**Unikorn's load balancers** (Unikorn's region service makes them from v1.16.5 on) are imported like any " +
			"other. Unikorn calls a load balancer `lb-<its LoadBalancer ID>` and its children " +
			"`lb-<ID>-<listener>-listener`, `-pool` and `-monitor`, with no tags and no descriptions: the resource's `name` " +
			"is Unikorn's load balancer ID and its listeners' names are Unikorn's, so it imports as `REGION/<Octavia ID>` " +
			"or `REGION/<Unikorn load balancer ID>`. A configuration that mirrors it plans no change and its apply writes " +
			"nothing: `identity_id` the project of Unikorn's identity (imported or not), `network_id` the Neutron network of " +
			"Unikorn's network, each listener by its name, protocol and port with its members by address and port, " +
			"`health_monitor = {}` where Unikorn has a health check with its defaults (else its values), and " +
			"`allowed_cidrs`, `idle_timeout_seconds`, `proxy_protocol_v2` and `public_ip = true` where Unikorn's load " +
			"balancer has them. List the listeners and members as the imported state does (listeners in the order Octavia " +
			"made them, members by address): another order plans an update that changes nothing in Octavia. An import " +
			"never marks the load balancer or its children, and an apply renames nothing. In an identity this provider did " +
			"not make and that holds no trust to its service user (Unikorn's), the provider acts as that service user, never " +
			"as the identity's user, whose password, credential, keypair and server group it leaves alone; load balancers " +
			"it creates there are the service user's.\n\n" +
			"Unikorn keeps reconciling the load balancers it made: while its record of one exists, Unikorn sets back what " +
			"another tool changes in it, deletes listeners, pools and monitors named `lb-<ID>-…` that its record does not " +
			"have (a listener added here), and, at its next reconcile, makes the load balancer again when it is gone (after " +
			"a `terraform destroy` of the imported resource). Change such a load balancer through Unikorn and keep the configuration mirroring it; to stop " +
			"managing it here without deleting it, use a `removed` block with `lifecycle { destroy = false }` (or " +
			"`terraform state rm`).",
		Attributes: map[string]schema.Attribute{
			"id":          adapter.IDAttribute("The Octavia load balancer ID."),
			"identity_id": adapter.IdentityIDAttribute("load balancer"),
			"listeners": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "The listeners, created in this order. Each is found again by its `name`, so reordering " +
					"changes nothing in Octavia. An import lists them in the order Octavia created them.",
				NestedObject: schema.NestedAttributeObject{Attributes: listenerAttributes()},
				Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"name": adapter.NameAttribute(naming.KindLoadBalancer, "Name of the load balancer: Octavia calls it `lb-<name>` "+
				"and its children `lb-<name>-<listener>-listener`, `-pool` and `-monitor`."),
			"network_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the network (a `unikorn_network`'s `id`) the VIP lives on; the VIP subnet is the " +
					"network's subnet. It must be a network of the identity, in the load balancer's region (checked at plan " +
					"time when the ID is known then). Changing it replaces the load balancer.",
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
			"region":   adapter.RegionAttribute("load balancer"),
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"vip_address": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The VIP address, inside the VIP subnet. Default: chosen by Octavia from the subnet. " +
					"Setting or changing it replaces the load balancer.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured()},
				Validators:    []validator.String{adapter.IPAddress(adapter.IPv4)},
			},
			"vip_port_id": adapter.StableString("ID of the Neutron port of the VIP."),
		},
	}
}

// The value types of the nested attributes are read off the schema, so that each attribute's
// type is written once.
var (
	memberType   = objectType(memberAttributes())
	monitorType  = objectType(monitorAttributes())
	listenerType = objectType(listenerAttributes())

	memberAttrTypes   = memberType.AttrTypes
	monitorAttrTypes  = monitorType.AttrTypes
	listenerAttrTypes = listenerType.AttrTypes
)

// objectType is the type of an object with attributes attrs.
func objectType(attrs map[string]schema.Attribute) types.ObjectType {
	out := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		out[name] = a.GetType()
	}

	return types.ObjectType{AttrTypes: out}
}

// monitorAttributes are the attributes of a listener's health_monitor.
func monitorAttributes() map[string]schema.Attribute {
	threshold := func(what string, def int64) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional: true,
			Computed: true,
			Default:  int64default.StaticInt64(def),
			MarkdownDescription: fmt.Sprintf("%s, 1 to 10. Default %d (Unikorn's; %d before).", what, def,
				oldDefaultThreshold),
			Validators: []validator.Int64{int64validator.Between(minThreshold, maxThreshold)},
		}
	}

	return map[string]schema.Attribute{
		"healthy_threshold": threshold("Successful checks before a member is healthy (Octavia's `max_retries`)",
			defaultHealthyThreshold),
		"interval_seconds": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			Default:  int64default.StaticInt64(defaultMonitorInterval),
			MarkdownDescription: fmt.Sprintf("Seconds between checks (at least %d for UDP). Default %d (Unikorn's).",
				minUDPMonitorInterval, defaultMonitorInterval),
			Validators: []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
		},
		"timeout_seconds": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			Default:  int64default.StaticInt64(defaultMonitorTimeout),
			MarkdownDescription: fmt.Sprintf("Seconds a check may take; less than `interval_seconds`. Default %d (Unikorn's).",
				defaultMonitorTimeout),
			Validators: []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
		},
		"unhealthy_threshold": threshold("Failed checks before a member is unhealthy (Octavia's `max_retries_down`)",
			defaultUnhealthyThreshold),
	}
}

// memberAttributes are the attributes of one of a listener's members.
func memberAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"address": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "IPv4 address of the member, inside the VIP subnet.",
			Validators:          []validator.String{adapter.IPAddress(adapter.IPv4)},
		},
		"port": schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: "Port of the member, 1 to 65535.",
			Validators:          []validator.Int64{int64validator.Between(1, 65535)},
		},
		"weight": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			Default:  int64default.StaticInt64(DefaultMemberWeight),
			MarkdownDescription: fmt.Sprintf("The member's share of the pool's traffic, relative to the other members' weights: "+
				"%d to %d (Octavia's range); %d sends it no new connections (a drain). Default %d. Changed in place.",
				MinMemberWeight, MaxMemberWeight, MinMemberWeight, DefaultMemberWeight),
			Validators: []validator.Int64{int64validator.Between(MinMemberWeight, MaxMemberWeight)},
		},
	}
}

// listenerAttributes are the attributes of one listener.
func listenerAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"allowed_cidrs": schema.SetAttribute{
			Optional:    true,
			ElementType: types.StringType,
			MarkdownDescription: "IPv4 prefixes (canonical, e.g. `10.0.0.0/8`) allowed to connect; unset or empty allows " +
				"everyone. Updated in place.",
			Validators: []validator.Set{setvalidator.ValueStringsAre(adapter.Prefix(adapter.IPv4))},
		},
		"health_monitor": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "A health monitor on the pool: `TCP` for TCP listeners, `UDP-CONNECT` for UDP listeners. " +
				"Updated in place; removing it deletes the monitor.",
			Attributes: monitorAttributes(),
		},
		"idle_timeout_seconds": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: fmt.Sprintf("TCP only: seconds a connection may stay idle, written into both Octavia's "+
				"client and member data timeouts. Default %d on TCP (Unikorn's; earlier versions of this provider left it as "+
				"Octavia had it, usually 50), null on UDP. Updated in place.", defaultIdleTimeout),
			Validators: []validator.Int64{int64validator.Between(1, maxIdleTimeout)},
		},
		"listener_id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "ID of the Octavia listener.",
		},
		"members": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "The pool's members, on the network's subnet (checked at plan time when the network is " +
				"known then), each address and port at most once; `[]` for none. Octavia holds them as a set: their order " +
				"changes nothing there; changes go in one batch update. Unset (null), the members are managed elsewhere: " +
				"this resource never changes them, shows them as null, and tags the pool (one it made) `" +
				naming.MembersExternalTag + "`, so that a `unikorn_loadbalancer_members` may hold them (while one does, " +
				"giving `members` here fails before any change).",
			NestedObject: schema.NestedAttributeObject{Attributes: memberAttributes()},
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
