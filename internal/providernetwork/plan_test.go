package providernetwork

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// validate runs ValidateConfig on m and returns the paths of its errors.
func validate(t *testing.T, m model) []string {
	t.Helper()

	ctx := context.Background()
	r := &providerNetworkResource{}

	var s resource.SchemaResponse

	r.Schema(ctx, resource.SchemaRequest{}, &s)

	tt, ok := s.Schema.Attributes["timeouts"].GetType().(timeouts.Type)
	if !ok {
		t.Fatal("timeouts has no timeouts.Type")
	}

	m.Timeouts = timeouts.Value{Object: types.ObjectNull(tt.AttrTypes)}

	state := tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
	if d := state.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}

	var resp resource.ValidateConfigResponse

	r.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: state.Raw}}, &resp)

	var paths []string

	for _, d := range resp.Diagnostics.Errors() {
		if p, ok := d.(interface{ Path() path.Path }); ok {
			paths = append(paths, p.Path().String())
		}
	}

	return paths
}

func baseModel() model {
	return model{
		RegionalObject: adapter.RegionalObject{Name: types.StringValue("pn"), Region: types.StringNull(), ID: types.StringNull()},
		NetworkType:    types.StringValue(TypeVLAN), PhysicalNetwork: types.StringValue("physnet1"),
		SegmentationID: types.Int64Null(), MTU: types.Int64Null(),
		External: types.BoolValue(false), Shared: types.BoolValue(false), Subnets: types.ListNull(subnetType),
	}
}

func subnetList(t *testing.T, subs ...map[string]string) types.List {
	t.Helper()

	var elems []subnetModel

	for _, s := range subs {
		m := subnetModel{
			Name: types.StringValue(s["name"]), CIDR: types.StringValue(s["cidr"]), ID: types.StringNull(),
			GatewayIP: types.StringNull(), EnableDHCP: types.BoolValue(true), DNSNameservers: types.ListNull(types.StringType),
			HostRoutes: types.SetNull(routeType), AllocationPools: types.SetNull(poolType),
		}

		if g, ok := s["gateway"]; ok {
			m.GatewayIP = types.StringValue(g)
		}

		if start, ok := s["start"]; ok {
			m.AllocationPools = poolsValue([]Pool{{Start: start, End: s["end"]}})
		}

		elems = append(elems, m)
	}

	l, d := types.ListValueFrom(context.Background(), subnetType, elems)
	if d.HasError() {
		t.Fatal(d)
	}

	return l
}

func TestValidateConfigPaths(t *testing.T) {
	t.Parallel()

	flat := baseModel()
	flat.NetworkType, flat.SegmentationID = types.StringValue(TypeFlat), types.Int64Value(150)

	pools := baseModel()
	pools.Subnets = subnetList(t,
		map[string]string{"name": "ok", "cidr": "192.0.2.0/24"},
		map[string]string{"name": "gw", "cidr": "198.51.100.0/24", "start": "198.51.100.1", "end": "198.51.100.9"},
		map[string]string{"name": "out", "cidr": "203.0.113.0/24", "gateway": "10.0.0.1", "start": "203.0.113.200", "end": "203.0.114.1"},
		map[string]string{"name": "ok", "cidr": "192.0.2.0/25"},
	)

	for name, c := range map[string]struct {
		m    model
		want []string
	}{
		"valid":         {baseModel(), nil},
		"flat with ID":  {flat, []string{"segmentation_id"}},
		"subnet checks": {pools, []string{"subnets[1].allocation_pools", "subnets[2].gateway_ip", "subnets[2].allocation_pools", "subnets[3].name"}},
	} {
		got := validate(t, c.m)
		if len(got) != len(c.want) {
			t.Errorf("%s: error paths %v, want %v", name, got, c.want)
			continue
		}

		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: error paths %v, want %v", name, got, c.want)
			}
		}
	}
}
