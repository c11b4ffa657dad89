package loadbalancer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func testSchema(t *testing.T) schema.Schema {
	t.Helper()

	var resp resource.SchemaResponse

	NewResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)

	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}

	return resp.Schema
}

func TestSchema_valid(t *testing.T) {
	t.Parallel()

	s := testSchema(t)
	if diags := s.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("schema implementation: %v", diags)
	}

	for name, a := range s.Attributes {
		if a.GetMarkdownDescription() == "" && name != "timeouts" {
			t.Errorf("attribute %s has no description", name)
		}
	}
}

// listener builds a listener model; unset optional values are null.
type listenerOpts struct {
	name, protocol string
	port           int64
	idle           *int64
	proxy          bool
	monitor        *[2]int64 // interval, timeout
	members        []member
	ids            [3]string // listener, pool, monitor
}

type member struct {
	address string
	port    int64
	weight  int64
}

func monitorValue(interval, timeout int64) types.Object {
	return types.ObjectValueMust(monitorAttrTypes, map[string]attr.Value{
		"healthy_threshold": types.Int64Value(3), "interval_seconds": types.Int64Value(interval),
		"timeout_seconds": types.Int64Value(timeout), "unhealthy_threshold": types.Int64Value(3),
	})
}

func (o listenerOpts) model() listenerModel {
	l := listenerModel{
		Name:               types.StringValue(o.name),
		Protocol:           types.StringValue(o.protocol),
		Port:               types.Int64Value(o.port),
		ProxyProtocolV2:    types.BoolValue(o.proxy),
		AllowedCIDRs:       types.SetNull(types.StringType),
		Members:            types.ListNull(memberType),
		HealthMonitor:      types.ObjectNull(monitorAttrTypes),
		IdleTimeoutSeconds: types.Int64Null(),
		ListenerID:         types.StringNull(),
		PoolID:             types.StringNull(),
		MonitorID:          types.StringNull(),
	}

	if o.idle != nil {
		l.IdleTimeoutSeconds = types.Int64Value(*o.idle)
	}

	if o.monitor != nil {
		l.HealthMonitor = monitorValue(o.monitor[0], o.monitor[1])
	}

	if o.members != nil {
		var ms []attr.Value
		for _, m := range o.members {
			ms = append(ms, types.ObjectValueMust(memberAttrTypes, map[string]attr.Value{
				"address": types.StringValue(m.address), "port": types.Int64Value(m.port), "weight": types.Int64Value(m.weight),
			}))
		}

		l.Members = types.ListValueMust(memberType, ms)
	}

	for i, id := range o.ids {
		if id == "" {
			continue
		}

		v := types.StringValue(id)

		switch i {
		case 0:
			l.ListenerID = v
		case 1:
			l.PoolID = v
		case 2:
			l.MonitorID = v
		}
	}

	return l
}

func testModel(t *testing.T, ls ...listenerOpts) loadBalancerModel {
	t.Helper()

	m := loadBalancerModel{
		ID:                 types.StringNull(),
		IdentityID:         types.StringValue("project-1"),
		Name:               types.StringValue("web"),
		NetworkID:          types.StringValue("net-1"),
		Region:             types.StringValue("RegionOne"),
		PublicIP:           types.BoolValue(false),
		PublicIPAddress:    types.StringNull(),
		VIPAddress:         types.StringNull(),
		VIPPortID:          types.StringNull(),
		ProvisioningStatus: types.StringNull(),
		OperatingStatus:    types.StringNull(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType,
		})},
		Listeners: types.ListNull(types.ObjectType{AttrTypes: listenerAttrTypes}),
	}

	if len(ls) > 0 {
		var models []listenerModel
		for _, l := range ls {
			models = append(models, l.model())
		}

		m.Listeners = types.ListValueMust(types.ObjectType{AttrTypes: listenerAttrTypes}, toValues(t, models))
	}

	return m
}

func toValues(t *testing.T, ls []listenerModel) []attr.Value {
	t.Helper()

	list, diags := types.ListValueFrom(context.Background(), types.ObjectType{AttrTypes: listenerAttrTypes}, ls)
	if diags.HasError() {
		t.Fatal(diags)
	}

	return list.Elements()
}

// raw turns a model into a value of the schema's type.
func raw(t *testing.T, s schema.Schema, m loadBalancerModel) tftypes.Value {
	t.Helper()

	p := tfsdk.Plan{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(context.Background()), nil)}
	if diags := p.Set(context.Background(), &m); diags.HasError() {
		t.Fatalf("building a value: %v", diags)
	}

	return p.Raw
}

func int64p(v int64) *int64 { return &v }

// errorPaths lists "path: summary" of the errors.
func errorPaths(diags diag.Diagnostics) []string {
	var out []string

	for _, d := range diags.Errors() {
		p := ""
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			p = wp.Path().String()
		}

		out = append(out, p+": "+d.Summary())
	}

	return out
}

