package server

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
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

	lookup, _ := NewServerLookup().(*adapter.LookupDataSource[meta, serverModel])

	state, diags := lookup.StateOf(ctx, m)
	if diags.HasError() {
		t.Fatalf("writing the model: %v", diags)
	}

	for name, want := range map[string]attr.Value{
		"identity_id": types.StringValue("proj-1"), "port_id": types.StringValue("port-1"), "power_state": types.StringValue(PowerRunning),
		"volumes": types.SetValueMust(types.StringType, []attr.Value{types.StringValue("vol-1")}), "tags": types.MapNull(types.StringType),
		"provider_id": types.StringValue("openstack://RegionOne/srv-1"), "root_volume": types.ObjectNull(rootVolumeAttrTypes),
	} {
		var got attr.Value

		if d := state.GetAttribute(ctx, path.Root(name), &got); d.HasError() || !got.Equal(want) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
