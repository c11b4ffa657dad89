package flavor

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func dataSourceSchema(t *testing.T, ds datasource.DataSource) schema.Schema {
	t.Helper()

	resp := &datasource.SchemaResponse{}
	ds.Schema(context.Background(), datasource.SchemaRequest{}, resp)

	if resp.Diagnostics.HasError() {
		t.Fatalf("Schema: %v", resp.Diagnostics)
	}

	return resp.Schema
}

// checkDescriptions fails for every attribute, however deep, without a MarkdownDescription.
func checkDescriptions(t *testing.T, prefix string, attributes map[string]schema.Attribute) {
	t.Helper()

	for name, a := range attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("attribute %s%s has no MarkdownDescription", prefix, name)
		}

		switch n := a.(type) {
		case schema.SingleNestedAttribute:
			checkDescriptions(t, prefix+name+".", n.Attributes)
		case schema.ListNestedAttribute:
			checkDescriptions(t, prefix+name+"[*].", n.NestedObject.Attributes)
		}
	}
}

func TestDataSourceSchemas(t *testing.T) {
	t.Parallel()

	for _, ds := range []datasource.DataSource{NewFlavorsDataSource(), NewFlavorDataSource()} {
		s := dataSourceSchema(t, ds)

		if diags := s.ValidateImplementation(context.Background()); diags.HasError() {
			t.Errorf("schema: %v", diags)
		}

		checkDescriptions(t, "", s.Attributes)
	}
}

// TestModelsMatchSchemas writes fully populated models into states of the data sources'
// schemas: a tfsdk tag or attribute type that does not match fails here, without a CLI.
func TestModelsMatchSchemas(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	flavors, diags := flattenFlavors(ctx, []Flavor{gpuOne, small})
	if diags.HasError() {
		t.Fatal(diags)
	}

	one, diags := flattenFlavor(ctx, gpuAMD)
	if diags.HasError() {
		t.Fatal(diags)
	}

	oneObject, diags := types.ObjectValueFrom(ctx, flavorAttrTypes, one)
	if diags.HasError() {
		t.Fatal(diags)
	}

	filters := filterModel{
		Architecture: types.StringValue("x86_64"), Baremetal: types.BoolValue(false),
		GPUModel: types.StringNull(), GPUVendor: types.StringValue("AMD"),
		MinCPUs: types.Int64Value(2), MinGPUs: types.Int64Null(), MinMemoryGiB: types.Float64Value(1.5),
		Region: types.StringValue("RegionOne"),
	}

	tests := []struct {
		ds    datasource.DataSource
		model any
	}{
		{NewFlavorsDataSource(), &flavorsModel{filterModel: filters, Flavors: flavors}},
		{NewFlavorDataSource(), &singleFlavorModel{
			filterModel: filters, Flavor: oneObject, ID: types.StringValue(gpuAMD.ID),
			Name: types.StringValue(gpuAMD.Name), Smallest: types.BoolValue(true),
		}},
	}

	for _, tt := range tests {
		s := dataSourceSchema(t, tt.ds)
		state := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}

		if diags := state.Set(ctx, tt.model); diags.HasError() {
			t.Errorf("%T: %v", tt.model, diags)
		}
	}
}

func TestFlattenFlavor(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	withGPU := gpuOne
	withGPU.CPUFamily = "Sapphire Rapids"
	withGPU.ExtraSpecs = map[string]string{"k": "v"}
	withGPU.GPU = &GPU{Vendor: "NVIDIA", Model: "H100", PhysicalCount: 1, LogicalCount: 1}

	m, diags := flattenFlavor(ctx, withGPU)
	if diags.HasError() {
		t.Fatal(diags)
	}

	if m.CPUFamily.ValueString() != "Sapphire Rapids" || m.MemoryGiB.ValueFloat64() != 64 || m.CPUs.ValueInt64() != 8 {
		t.Errorf("flattened %+v", m)
	}

	var gpu gpuModel
	if diags := m.GPU.As(ctx, &gpu, basetypes.ObjectAsOptions{}); diags.HasError() {
		t.Fatal(diags)
	}

	if !gpu.MemoryGiB.IsNull() || gpu.LogicalCount.ValueInt64() != 1 || gpu.Vendor.ValueString() != "NVIDIA" {
		t.Errorf("GPU with unknown memory flattened to %+v, want memory_gib null", gpu)
	}

	plain, diags := flattenFlavor(ctx, halfGiB)
	if diags.HasError() {
		t.Fatal(diags)
	}

	if !plain.GPU.IsNull() || !plain.CPUFamily.IsNull() || plain.MemoryGiB.ValueFloat64() != 0.5 ||
		plain.ExtraSpecs.IsNull() || len(plain.ExtraSpecs.Elements()) != 0 {
		t.Errorf("plain flavor flattened to %+v, want null gpu and cpu_family, empty extra_specs", plain)
	}
}

func TestPickOne(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		matches  []Flavor
		smallest bool
		wantID   string
		wantErr  string
	}{
		{name: "one", matches: []Flavor{arm}, wantID: arm.ID},
		{name: "smallest of several", matches: []Flavor{medium, small, metal}, smallest: true, wantID: small.ID},
		{name: "several", matches: []Flavor{medium, small}, wantErr: "In region R: expected exactly one flavor, but 2 match the filters: medium (2), small (1). Narrow the filters, or set smallest = true"},
		{name: "none", wantErr: "No public flavor in region R matches the filters"},
		{name: "none, smallest", smallest: true, wantErr: "No public flavor in region R matches the filters"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, diags := pickOne(tt.matches, tt.smallest, "R")

			if tt.wantErr == "" {
				if diags.HasError() || got.ID != tt.wantID {
					t.Errorf("pickOne = %s, %v; want %s", got.ID, diags, tt.wantID)
				}

				return
			}

			if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), tt.wantErr) {
				t.Errorf("pickOne diagnostics = %v, want %q", diags, tt.wantErr)
			}
		})
	}
}
