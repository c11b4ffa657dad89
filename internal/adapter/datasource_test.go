package adapter

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// echoModel is the model of the data source of TestDataSourceRead: a filter and a result.
type echoModel struct {
	Filter types.String `tfsdk:"filter"`
	Items  types.List   `tfsdk:"items"`
}

type itemModel struct {
	Name types.String `tfsdk:"name"`
}

var itemAttributes = map[string]schema.Attribute{
	"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name."},
}

// newEcho is a data source on the kit that lists its filter twice, or fails when failure is set.
func newEcho(failure string) *DataSource[Meta, echoModel] {
	return NewDataSource(Kind{TypeName: "echoes", Noun: "echoes"},
		DataSourceSchema("Echoes.",
			map[string]schema.Attribute{"filter": TextFilter("Filter.")},
			map[string]schema.Attribute{"items": ComputedList("Items.", itemAttributes)}),
		func(ctx context.Context, _ Meta, data *echoModel, diags *diag.Diagnostics) {
			if failure != "" {
				diags.AddError("Error reading echoes", failure)
				return
			}

			f := data.Filter.ValueString()
			data.Items = ListOf(ctx, ObjectType(itemAttributes), []string{f, f}, func(s string) itemModel {
				return itemModel{Name: types.StringValue(s)}
			}, diags)
		})
}

// read runs Read of ds on the configuration filter = "a", after configuring it with data (nil:
// not configured).
func read(t *testing.T, ds *DataSource[Meta, echoModel], data any) *datasource.ReadResponse {
	t.Helper()

	ctx := context.Background()

	if data != nil {
		resp := &datasource.ConfigureResponse{}
		ds.Configure(ctx, datasource.ConfigureRequest{ProviderData: data}, resp)

		if resp.Diagnostics.HasError() {
			t.Fatal(resp.Diagnostics)
		}
	}

	s := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, s)

	typ := s.Schema.Type().TerraformType(ctx)
	itemsType := typ.(tftypes.Object).AttributeTypes["items"] //nolint:forcetypeassert // the schema's type

	config := tftypes.NewValue(typ, map[string]tftypes.Value{
		"filter": tftypes.NewValue(tftypes.String, "a"),
		"items":  tftypes.NewValue(itemsType, nil),
	})

	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(typ, nil)}}
	ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config}}, resp)

	return resp
}

func TestDataSourceRead(t *testing.T) {
	t.Parallel()

	t.Run("writes what the read function kept", func(t *testing.T) {
		t.Parallel()

		resp := read(t, newEcho(""), nullMeta{})
		if resp.Diagnostics.HasError() {
			t.Fatal(resp.Diagnostics)
		}

		var got echoModel
		if d := resp.State.Get(context.Background(), &got); d.HasError() {
			t.Fatal(d)
		}

		if got.Filter.ValueString() != "a" || len(got.Items.Elements()) != 2 {
			t.Errorf("state = %v, want the filter and two items", got)
		}
	})

	t.Run("a failed read writes no state", func(t *testing.T) {
		t.Parallel()

		resp := read(t, newEcho("boom"), nullMeta{})
		assertSummary(t, resp.Diagnostics, "Error reading echoes")

		if !resp.State.Raw.IsNull() {
			t.Errorf("state = %v after a failed read, want none", resp.State.Raw)
		}
	})

	t.Run("the read has a deadline", func(t *testing.T) {
		t.Parallel()

		var deadline bool

		ds := NewDataSource(Kind{TypeName: "echoes", Noun: "echoes"}, newEcho("").schema,
			func(ctx context.Context, _ Meta, _ *echoModel, _ *diag.Diagnostics) { _, deadline = ctx.Deadline() })

		if resp := read(t, ds, nullMeta{}); resp.Diagnostics.HasError() || !deadline {
			t.Fatalf("diagnostics %v, deadline %v: a data source must never read without a deadline", resp.Diagnostics, deadline)
		}
	})

	t.Run("not configured", func(t *testing.T) {
		t.Parallel()

		resp := read(t, newEcho(""), nil)
		assertSummary(t, resp.Diagnostics, "Error reading echoes")

		if !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "not configured") {
			t.Errorf("detail = %q", resp.Diagnostics.Errors()[0].Detail())
		}
	})
}