func TestValidateConfig(t *testing.T) {
	t.Parallel()

	s := testSchema(t)

	for _, c := range []struct {
		name      string
		listeners []listenerOpts
		want      []string // "path: summary" prefixes
	}{
		{"valid", []listenerOpts{
			{name: "https", protocol: "TCP", port: 443, proxy: true, idle: int64p(60), monitor: &[2]int64{10, 5}},
			{name: "dns", protocol: "UDP", port: 443, monitor: &[2]int64{5, 3}}, // same port, other protocol
		}, nil},
		{"udp idle timeout", []listenerOpts{{name: "dns", protocol: "UDP", port: 53, idle: int64p(10)}},
			[]string{"listeners[0].idle_timeout_seconds: Idle timeout on a UDP listener"}},
		{"udp proxy", []listenerOpts{{name: "dns", protocol: "UDP", port: 53, proxy: true}},
			[]string{"listeners[0].proxy_protocol_v2: PROXY protocol on a UDP listener"}},
		{"timeout not below interval", []listenerOpts{{name: "a", protocol: "TCP", port: 80, monitor: &[2]int64{5, 5}}},
			[]string{"listeners[0].health_monitor.timeout_seconds: Health monitor timeout not below its interval"}},
		{"udp monitor too often", []listenerOpts{{name: "dns", protocol: "UDP", port: 53, monitor: &[2]int64{2, 1}}},
			[]string{"listeners[0].health_monitor.interval_seconds: Health monitor interval too short for UDP"}},
		{"duplicate names", []listenerOpts{{name: "a", protocol: "TCP", port: 80}, {name: "a", protocol: "TCP", port: 81}},
			[]string{"listeners[1].name: Duplicate listener name"}},
		{"duplicate ports", []listenerOpts{{name: "a", protocol: "TCP", port: 80}, {name: "b", protocol: "TCP", port: 80}},
			[]string{"listeners[1].port: Duplicate listener port"}},
		{"invalid listener name", []listenerOpts{{name: " a", protocol: "TCP", port: 80}},
			[]string{"listeners[0].name: Invalid listener name"}},
		{"duplicate member", []listenerOpts{
			{name: "a", protocol: "TCP", port: 80, members: []member{{"10.0.0.5", 80, 1}, {"10.0.0.6", 80, 1}, {"10.0.0.5", 80, 1}}},
			{name: "b", protocol: "TCP", port: 81, members: []member{{"10.0.0.5", 80, 1}, {"10.0.0.5", 81, 1}}}, // another pool, another port
		}, []string{"listeners[0].members[2]: Duplicate member"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()

			var resp resource.ValidateConfigResponse

			(&loadBalancerResource{}).ValidateConfig(context.Background(), resource.ValidateConfigRequest{
				Config: tfsdk.Config{Schema: s, Raw: raw(t, s, testModel(t, c.listeners...))},
			}, &resp)

			got := errorPaths(resp.Diagnostics)
			if len(got) != len(c.want) {
				t.Fatalf("errors %q, want %q", got, c.want)
			}

			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("error %q, want %q", got[i], c.want[i])
				}
			}
		})
	}
}

func modifyPlan(t *testing.T, state *loadBalancerModel, plan loadBalancerModel) (loadBalancerModel, diag.Diagnostics) {
	t.Helper()

	s := testSchema(t)
	ctx := context.Background()

	req := resource.ModifyPlanRequest{
		Plan:   tfsdk.Plan{Schema: s, Raw: raw(t, s, plan)},
		Config: tfsdk.Config{Schema: s, Raw: raw(t, s, plan)},
		State:  tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)},
	}

	if state != nil {
		req.State.Raw = raw(t, s, *state)
	}

	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	(&loadBalancerResource{}).ModifyPlan(ctx, req, &resp)

	var out loadBalancerModel
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &out)...)
	}

	return out, resp.Diagnostics
}

func TestModifyPlan_immutableListenerFields(t *testing.T) {
	t.Parallel()

	state := testModel(t,
		listenerOpts{name: "a", protocol: "TCP", port: 80, ids: [3]string{"l-a", "p-a", ""}},
		listenerOpts{name: "b", protocol: "TCP", port: 81, proxy: true, ids: [3]string{"l-b", "p-b", ""}},
	)
	plan := testModel(t,
		listenerOpts{name: "a", protocol: "UDP", port: 8080},
		listenerOpts{name: "b", protocol: "TCP", port: 81},
	)

	_, diags := modifyPlan(t, &state, plan)

	got := errorPaths(diags)
	want := []string{
		"listeners[0].protocol: Listener protocol cannot change",
		"listeners[0].port: Listener port cannot change",
		"listeners[1].proxy_protocol_v2: Listener proxy_protocol_v2 cannot change",
	}

	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if !strings.Contains(diags.Errors()[0].Detail(), "new name") {
		t.Errorf("the error does not tell to rename the listener: %s", diags.Errors()[0].Detail())
	}
}

