package volume

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// TestVolumeLookupSchema: the look-up's schema builds from the resource's, with both scopes, and
// the model of a volume found in a unikorn_project's project writes into it (what the kit keeps
// of the resource's model: all but the timeouts).
func TestVolumeLookupSchema(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	s := &datasource.SchemaResponse{}
	NewVolumeLookup().Schema(ctx, datasource.SchemaRequest{}, s)

	if _, ok := s.Schema.Attributes["timeouts"]; ok {
		t.Error("the data source has timeouts")
	}

	for _, name := range []string{"id", "name", "identity_id", "project_id", "region"} {
		if a, ok := s.Schema.Attributes[name]; !ok || !a.IsOptional() || !a.IsComputed() {
			t.Errorf("%s: %+v, want optional and computed", name, a)
		}
	}

	m := lookedUp("RegionOne", adapter.Scoped{Attribute: "project_id", Value: "proj-1"}, &Volume{
		ID: "vol-1", Name: "volume-data", Status: StatusInUse, SizeGB: 2, ClassID: "class-1",
		Attachments: []Attachment{{ServerID: "srv-1", Device: "/dev/vdb", AttachmentID: "att-1"}},
	})

	lookup, _ := NewVolumeLookup().(*adapter.LookupDataSource[meta, volumeModel])

	state, diags := lookup.StateOf(ctx, m)
	if diags.HasError() {
		t.Fatalf("writing the model: %v", diags)
	}

	for name, want := range map[string]attr.Value{
		"name": types.StringValue("data"), "project_id": types.StringValue("proj-1"), "identity_id": types.StringNull(),
		"region": types.StringValue("RegionOne"), "size_gb": types.Int64Value(2), "volume_class": types.StringValue("class-1"),
	} {
		var got attr.Value

		if d := state.GetAttribute(ctx, path.Root(name), &got); d.HasError() || !got.Equal(want) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
