package volume

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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

	r := &resource.SchemaResponse{}
	NewResource().Schema(ctx, resource.SchemaRequest{}, r)

	rt, ok := r.Schema.Type().(attr.TypeWithAttributeTypes)
	dt, ok2 := s.Schema.Type().(attr.TypeWithAttributeTypes)

	if !ok || !ok2 {
		t.Fatal("a schema's type is not an object")
	}

	full, diags := types.ObjectValueFrom(ctx, rt.AttributeTypes(), m)
	values := full.Attributes()
	delete(values, "timeouts")

	obj, more := types.ObjectValue(dt.AttributeTypes(), values)
	diags.Append(more...)

	if !diags.HasError() {
		state := tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
		diags.Append(state.Set(ctx, obj)...)
	}

	if diags.HasError() {
		t.Fatalf("writing the model: %v", diags)
	}

	for name, want := range map[string]attr.Value{
		"name": types.StringValue("data"), "project_id": types.StringValue("proj-1"), "identity_id": types.StringNull(),
		"region": types.StringValue("RegionOne"), "size_gb": types.Int64Value(2), "volume_class": types.StringValue("class-1"),
	} {
		if got := values[name]; !got.Equal(want) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
