package flavor

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// TestKeepMatchesSchema lets each data source's model keep a result and writes it into a
// state of the data source's schema: a tfsdk tag or attribute type that does not match fails
// here, without a CLI.
func TestKeepMatchesSchema(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	filters := filterModel{
		Architecture: types.StringValue("x86_64"), Baremetal: types.BoolValue(false),
		GPUModel: types.StringNull(), GPUVendor: types.StringValue("AMD"),
		MinCPUs: types.Int64Value(2), MinGPUs: types.Int64Null(), MinMemoryGiB: types.Float64Value(1.5),
		Region: types.StringValue("RegionOne"),
	}

	single := &singleFlavorModel{filterModel: filters, Name: types.StringNull(), Smallest: types.BoolValue(true)}

	tests := []struct {
		ds    datasource.DataSource
		model adapter.CatalogModel[Flavor, Filter]
	}{
		{NewFlavorsDataSource(), &flavorsModel{filterModel: filters}},
		{NewFlavorDataSource(), single},
	}

	for _, tt := range tests {
		var diags diag.Diagnostics

		tt.model.Keep(ctx, []Flavor{gpuOne, small, gpuAMD}, "RegionOne", &diags)

		diags.Append(adapter.WriteState(ctx, tt.ds, tt.model)...)

		if diags.HasError() {
			t.Errorf("%T: %v", tt.model, diags)
		}
	}

	if single.ID.ValueString() != small.ID || single.Flavor.Attributes()["name"].String() != `"small"` {
		t.Errorf("unikorn_flavor with smallest kept %s, %v; want %s", single.ID, single.Flavor, small.ID)
	}
}

func TestFlattenFlavor(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	withGPU := gpuOne
	withGPU.CPUFamily = "Sapphire Rapids"
	withGPU.ExtraSpecs = map[string]string{"k": "v"}
	withGPU.GPU = &GPU{Vendor: "NVIDIA", Model: "H100", PhysicalCount: 1, LogicalCount: 1}

	var diags diag.Diagnostics

	m := flattenFlavor(ctx, withGPU, &diags)
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

	plain := flattenFlavor(ctx, halfGiB, &diags)
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

			var diags diag.Diagnostics

			got, ok := pickOne(tt.matches, tt.smallest, "R", &diags)
			if ok == diags.HasError() {
				t.Fatalf("pickOne = %v with diagnostics %v", ok, diags)
			}

			if tt.wantErr == "" {
				if !ok || got.ID != tt.wantID {
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
