package flavor

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

func TestFlavorNameAndIDValidators(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		check validator.String
		value string
		ok    bool
	}{
		{"name", flavorNameValidator, "m1.large", true},
		{"name with inner space", flavorNameValidator, "GPU large", true},
		{"name unicode", flavorNameValidator, "größe", true},
		{"name leading space", flavorNameValidator, " m1", false},
		{"name trailing tab", flavorNameValidator, "m1\t", false},
		{"name newline", flavorNameValidator, "m1\nx", false},
		{"name too long", flavorNameValidator, strings.Repeat("a", 256), false},
		{"name longest", flavorNameValidator, strings.Repeat("a", 255), true},
		{"id", flavorIDValidator, "m1.large_2-x", true},
		{"id uuid", flavorIDValidator, "0b7a4c5e-6a07-4b73-9c8a-2f0c5b1a9d3e", true},
		{"id inner space", flavorIDValidator, "a b", true},
		{"id leading space", flavorIDValidator, " a", false},
		{"id slash", flavorIDValidator, "a/b", false},
		{"id too long", flavorIDValidator, strings.Repeat("a", 256), false},
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			resp := &validator.StringResponse{}
			tc.check.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("x"), ConfigValue: types.StringValue(tc.value),
			}, resp)

			if got := !resp.Diagnostics.HasError(); got != tc.ok {
				t.Errorf("%q: ok = %v, want %v (%v)", tc.value, got, tc.ok, resp.Diagnostics)
			}
		})
	}
}

func TestCheckAccess(t *testing.T) {
	t.Parallel()

	some := types.SetValueMust(types.StringType, []attr.Value{types.StringValue("p1")})

	tests := []struct {
		name   string
		public types.Bool
		access types.Set
		err    bool
	}{
		{"private with access", types.BoolValue(false), some, false},
		{"public with access", types.BoolValue(true), some, true},
		{"default (public) with access", types.BoolNull(), some, true},
		{"unknown publicity", types.BoolUnknown(), some, false},
		{"public without access", types.BoolValue(true), types.SetNull(types.StringType), false},
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			checkAccess(tc.public, tc.access, &diags)

			if diags.HasError() != tc.err {
				t.Fatalf("error = %v, want %v: %v", diags.HasError(), tc.err, diags)
			}

			if tc.err {
				if d, ok := diags[0].(diag.DiagnosticWithPath); !ok || !d.Path().Equal(path.Root("access_project_ids")) {
					t.Errorf("diagnostic %v is not at access_project_ids", diags[0])
				}
			}
		})
	}
}

func TestExpandFlattenManaged(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	plan := managedModel{
		RegionalObject: adapter.RegionalObject{Name: types.StringValue("m1")}, FlavorID: types.StringUnknown(), VCPUs: types.Int64Value(2), RAMMiB: types.Int64Value(1024),
		DiskGB: types.Int64Value(0), EphemeralGB: types.Int64Value(1), SwapMiB: types.Int64Value(0), IsPublic: types.BoolValue(true),
		ExtraSpecs: types.MapNull(types.StringType), AccessProjectIDs: types.SetNull(types.StringType),
	}

	var diags diag.Diagnostics

	spec := expandManaged(ctx, plan, &diags)
	if diags.HasError() || spec.ID != "" || spec.VCPUs != 2 || spec.EphemeralGB != 1 || !spec.Public || spec.ExtraSpecs == nil {
		t.Fatalf("spec %+v (%v)", spec, diags)
	}

	flattenManaged(&plan, &Managed{ID: "id-1", Name: "m1", VCPUs: 2, RAMMiB: 1024, EphemeralGB: 1, Public: true,
		ExtraSpecs: map[string]string{}}, "RegionOne")

	if plan.ID.ValueString() != "id-1" || plan.FlavorID.ValueString() != "id-1" || !plan.ExtraSpecs.IsNull() ||
		!plan.AccessProjectIDs.IsNull() || plan.Region.ValueString() != "RegionOne" {
		t.Errorf("flattened %+v: an unset map or set must stay null", plan)
	}
}
