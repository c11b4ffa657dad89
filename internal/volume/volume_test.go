package volume

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func yes() *bool { b := true; return &b }

func no() *bool { b := false; return &b }

// cinder is a fake Cinder with three public types and a private one.
func cinder(t *testing.T) *cloudtest.API {
	t.Helper()

	api := cloudtest.New(t)
	api.Reply("GET", "/volume/types", 200, map[string]any{"volume_types": []any{
		map[string]any{"id": "t-fast", "name": "fast", "is_public": true, "extra_specs": map[string]any{"volume_backend_name": "ceph-ssd"}},
		map[string]any{"id": "t-bulk", "name": "bulk", "is_public": true, "description": "spinning disks"},
		map[string]any{"id": "t-default", "name": "__DEFAULT__", "is_public": true},
		map[string]any{"id": "t-private", "name": "secret", "is_public": false},
	}})

	return api
}

func TestList(t *testing.T) {
	t.Parallel()

	api := cinder(t)
	sc := api.ServiceClient("/volume/", "/volume/")

	got, err := List(context.Background(), sc, Settings{
		IDs:          []string{"t-fast", "t-bulk", "t-private"},
		Descriptions: map[string]Description{"t-fast": {Media: MediaNVMe, Performance: "high", Encrypted: yes()}},
	})
	if err != nil {
		t.Fatal(err)
	}

	want := []Class{
		{ID: "t-bulk", Name: "bulk", Description: "spinning disks", ExtraSpecs: map[string]string{}},
		{ID: "t-fast", Name: "fast", ExtraSpecs: map[string]string{"volume_backend_name": "ceph-ssd"}, Media: MediaNVMe, Performance: "high", Encrypted: yes()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	if q := api.Requests()[0].Query.Get("is_public"); q != "true" || len(api.Requests()) != 1 {
		t.Errorf("asked %d times, is_public=%q", len(api.Requests()), q)
	}
}

func TestSelectAndExactlyOne(t *testing.T) {
	t.Parallel()

	classes := []Class{
		{ID: "1", Name: "fast", Media: MediaNVMe, Performance: "high", Encrypted: yes()},
		{ID: "2", Name: "fast-plain", Media: MediaNVMe, Performance: "high", Encrypted: no()},
		{ID: "3", Name: "bulk", Media: MediaHDD},
		{ID: "4", Name: "__DEFAULT__"},
	}

	ids := func(cs []Class) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}

		return out
	}

	for _, tc := range []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"none", Filter{}, []string{"1", "2", "3", "4"}},
		{"media", Filter{Media: MediaNVMe}, []string{"1", "2"}},
		{"encrypted", Filter{Encrypted: yes()}, []string{"1"}},
		{"not encrypted leaves out the undescribed", Filter{Encrypted: no()}, []string{"2"}},
		{"name is exact", Filter{Name: "fast"}, []string{"1"}},
		{"performance", Filter{Performance: "high", Media: MediaHDD}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if diff := cmp.Diff(tc.want, ids(adapter.Select(classes, tc.filter.Match))); diff != "" {
				t.Errorf("Select (-want +got):\n%s", diff)
			}
		})
	}

	var diags diag.Diagnostics

	if _, ok := singular.One(adapter.Select(classes, Filter{Media: MediaNVMe}.Match), "R", "", "", &diags); ok || len(diags.Errors()) != 1 ||
		!strings.Contains(diags.Errors()[0].Detail(), "2 match the filters: fast (1), fast-plain (2)") {
		t.Errorf("one of two: %v", diags)
	}

	if c, ok := singular.One(adapter.Select(classes, Filter{Media: MediaHDD}.Match), "R", "", "", &diags); !ok || c.ID != "3" {
		t.Errorf("one of one: %v, %v", c, ok)
	}
}

func TestExpandSettings(t *testing.T) {
	t.Parallel()

	descType := map[string]attr.Type{"encrypted": types.BoolType, "id": types.StringType, "media": types.StringType, "performance": types.StringType}
	desc := func(id, media string) attr.Value {
		return types.ObjectValueMust(descType, map[string]attr.Value{
			"encrypted": types.BoolNull(), "id": types.StringValue(id), "media": types.StringValue(media), "performance": types.StringNull(),
		})
	}
	settings := func(ids []string, descs ...attr.Value) types.Object {
		idSet := types.SetNull(types.StringType)
		if ids != nil {
			elems := make([]attr.Value, len(ids))
			for i, id := range ids {
				elems[i] = types.StringValue(id)
			}

			idSet = types.SetValueMust(types.StringType, elems)
		}

		list := types.ListNull(types.ObjectType{AttrTypes: descType})
		if len(descs) > 0 {
			list = types.ListValueMust(types.ObjectType{AttrTypes: descType}, descs)
		}

		return types.ObjectValueMust(map[string]attr.Type{"ids": types.SetType{ElemType: types.StringType}, "metadata": types.ListType{ElemType: types.ObjectType{AttrTypes: descType}}},
			map[string]attr.Value{"ids": idSet, "metadata": list})
	}

	t.Run("unset", func(t *testing.T) {
		t.Parallel()

		got, diags := ExpandSettings(context.Background(), types.ObjectNull(settings(nil).AttributeTypes(context.Background())))
		if diags.HasError() || got.IDs != nil || len(got.Descriptions) != 0 {
			t.Fatalf("ExpandSettings = %+v, %v", got, diags)
		}
	})

	t.Run("ids and descriptions", func(t *testing.T) {
		t.Parallel()

		got, diags := ExpandSettings(context.Background(), settings([]string{"b", "a"}, desc("a", MediaSSD), desc("c", MediaHDD)))
		if diags.HasError() || !cmp.Equal(got.IDs, []string{"a", "b"}) || got.Descriptions["a"].Media != MediaSSD {
			t.Fatalf("ExpandSettings = %+v, %v", got, diags)
		}

		if w := diags.Warnings(); len(w) != 1 || !strings.Contains(w[0].Detail(), `"c" is described but not offered`) {
			t.Errorf("warnings = %v", w)
		}
	})

	t.Run("an ID described twice", func(t *testing.T) {
		t.Parallel()

		_, diags := ExpandSettings(context.Background(), settings(nil, desc("a", MediaSSD), desc("a", MediaHDD)))
		if errs := diags.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Detail(), "already described by volume_classes.metadata[0]") {
			t.Fatalf("errors = %v", errs)
		}
	})
}
