package server

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestServerLookupSchema: the look-up's schema builds from the resource's (its own attributes
// optional, the write-only user data and the timeouts left out), and the model of a looked-up
// server (a Unikorn one, with a volume attached) writes into it as the kit writes it: the
// resource's model, less what the data source leaves out.
func TestServerLookupSchema(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	s := &datasource.SchemaResponse{}
	NewServerLookup().Schema(ctx, datasource.SchemaRequest{}, s)

	for name, optional := range map[string]bool{"id": true, "name": true, "identity_id": true, "region": true, "port_id": false, "metadata": false} {
		if a, ok := s.Schema.Attributes[name]; !ok || !a.IsComputed() || a.IsOptional() != optional {
			t.Errorf("%s: %+v, want computed, optional %v", name, a, optional)
		}
	}

	for _, name := range []string{"timeouts", "user_data"} {
		if _, ok := s.Schema.Attributes[name]; ok {
			t.Errorf("the data source has %s", name)
		}
	}

	m, err := lookedUp(ctx, &Service{region: "RegionOne"}, &Server{
		ID: "srv-1", Name: "web", ProjectID: "proj-1", Status: statusActive, FlavorID: "f-1", ImageID: "img-1",
		Metadata: map[string]string{"serverID": "unikorn-1"}, VolumeIDs: []string{"vol-1"},
		Port: &Port{ID: "port-1", NetworkID: "net-1", MACAddress: "fa:16:3e:00:00:01", PrivateIP: "10.0.0.5", SecurityGroupIDs: []string{"sg-1"}},
	})
	if err != nil {
		t.Fatal(err)
	}

	values := writeLookup(t, s, m)

	for name, want := range map[string]attr.Value{
		"identity_id": types.StringValue("proj-1"), "port_id": types.StringValue("port-1"), "power_state": types.StringValue(PowerRunning),
		"volumes": types.SetValueMust(types.StringType, []attr.Value{types.StringValue("vol-1")}), "tags": types.MapNull(types.StringType),
		"provider_id": types.StringValue("openstack://RegionOne/srv-1"), "root_volume": types.ObjectNull(rootVolumeAttrTypes),
	} {
		if got := values[name]; !got.Equal(want) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}

// writeLookup writes the resource's model m into the state of the data source of schema s, as
// the kit does, and returns the attributes written.
func writeLookup(t *testing.T, s *datasource.SchemaResponse, m serverModel) map[string]attr.Value {
	t.Helper()

	ctx := context.Background()

	r := &resource.SchemaResponse{}
	NewResource().Schema(ctx, resource.SchemaRequest{}, r)

	rt, ok := r.Schema.Type().(attr.TypeWithAttributeTypes)
	dt, ok2 := s.Schema.Type().(attr.TypeWithAttributeTypes)

	if !ok || !ok2 {
		t.Fatal("a schema's type is not an object")
	}

	full, diags := types.ObjectValueFrom(ctx, rt.AttributeTypes(), m)
	if diags.HasError() {
		t.Fatalf("the resource's model: %v", diags)
	}

	kept := map[string]attr.Value{}
	for name := range dt.AttributeTypes() {
		kept[name] = full.Attributes()[name]
	}

	obj, diags := types.ObjectValue(dt.AttributeTypes(), kept)
	if diags.HasError() {
		t.Fatalf("the data source's attributes: %v", diags)
	}

	state := tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
	if diags := state.Set(ctx, obj); diags.HasError() {
		t.Fatalf("writing the state: %v", diags)
	}

	return kept
}