func TestModifyPlan_computedByListenerName(t *testing.T) {
	t.Parallel()

	state := testModel(t,
		listenerOpts{name: "a", protocol: "TCP", port: 80, idle: int64p(50), monitor: &[2]int64{10, 5}, ids: [3]string{"l-a", "p-a", "m-a"}},
		listenerOpts{name: "b", protocol: "TCP", port: 81, idle: int64p(50), ids: [3]string{"l-b", "", ""}}, // pool gone
		listenerOpts{name: "gone", protocol: "TCP", port: 82, idle: int64p(50), ids: [3]string{"l-g", "p-g", ""}},
	)
	// Reordered, a monitor removed from a, a new listener c, gone dropped.
	plan := testModel(t,
		listenerOpts{name: "c", protocol: "UDP", port: 53},
		listenerOpts{name: "b", protocol: "TCP", port: 81},
		listenerOpts{name: "a", protocol: "TCP", port: 80},
	)

	out, diags := modifyPlan(t, &state, plan)
	if diags.HasError() {
		t.Fatal(diags)
	}

	ls, _ := listenerModels(context.Background(), out.Listeners)

	check := func(what string, got attr.Value, want string) {
		t.Helper()

		if got.String() != want {
			t.Errorf("%s = %s, want %s", what, got, want)
		}
	}

	check("c.listener_id", ls[0].ListenerID, "<unknown>")
	check("c.pool_id", ls[0].PoolID, "<unknown>")
	check("c.monitor_id", ls[0].MonitorID, "<null>")
	check("c.idle_timeout_seconds", ls[0].IdleTimeoutSeconds, "<null>") // UDP
	check("b.listener_id", ls[1].ListenerID, `"l-b"`)
	check("b.pool_id", ls[1].PoolID, "<unknown>")                   // missing: the apply repairs it
	check("b.idle_timeout_seconds", ls[1].IdleTimeoutSeconds, "60") // unset: the default, not Octavia's 50
	check("a.listener_id", ls[2].ListenerID, `"l-a"`)
	check("a.pool_id", ls[2].PoolID, `"p-a"`)
	check("a.monitor_id", ls[2].MonitorID, "<null>")
}

func TestRenderStatusTree(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	f.failOn = "POST healthmonitors"

	_, err := f.service().Ensure(t.Context(), threeListeners(false), "", nil)
	if err == nil {
		t.Fatal("no error")
	}

	for _, want := range []string{
		"health monitor lb-web-https-monitor (monitor-",
		"is in provisioning status ERROR",
		"\n  load balancer lb-web (lb-1): provisioning ACTIVE, operating OFFLINE",
		"\n        health monitor lb-web-https-monitor (",
		"): provisioning ERROR, operating ONLINE",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%s", want, err)
		}
	}
}

// TestState_membersOfAnEarlierVersion: the state of a version whose members were a set (the
// same JSON array in the state file) reads as today's list, with its members, as the
// framework decodes a stored state (tfprotov6.RawState).
func TestState_membersOfAnEarlierVersion(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	s := testSchema(t)

	raw, err := (&tfprotov6.RawState{JSON: []byte(`{
		"id": "lb-1", "identity_id": "project-1", "name": "web", "network_id": "net-1", "region": "RegionOne",
		"public_ip": false, "listeners": [{
			"name": "http", "protocol": "TCP", "port": 80, "proxy_protocol_v2": false, "listener_id": "l-1", "pool_id": "p-1",
			"members": [{"address": "10.0.0.6", "port": 80}, {"address": "10.0.0.5", "port": 80}]
		}]
	}`)}).Unmarshal(s.Type().TerraformType(ctx))
	if err != nil {
		t.Fatal(err)
	}

	var m loadBalancerModel
	if diags := (tfsdk.State{Schema: s, Raw: raw}).Get(ctx, &m); diags.HasError() {
		t.Fatal(diags)
	}

	ls, _ := listenerModels(ctx, m.Listeners)

	var diags diag.Diagnostics
	if got := memberSpecs(ctx, ls[0].Members, &diags); len(got) != 2 || got[0] != (Member{"10.0.0.6", 80, DefaultMemberWeight}) || diags.HasError() {
		t.Errorf("members = %v (%v), want both, in the stored order", got, diags)
	}
}

// TestMemberList_keepsTheConfiguredOrder: a refresh lists the members Octavia has in the
// prior order (no diff for an unchanged configuration), new ones after them.
func TestMemberList_keepsTheConfiguredOrder(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	prior := listenerOpts{members: []member{{"10.0.0.9", 80, 1}, {"10.0.0.1", 80, 1}, {"10.0.0.5", 80, 1}}}.model().Members

	var diags diag.Diagnostics

	got := memberSpecs(ctx, memberList(ctx, sortMembers([]Member{{"10.0.0.5", 80, 1}, {"10.0.0.7", 80, 1}, {"10.0.0.9", 80, 1}}), prior, &diags), &diags)

	want := []Member{{"10.0.0.9", 80, 1}, {"10.0.0.5", 80, 1}, {"10.0.0.7", 80, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) || diags.HasError() {
		t.Errorf("members = %v (%v), want %v", got, diags, want)
	}
}
