package loadbalancer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// The tests of this file hold the load balancer to Unikorn's (issue 27): its defaults are those
// of Unikorn's load balancer API, and a load balancer as Unikorn's region service makes it,
// imported with a configuration that mirrors it, plans no change and is written nothing.

// unikornLBID is a Unikorn LoadBalancer resource ID: the name of its Octavia objects.
const unikornLBID = "d3a5f0c2-8b1e-4c7a-9f60-2e4b7c1d5a93"

// monitorDefault is the schema's default of health_monitor.<name>.
func monitorDefault(t *testing.T, name string) int64 {
	t.Helper()

	listenersAttr, _ := testSchema(t).Attributes["listeners"].(schema.ListNestedAttribute)
	hm, _ := listenersAttr.NestedObject.Attributes["health_monitor"].(schema.SingleNestedAttribute)

	a, ok := hm.Attributes[name].(schema.Int64Attribute)
	if !ok || a.Default == nil {
		t.Fatalf("health_monitor.%s has no default", name)
	}

	var resp defaults.Int64Response

	a.Default.DefaultInt64(context.Background(), defaults.Int64Request{}, &resp)

	return resp.PlanValue.ValueInt64()
}

// monitorObject is a health_monitor value; nil thresholds are null (unset in a configuration).
func monitorObject(interval, timeout int64, healthy, unhealthy *int64) types.Object {
	v := func(p *int64) attr.Value {
		if p == nil {
			return types.Int64Null()
		}

		return types.Int64Value(*p)
	}

	return types.ObjectValueMust(monitorAttrTypes, map[string]attr.Value{
		"interval_seconds": types.Int64Value(interval), "timeout_seconds": types.Int64Value(timeout),
		"healthy_threshold": v(healthy), "unhealthy_threshold": v(unhealthy),
	})
}

// withListeners is m with the listeners ls.
func withListeners(t *testing.T, m loadBalancerModel, ls ...listenerModel) loadBalancerModel {
	t.Helper()

	m.Listeners = types.ListValueMust(types.ObjectType{AttrTypes: listenerAttrTypes}, toValues(t, ls))

	return m
}

// modifyPlanWith runs ModifyPlan on a plan whose configuration differs from it (the framework's
// defaults fill in what the configuration leaves unset).
func modifyPlanWith(t *testing.T, state *loadBalancerModel, config, plan loadBalancerModel) (loadBalancerModel, diag.Diagnostics) {
	t.Helper()

	s := testSchema(t)
	ctx := context.Background()

	req := resource.ModifyPlanRequest{
		Plan:   tfsdk.Plan{Schema: s, Raw: raw(t, s, plan)},
		Config: tfsdk.Config{Schema: s, Raw: raw(t, s, config)},
		State:  tfsdk.State{Schema: s, Raw: raw(t, s, *state)},
	}

	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	(&loadBalancerResource{}).ModifyPlan(ctx, req, &resp)

	var out loadBalancerModel
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &out)...)
	}

	return out, resp.Diagnostics
}

// TestDefaults_areUnikorns: the health monitor's defaults are Unikorn's (interval 10, timeout 5,
// healthy and unhealthy thresholds 2), and a TCP listener that leaves its idle timeout unset
// plans 60 seconds (new or existing; an existing one's Octavia value does not stay), a UDP one
// null (uni-region pkg/handler/loadbalancer/client_v2.go, v1.16.5 to v1.19.0).
func TestDefaults_areUnikorns(t *testing.T) {
	t.Parallel()

	for name, want := range map[string]int64{"interval_seconds": 10, "timeout_seconds": 5, "healthy_threshold": 2, "unhealthy_threshold": 2} {
		if got := monitorDefault(t, name); got != want {
			t.Errorf("health_monitor.%s defaults to %d, want Unikorn's %d", name, got, want)
		}
	}

	state := testModel(t, listenerOpts{name: "old", protocol: "TCP", port: 80, idle: int64p(50), ids: [3]string{"l-o", "p-o", ""}})
	plan := testModel(t,
		listenerOpts{name: "old", protocol: "TCP", port: 80},
		listenerOpts{name: "new", protocol: "TCP", port: 81},
		listenerOpts{name: "dns", protocol: "UDP", port: 53},
		listenerOpts{name: "set", protocol: "TCP", port: 82, idle: int64p(300)},
	)

	out, diags := modifyPlan(t, &state, plan)
	if diags.HasError() {
		t.Fatal(diags)
	}

	ls, _ := listenerModels(context.Background(), out.Listeners)

	var got []string
	for _, l := range ls {
		got = append(got, l.Name.ValueString()+"="+l.IdleTimeoutSeconds.String())
	}

	if want := []string{"old=60", "new=60", "dns=<null>", "set=300"}; !slices.Equal(got, want) {
		t.Errorf("planned idle timeouts %v, want %v", got, want)
	}
}

