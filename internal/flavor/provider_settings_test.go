package flavor

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// overrideTypes are the object types of the provider argument `flavors`.
func overrideTypes(t *testing.T) (elem, cpu, gpu types.ObjectType) {
	t.Helper()

	attribute, ok := ProviderAttributes()[OverridesArgument].(schema.ListNestedAttribute)
	if !ok {
		t.Fatalf("%s is not a list nested attribute", OverridesArgument)
	}

	elem, ok = attribute.NestedObject.Type().(types.ObjectType)
	if !ok {
		t.Fatal("unexpected element type")
	}

	cpu, _ = elem.AttrTypes["cpu"].(types.ObjectType)
	gpu, _ = elem.AttrTypes["gpu"].(types.ObjectType)

	return elem, cpu, gpu
}

// override builds one element of `flavors`; cpu and gpu may be nil (null).
func override(t *testing.T, id attr.Value, memory int64, cpu, gpu map[string]attr.Value) attr.Value {
	t.Helper()

	elemType, cpuType, gpuType := overrideTypes(t)

	obj := func(typ types.ObjectType, values map[string]attr.Value) attr.Value {
		if values == nil {
			return types.ObjectNull(typ.AttrTypes)
		}

		for name, at := range typ.AttrTypes {
			if _, ok := values[name]; !ok {
				v, err := at.ValueFromTerraform(context.Background(), tftypes.NewValue(at.TerraformType(context.Background()), nil))
				if err != nil {
					t.Fatal(err)
				}

				values[name] = v
			}
		}

		return types.ObjectValueMust(typ.AttrTypes, values)
	}

	mem := types.Int64Null()
	if memory > 0 {
		mem = types.Int64Value(memory)
	}

	return obj(elemType, map[string]attr.Value{
		"id":          id,
		"memory_gib":  mem,
		"baremetal":   types.BoolValue(true),
		"pinned_only": types.BoolNull(),
		"cpu":         obj(cpuType, cpu),
		"gpu":         obj(gpuType, gpu),
	})
}

func overrideList(t *testing.T, elems ...attr.Value) types.List {
	t.Helper()

	elemType, _, _ := overrideTypes(t)

	return types.ListValueMust(elemType, elems)
}

func errorPaths(diags diag.Diagnostics) []string {
	var out []string

	for _, d := range diags.Errors() {
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			out = append(out, wp.Path().String()+": "+d.Detail())
		} else {
			out = append(out, d.Detail())
		}
	}

	return out
}

func TestExpandOverrides(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	t.Run("null", func(t *testing.T) {
		t.Parallel()

		elemType, _, _ := overrideTypes(t)

		got, diags := ExpandOverrides(ctx, types.ListNull(elemType))
		if got != nil || diags.HasError() {
			t.Errorf("ExpandOverrides(null) = %v, %v", got, diags)
		}
	})

	t.Run("complete", func(t *testing.T) {
		t.Parallel()

		list := overrideList(t,
			override(t, types.StringValue("a"), 16,
				map[string]attr.Value{"architecture": types.StringValue("aarch64"), "count": types.Int64Value(8), "family": types.StringValue("Grace")},
				map[string]attr.Value{
					"vendor": types.StringValue("NVIDIA"), "model": types.StringValue("H100"),
					"memory_gib": types.Int64Value(80), "physical_count": types.Int64Value(1),
				}),
			override(t, types.StringValue("b"), 0, nil, nil),
		)

		got, diags := ExpandOverrides(ctx, list)
		if diags.HasError() {
			t.Fatalf("ExpandOverrides: %v", diags)
		}

		want := Overrides{
			"a": {
				CPU:       CPU{Architecture: "aarch64", Count: ptr(8), Family: "Grace"},
				MemoryGiB: ptr(16), Baremetal: true,
				GPU: &GPU{Vendor: "NVIDIA", Model: "H100", MemoryGiB: 80, PhysicalCount: 1},
			},
			"b": {Baremetal: true},
		}

		if !reflect.DeepEqual(got, want) {
			t.Errorf("ExpandOverrides:\n got %+v\nwant %+v", got, want)
		}
	})

	t.Run("duplicate id", func(t *testing.T) {
		t.Parallel()

		list := overrideList(t,
			override(t, types.StringValue("a"), 0, nil, nil),
			override(t, types.StringValue("b"), 0, nil, nil),
			override(t, types.StringValue("a"), 2, nil, nil),
		)

		_, diags := ExpandOverrides(ctx, list)

		want := []string{`flavors[2].id: Flavor "a" is already described by flavors[0]: describe each flavor ID once.`}
		if got := errorPaths(diags); !reflect.DeepEqual(got, want) {
			t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
		}
	})

	t.Run("unknown values", func(t *testing.T) {
		t.Parallel()

		list := overrideList(t,
			override(t, types.StringUnknown(), 0, nil, nil),
			override(t, types.StringValue("b"), 0, map[string]attr.Value{"count": types.Int64Unknown()}, nil),
		)

		_, diags := ExpandOverrides(ctx, list)

		got := errorPaths(diags)
		if len(got) != 2 || !strings.HasPrefix(got[0], "flavors[0].id: ") || !strings.HasPrefix(got[1], "flavors[1].cpu.count: ") {
			t.Errorf("diagnostics = %q, want flavors[0].id and flavors[1].cpu.count", got)
		}

		elemType, _, _ := overrideTypes(t)
		if _, diags := ExpandOverrides(ctx, types.ListUnknown(elemType)); !diags.HasError() {
			t.Error("an unknown list is not an error")
		}
	})

	t.Run("invalid values point at the attribute", func(t *testing.T) {
		t.Parallel()

		// What the schema validators catch at plan time is checked again at configure time.
		list := overrideList(t,
			override(t, types.StringValue("ok"), 0, nil, nil),
			override(t, types.StringValue("bad"), 0,
				map[string]attr.Value{"architecture": types.StringValue("ppc64le")},
				map[string]attr.Value{"vendor": types.StringValue("Intel"), "model": types.StringValue("Max"), "physical_count": types.Int64Value(0)}),
		)

		_, diags := ExpandOverrides(ctx, list)

		want := []string{
			`flavors[1].cpu.architecture: flavor "bad": cpu.architecture: "ppc64le" is not one of x86_64, aarch64`,
			`flavors[1].gpu.vendor: flavor "bad": gpu.vendor: "Intel" is not one of NVIDIA, AMD`,
			`flavors[1].gpu.physical_count: flavor "bad": gpu.physical_count: must be at least 1, got 0`,
		}
		if got := errorPaths(diags); !reflect.DeepEqual(got, want) {
			t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
		}
	})
}

