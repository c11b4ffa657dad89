package adapter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestUnknownArgument(t *testing.T) {
	t.Parallel()

	d := UnknownArgument(path.Root("flavors").AtListIndex(1).AtName("id"))

	wp, ok := d.(diag.DiagnosticWithPath)
	if !ok || d.Severity() != diag.SeverityError || d.Summary() != SummaryUnknownArgument ||
		wp.Path().String() != "flavors[1].id" || !strings.Contains(d.Detail(), "because flavors[1].id depends on a value that is only known after apply") {
		t.Errorf("diagnostic = %v", d)
	}
}

func TestReadArgument(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		value   attr.Value
		want    bool
		unknown bool
	}{
		{name: "set", value: types.StringValue("x"), want: true},
		{name: "set to its zero value", value: types.BoolValue(false), want: true},
		{name: "unset", value: types.StringNull()},
		{name: "unknown: reported", value: types.SetUnknown(types.StringType), unknown: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			if got := ReadArgument(path.Root("a"), tt.value, &diags); got != tt.want {
				t.Errorf("ReadArgument = %v, want %v", got, tt.want)
			}

			want := ""
			if tt.unknown {
				want = SummaryUnknownArgument
			}

			assertSummary(t, diags, want)
		})
	}
}

type pairModel struct {
	IDs  types.Set    `tfsdk:"ids"`
	Name types.String `tfsdk:"name"`
}

var pairTypes = map[string]attr.Type{"ids": types.SetType{ElemType: types.StringType}, "name": types.StringType}

func TestReadObjectArgument(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	p := path.Root("pair")

	var diags diag.Diagnostics

	set := types.ObjectValueMust(pairTypes, map[string]attr.Value{
		"ids":  types.SetValueMust(types.StringType, []attr.Value{types.StringValue("b"), types.StringValue("a")}),
		"name": types.StringValue("n"),
	})

	m, ok := ReadObjectArgument[pairModel](ctx, p, set, &diags)
	if !ok || diags.HasError() || m.Name.ValueString() != "n" {
		t.Fatalf("set: %+v, %v, %v", m, ok, diags)
	}

	if ids := ReadStringSetArgument(ctx, p.AtName("ids"), m.IDs, &diags); !slices.Equal(ids, []string{"a", "b"}) || diags.HasError() {
		t.Errorf("ids = %q, %v; want them sorted", ids, diags)
	}

	if _, ok := ReadObjectArgument[pairModel](ctx, p, types.ObjectNull(pairTypes), &diags); ok || diags.HasError() {
		t.Errorf("unset: %v, %v; want false without a diagnostic", ok, diags)
	}

	if _, ok := ReadObjectArgument[pairModel](ctx, p, types.ObjectUnknown(pairTypes), &diags); ok {
		t.Error("unknown: read")
	}

	assertSummary(t, diags, SummaryUnknownArgument)

	// A model that does not match the object is reported, and not read.
	var other diag.Diagnostics

	if _, ok := ReadObjectArgument[struct {
		Other types.String `tfsdk:"other"`
	}](ctx, p, set, &other); ok || !other.HasError() {
		t.Errorf("mismatched model: %v, %v", ok, other)
	}
}

func TestReadStringSetArgument(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	var diags diag.Diagnostics

	if got := ReadStringSetArgument(ctx, path.Root("s"), types.SetNull(types.StringType), &diags); got != nil || diags.HasError() {
		t.Errorf("unset: %q, %v", got, diags)
	}

	if got := ReadStringSetArgument(ctx, path.Root("s"), types.SetUnknown(types.StringType), &diags); got != nil {
		t.Errorf("unknown: %q", got)
	}

	assertSummary(t, diags, SummaryUnknownArgument)
}

func TestStringSetArgument(t *testing.T) {
	t.Parallel()

	a := StringSetArgument("IDs.")
	if !a.Optional || a.Required || a.MarkdownDescription != "IDs." || a.ElementType != types.StringType || len(a.Validators) != 2 {
		t.Errorf("attribute = %+v", a)
	}
}

func TestReadListArgument(t *testing.T) {
	t.Parallel()

	type element struct {
		ID types.String `tfsdk:"id"`
	}

	elementType := types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType}}
	elem := func(id types.String) attr.Value {
		return types.ObjectValueMust(elementType.AttrTypes, map[string]attr.Value{"id": id})
	}

	tests := []struct {
		name    string
		value   types.List
		want    []string // "index:path:id" of the elements read; nil: no slice at all
		unknown int
	}{
		{name: "unset", value: types.ListNull(elementType)},
		{name: "unknown: reported", value: types.ListUnknown(elementType), unknown: 1},
		{name: "empty", value: types.ListValueMust(elementType, nil), want: []string{}},
		{
			name:  "an element with an unknown value is reported and left out",
			value: types.ListValueMust(elementType, []attr.Value{elem(types.StringValue("a")), elem(types.StringUnknown()), elem(types.StringValue("c"))}),
			want:  []string{"0:l[0]:a", "2:l[2]:c"}, unknown: 1,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			got := ReadListArgument[element](context.Background(), path.Root("l"), tt.value, &diags)
			if (got == nil) != (tt.want == nil) {
				t.Fatalf("ReadListArgument = %v, want nil: %v", got, tt.want == nil)
			}

			var read []string
			for _, e := range got {
				read = append(read, fmt.Sprintf("%d:%s:%s", e.Index, e.At, e.Value.ID.ValueString()))
			}

			if len(read) != len(tt.want) || len(read) > 0 && !slices.Equal(read, tt.want) {
				t.Errorf("read %v, want %v", read, tt.want)
			}

			if n := len(diags.Errors()); n != tt.unknown {
				t.Errorf("%d errors, want %d: %v", n, tt.unknown, diags)
			}
		})
	}
}

func TestKeyedDuplicate(t *testing.T) {
	t.Parallel()

	k := Keyed{Summary: "Duplicate thing", Subject: "Thing", Each: "thing"}
	seen := map[string]int{}

	var diags diag.Diagnostics

	for i, id := range []string{"a", "b", "a"} {
		if dup := k.Duplicate(seen, id, i, path.Root("things"), &diags); dup != (i == 2) {
			t.Errorf("element %d (%s): duplicate = %v", i, id, dup)
		}
	}

	errs := diags.Errors()
	if len(errs) != 1 || errs[0].Summary() != "Duplicate thing" ||
		errs[0].Detail() != `Thing "a" is already described by things[0]: describe each thing once.` {
		t.Fatalf("diagnostics = %v", diags)
	}

	if wp, ok := errs[0].(diag.DiagnosticWithPath); !ok || wp.Path().String() != "things[2].id" {
		t.Errorf("path of %v", errs[0])
	}
}