func TestDataSourceMetadata(t *testing.T) {
	t.Parallel()

	resp := &datasource.MetadataResponse{}
	newEcho("").Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "unikorn"}, resp)

	if resp.TypeName != "unikorn_echoes" {
		t.Errorf("type name = %q, want unikorn_echoes", resp.TypeName)
	}
}

func TestReadRegion(t *testing.T) {
	t.Parallel()

	c := servedRegions{def: "RegionOne"}

	tests := []struct {
		name, region, want string
		fails              bool
	}{
		{name: "unset: the default, recorded", want: "RegionOne"},
		{name: "served", region: "RegionTwo", want: "RegionTwo"},
		{name: "not served", region: "RegionThree", want: "RegionThree", fails: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			region := types.StringNull()
			if tt.region != "" {
				region = types.StringValue(tt.region)
			}

			var diags diag.Diagnostics

			got, ok := ReadRegion(c, &region, &diags)

			switch {
			case tt.fails:
				assertSummary(t, diags, SummaryRegionNotServed)

				if ok || region.ValueString() != tt.want {
					t.Errorf("ReadRegion = %q, %v with region %s, want the region as it was", got, ok, region)
				}
			case !ok || got != tt.want || region.ValueString() != tt.want || diags.HasError():
				t.Errorf("ReadRegion = %q, %v with region %s and %v, want %s recorded", got, ok, region, diags, tt.want)
			}
		})
	}
}

func TestObjectOfAndListOfFollowTheSchema(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	typ := ObjectType(itemAttributes)

	var diags diag.Diagnostics

	obj := ObjectOf(ctx, typ, itemModel{Name: types.StringValue("x")}, &diags)
	list := ListOf(ctx, typ, []int{1, 2, 3}, func(int) itemModel { return itemModel{Name: types.StringValue("y")} }, &diags)

	if diags.HasError() || obj.Attributes()["name"].String() != `"x"` || len(list.Elements()) != 3 {
		t.Fatalf("object %v, list %v, %v", obj, list, diags)
	}

	// A model that does not match the type is a diagnostic, not a panic.
	ObjectOf(ctx, typ, struct {
		Other types.String `tfsdk:"other"`
	}{}, &diags)

	if !diags.HasError() {
		t.Error("a model of other attributes was accepted")
	}
}

func TestWriteState(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	ds := newEcho("")

	if d := WriteState(ctx, ds, &echoModel{Filter: types.StringNull(), Items: types.ListNull(ObjectType(itemAttributes))}); d.HasError() {
		t.Errorf("the data source's own model: %v", d)
	}

	if d := WriteState(ctx, ds, &struct {
		Filter types.Bool `tfsdk:"filter"`
	}{}); !d.HasError() {
		t.Error("a model that does not fit the schema was written")
	}
}

func TestSingularOne(t *testing.T) {
	t.Parallel()

	s := Singular[string]{Noun: "thing", Nouns: "things", Label: func(v string) string { return v + " (id)" }}

	tests := []struct {
		name            string
		matches         []string
		summary, detail string
	}{
		{name: "one", matches: []string{"a"}},
		{name: "none", summary: "No thing found", detail: "nothing in R"},
		{
			name: "several", matches: []string{"a", "b"}, summary: "Several things found",
			detail: "In region R: expected exactly one thing, but 2 match the filters: a (id), b (id). Narrow it.",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			got, ok := s.One(tt.matches, "R", "nothing in R", "Narrow it.", &diags)
			if tt.summary == "" {
				if !ok || got != tt.matches[0] || diags.HasError() {
					t.Errorf("One = %q, %v, %v", got, ok, diags)
				}

				return
			}

			if ok || got != "" || len(diags) != 1 || diags[0].Summary() != tt.summary || diags[0].Detail() != tt.detail {
				t.Errorf("One = %q, %v, %v; want %q: %q", got, ok, diags, tt.summary, tt.detail)
			}
		})
	}
}