func TestExpandAllowList(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	set := types.SetValueMust(types.StringType, []attr.Value{types.StringValue("b"), types.StringValue("a")})

	ids, diags := ExpandAllowList(ctx, set, Overrides{"a": {}, "z": {}, "y": {}})
	if diags.HasError() || !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Fatalf("ExpandAllowList = %v, %v", ids, diags)
	}

	warnings := diags.Warnings()
	if len(warnings) != 1 || !strings.Contains(warnings[0].Detail(), "The flavors y, z are described") {
		t.Errorf("warnings = %v, want one naming y and z", warnings)
	}

	if ids, diags := ExpandAllowList(ctx, types.SetNull(types.StringType), Overrides{"x": {}}); ids != nil || len(diags) != 0 {
		t.Errorf("null allow-list = %v, %v; want nil and no diagnostics", ids, diags)
	}

	if _, diags := ExpandAllowList(ctx, types.SetUnknown(types.StringType), nil); !diags.HasError() {
		t.Error("an unknown allow-list is not an error")
	}
}

func TestUniqueIDs(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		value func(t *testing.T) types.List
		want  []string
	}{
		{
			name: "unique",
			value: func(t *testing.T) types.List {
				return overrideList(t, override(t, types.StringValue("a"), 0, nil, nil), override(t, types.StringValue("b"), 0, nil, nil))
			},
		},
		{
			name: "duplicates, unknown ids skipped",
			value: func(t *testing.T) types.List {
				return overrideList(t,
					override(t, types.StringValue("a"), 0, nil, nil),
					override(t, types.StringUnknown(), 0, nil, nil),
					override(t, types.StringUnknown(), 0, nil, nil),
					override(t, types.StringValue("a"), 0, nil, nil),
					override(t, types.StringValue("a"), 0, nil, nil),
				)
			},
			want: []string{
				`flavors[3].id: Flavor "a" is already described by flavors[0]: describe each flavor ID once.`,
				`flavors[4].id: Flavor "a" is already described by flavors[0]: describe each flavor ID once.`,
			},
		},
		{
			name: "unknown list",
			value: func(t *testing.T) types.List {
				elemType, _, _ := overrideTypes(t)
				return types.ListUnknown(elemType)
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			req := validator.ListRequest{Path: path.Root(OverridesArgument), ConfigValue: tt.value(t)}
			resp := &validator.ListResponse{}

			UniqueIDs().ValidateList(context.Background(), req, resp)

			if got := errorPaths(resp.Diagnostics); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