// TestModifyPlan_formerDefaultsChangeInPlaceWithAWarning: a load balancer applied with the
// former defaults (thresholds 3, an idle timeout left as Octavia had it) under a configuration
// that sets none of them plans Unikorn's defaults as an in-place change (the listener, pool
// and monitor keep their IDs: nothing is replaced), and the plan warns, naming each value; a
// value the configuration sets is not named.
func TestModifyPlan_formerDefaultsChangeInPlaceWithAWarning(t *testing.T) {
	t.Parallel()

	three, two, four := int64p(3), int64p(2), int64p(4)

	old := listenerOpts{name: "http", protocol: "TCP", port: 80, idle: int64p(50), ids: [3]string{"l-1", "p-1", "m-1"}}.model()
	old.HealthMonitor = monitorObject(10, 5, three, three)
	state := withListeners(t, testModel(t), old)

	cfg := listenerOpts{name: "http", protocol: "TCP", port: 80}.model()
	cfg.HealthMonitor = monitorObject(10, 5, nil, four) // unhealthy_threshold set: not a default change
	config := withListeners(t, testModel(t), cfg)

	planned := cfg
	planned.HealthMonitor = monitorObject(10, 5, two, four) // the framework's default fills healthy_threshold
	planned.ListenerID, planned.PoolID, planned.MonitorID = old.ListenerID, old.PoolID, old.MonitorID
	planned.IdleTimeoutSeconds = old.IdleTimeoutSeconds // Terraform proposes the prior value of an unset computed one
	plan := withListeners(t, testModel(t), planned)

	out, diags := modifyPlanWith(t, &state, config, plan)
	if diags.HasError() {
		t.Fatal(diags)
	}

	ls, _ := listenerModels(context.Background(), out.Listeners)
	if l := ls[0]; l.IdleTimeoutSeconds.ValueInt64() != 60 || l.ListenerID.ValueString() != "l-1" || l.PoolID.ValueString() != "p-1" ||
		l.MonitorID.ValueString() != "m-1" {
		t.Errorf("planned listener %+v, want the idle timeout 60 and the IDs kept", l)
	}

	warnings := diags.Warnings()
	if len(warnings) != 1 {
		t.Fatalf("warnings %v, want one", warnings)
	}

	detail := warnings[0].Detail()
	for _, want := range []string{"Load balancer web", "listener http: idle_timeout_seconds 50 → 60",
		"listener http: health_monitor.healthy_threshold 3 → 2", "nothing is replaced", "set them in the configuration"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the warning does not say %q:\n%s", want, detail)
		}
	}

	if strings.Contains(detail, "unhealthy_threshold") {
		t.Errorf("the warning names a threshold the configuration sets:\n%s", detail)
	}

	// Once applied, the plan is quiet.
	applied := planned
	applied.IdleTimeoutSeconds = types.Int64Value(60)
	state = withListeners(t, testModel(t), applied)
	plan = withListeners(t, testModel(t), applied)

	if _, diags := modifyPlanWith(t, &state, config, plan); len(diags) != 0 {
		t.Errorf("the plan after the apply says %v", diags)
	}
}

