package network

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// An argument of provider_network known only after apply is reported at its path, once, and
// configures no provider network.
func TestExpandConfigUnknownProviderNetwork(t *testing.T) {
	t.Parallel()

	rangeType := types.ObjectType{AttrTypes: map[string]attr.Type{"end": types.Int64Type, "start": types.Int64Type}}
	pnTypes := map[string]attr.Type{"physical_network": types.StringType, "vlan_ranges": types.ListType{ElemType: rangeType}}
	vr := func(start, end types.Int64) attr.Value {
		return types.ObjectValueMust(rangeType.AttrTypes, map[string]attr.Value{"end": end, "start": start})
	}
	ext := types.ObjectNull(map[string]attr.Type{"ids": types.SetType{ElemType: types.StringType}, "tags": types.SetType{ElemType: types.StringType}})

	for _, tt := range []struct {
		name     string
		physical types.String
		ranges   types.List
		want     []string
	}{
		{
			name: "physical network", physical: types.StringUnknown(),
			ranges: types.ListValueMust(rangeType, []attr.Value{vr(types.Int64Value(100), types.Int64Value(110))}),
			want:   []string{"provider_network.physical_network"},
		},
		{
			name: "the ranges", physical: types.StringValue("physnet1"), ranges: types.ListUnknown(rangeType),
			want: []string{"provider_network.vlan_ranges"},
		},
		{
			name: "a range's start", physical: types.StringValue("physnet1"),
			ranges: types.ListValueMust(rangeType, []attr.Value{
				vr(types.Int64Value(100), types.Int64Value(110)), vr(types.Int64Unknown(), types.Int64Value(210)),
			}),
			want: []string{"provider_network.vlan_ranges[1].start"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			pn := types.ObjectValueMust(pnTypes, map[string]attr.Value{"physical_network": tt.physical, "vlan_ranges": tt.ranges})

			cfg, diags := ExpandConfig(context.Background(), ext, pn, func(string) string { return "" })
			if cfg != nil {
				t.Errorf("config %+v despite %v", cfg, diags)
			}

			var paths []string

			for _, d := range diags.Errors() {
				wp, ok := d.(diag.DiagnosticWithPath)
				if !ok || d.Summary() != adapter.SummaryUnknownArgument {
					t.Errorf("diagnostic %v", d)
					continue
				}

				paths = append(paths, wp.Path().String())
			}

			if !slices.Equal(paths, tt.want) {
				t.Errorf("errors at %v, want %v", paths, tt.want)
			}
		})
	}
}