// unikornLoadBalancer makes on f a load balancer as Unikorn's region service makes one
// (uni-region pkg/providers/internal/openstack/provider.go, buildLoadBalancerCreateOpts, v1.16.5
// to v1.19.0): one nested create, named after Unikorn's resource ID, no tags and no
// descriptions, one TCP listener "http" on port 80 with Unikorn's idle timeout (60 s, in both
// data timeouts), a round-robin TCP pool with one member by address and port only (no subnet,
// no weight) and a TCP health monitor with Unikorn's defaults (10, 5, 2, 2). It returns its ID.
func unikornLoadBalancer(t *testing.T, f *fakeCloud) string {
	t.Helper()

	f.graphWorks = true
	svc := f.service()
	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)
	prefix := "lb-" + unikornLBID + "-http"
	idle := 60000

	lb, err := loadbalancers.Create(ctx, svc.Octavia, loadbalancers.CreateOpts{
		Name:        "lb-" + unikornLBID,
		VipSubnetID: f.subnetID,
		Listeners: []listeners.CreateOpts{{
			Name: prefix + "-listener", Protocol: listeners.ProtocolTCP, ProtocolPort: 80,
			TimeoutClientData: &idle, TimeoutMemberData: &idle,
			DefaultPool: &pools.CreateOpts{
				Name: prefix + "-pool", Protocol: pools.ProtocolTCP, LBMethod: pools.LBMethodRoundRobin,
				Members: []pools.CreateMemberOpts{{Address: "10.0.0.5", ProtocolPort: 8080}},
				Monitor: monitors.CreateOpts{Name: prefix + "-monitor", Type: monitors.TypeTCP, Delay: 10, Timeout: 5, MaxRetries: 2, MaxRetriesDown: 2},
			},
		}},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := svc.waitActive(ctx, lb.ID, "making the Unikorn load balancer"); err != nil {
		t.Fatal(err)
	}

	if err := svc.waitTree(ctx, lb.ID, "making the Unikorn load balancer"); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	return lb.ID
}

// TestUnikornLoadBalancer_mirroredPlansNoChangeAndWritesNothing: a load balancer made as Unikorn
// makes one, imported (Read after the import's ID, name, region and identity) under a
// configuration that mirrors it and leaves every default unset, plans exactly the state (no
// change, no warning), and an apply of that plan writes nothing to Octavia: the same IDs, no
// mark, no setting changed.
func TestUnikornLoadBalancer_mirroredPlansNoChangeAndWritesNothing(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	f := newFakeCloud(t)
	id := unikornLoadBalancer(t, f)
	svc := f.service()

	// The import: the ID, the user-given name (lb-<name>), the region and identity; Read the rest.
	top, err := svc.Observe(ctx, id, "")
	if err != nil || top == nil {
		t.Fatalf("reading the Unikorn load balancer: %v, %v", top, err)
	}

	imported := testModel(t)
	imported.ID, imported.Name, imported.NetworkID, imported.PublicIP = types.StringValue(id), types.StringValue(unikornLBID),
		types.StringNull(), types.BoolNull()

	var diags diag.Diagnostics

	state := observed(ctx, imported, top, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}

	// The mirroring configuration: name, network, one listener with its member and an empty
	// health_monitor; everything else unset.
	cfgListener := listenerOpts{name: "http", protocol: "TCP", port: 80}.model()
	cfgListener.ProxyProtocolV2 = types.BoolNull()
	cfgListener.HealthMonitor = monitorObject(monitorDefault(t, "interval_seconds"), monitorDefault(t, "timeout_seconds"), nil, nil)
	cfgListener.Members = types.ListValueMust(memberType, []attr.Value{types.ObjectValueMust(memberAttrTypes, map[string]attr.Value{
		"address": types.StringValue("10.0.0.5"), "port": types.Int64Value(8080), "weight": types.Int64Null(),
	})})

	config := withListeners(t, testModel(t), cfgListener)
	config.Name, config.PublicIP = types.StringValue(unikornLBID), types.BoolNull()

	// The plan Terraform proposes: the configuration, the schema's defaults, the prior values of
	// the computed attributes it leaves unset.
	stateListeners, _ := listenerModels(ctx, state.Listeners)
	planListener := cfgListener
	planListener.ProxyProtocolV2 = types.BoolValue(false)
	healthy, unhealthy := monitorDefault(t, "healthy_threshold"), monitorDefault(t, "unhealthy_threshold")
	planListener.HealthMonitor = monitorObject(monitorDefault(t, "interval_seconds"), monitorDefault(t, "timeout_seconds"), &healthy, &unhealthy)
	planListener.Members = types.ListValueMust(memberType, []attr.Value{types.ObjectValueMust(memberAttrTypes, map[string]attr.Value{
		"address": types.StringValue("10.0.0.5"), "port": types.Int64Value(8080), "weight": types.Int64Value(DefaultMemberWeight),
	})})
	planListener.ListenerID, planListener.PoolID, planListener.MonitorID = stateListeners[0].ListenerID, stateListeners[0].PoolID,
		stateListeners[0].MonitorID
	planListener.IdleTimeoutSeconds = stateListeners[0].IdleTimeoutSeconds

	plan := withListeners(t, state, planListener)
	plan.PublicIP = types.BoolValue(false)

	out, diags := modifyPlanWith(t, &state, config, plan)
	if diags.HasError() || len(diags.Warnings()) != 0 {
		t.Fatalf("plan: %v", diags)
	}

	if !out.Listeners.Equal(state.Listeners) {
		t.Errorf("the plan changes the listeners:\nplan  %s\nstate %s", out.Listeners, state.Listeners)
	}

	for name, pair := range map[string][2]attr.Value{
		"name": {out.Name, state.Name}, "network_id": {out.NetworkID, state.NetworkID}, "public_ip": {out.PublicIP, state.PublicIP},
		"vip_address": {out.VIPAddress, state.VIPAddress}, "public_ip_address": {out.PublicIPAddress, state.PublicIPAddress},
	} {
		if !pair[0].Equal(pair[1]) {
			t.Errorf("the plan changes %s: %s → %s", name, pair[1], pair[0])
		}
	}

	// Were it applied all the same (an update for another reason), it writes nothing.
	spec, diags := expandSpec(ctx, out)
	if diags.HasError() {
		t.Fatal(diags)
	}

	got, _, err := svc.Update(cloud.WithSleeper(ctx, cloudtest.Instant), spec, id)
	if err != nil || got != id {
		t.Fatalf("update: %s, %v", got, err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Errorf("the update of the Unikorn load balancer wrote %v", writes)
	}

	if tags := f.tags("loadbalancers", id); len(tags) != 0 {
		t.Errorf("the Unikorn load balancer has the tags %v, want none", tags)
	}
}
