package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// servedRegions is a regionServer serving RegionOne and RegionTwo with a settable default.
type servedRegions struct{ def string }

func (s servedRegions) DefaultRegion() string { return s.def }

func (s servedRegions) ResolveRegion(r string) (string, error) {
	switch r {
	case "":
		return s.def, nil
	case "RegionOne", "RegionTwo":
		return r, nil
	}

	return "", fmt.Errorf("region %q is not served", r)
}

func TestPlanRegion(t *testing.T) {
	t.Parallel()

	null, unknown := types.StringNull(), types.StringUnknown()
	one, two, three := types.StringValue("RegionOne"), types.StringValue("RegionTwo"), types.StringValue("RegionThree")

	tests := []struct {
		name                string
		def                 string
		planned, configured types.String
		want                types.String
		wantError, wantWarn string
	}{
		{name: "create without region takes the default", def: "RegionOne", planned: unknown, configured: null, want: one},
		{name: "create with region", def: "RegionOne", planned: two, configured: two, want: two},
		{name: "kept region, default unchanged", def: "RegionOne", planned: one, configured: null, want: one},
		{
			name: "kept region after the default changed: no move, a warning", def: "RegionTwo",
			planned: one, configured: null, want: one, wantWarn: SummaryRegionKept,
		},
		{
			name: "explicit region that is not served", def: "RegionOne",
			planned: three, configured: three, want: three, wantError: SummaryRegionNotServed,
		},
		{name: "unknown configuration is left to the apply", def: "RegionOne", planned: unknown, configured: unknown, want: unknown},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			got := planRegion(servedRegions{def: tt.def}, "network", tt.planned, tt.configured, &diags)
			if !got.Equal(tt.want) {
				t.Errorf("planned region = %s, want %s", got, tt.want)
			}

			assertSummary(t, diags.Errors(), tt.wantError)
			assertSummary(t, diags.Warnings(), tt.wantWarn)

			for _, d := range diags {
				if withPath, ok := d.(diag.DiagnosticWithPath); !ok || !withPath.Path().Equal(path.Root("region")) {
					t.Errorf("diagnostic %q is not on the region attribute", d.Summary())
				}
			}
		})
	}
}

func assertSummary(t *testing.T, diags diag.Diagnostics, want string) {
	t.Helper()

	switch {
	case want == "" && len(diags) > 0:
		t.Errorf("unexpected diagnostics: %v", diags)
	case want != "" && (len(diags) != 1 || diags[0].Summary() != want):
		t.Errorf("diagnostics = %v, want one %q", diags, want)
	}
}

func TestPlanRegionBeforeConfigure(t *testing.T) {
	t.Parallel()

	b := NewResourceBase[nullMeta](Kind{Noun: "network"})

	var diags diag.Diagnostics
	if got := b.PlanRegion(types.StringUnknown(), types.StringNull(), &diags); !got.IsUnknown() || diags.HasError() {
		t.Fatalf("before Configure: %s %v, want the value as it is and no diagnostics", got, diags)
	}
}

type nullMeta struct{}

func (nullMeta) Cloud() *cloud.Client { return nil }

func TestStringValidators(t *testing.T) {
	t.Parallel()

	tests := []struct {
		validator   validator.String
		value       string
		wantSummary string // "" when valid
	}{
		{IPAddress(AnyFamily), "192.0.2.10", ""},
		{IPAddress(AnyFamily), "2001:db8::10", ""},
		{IPAddress(AnyFamily), "2001:DB8::10", "Invalid IP address"},
		{IPAddress(IPv4), "2001:db8::10", "Invalid IP address"},
		{IPAddress(IPv6), "192.0.2.10", "Invalid IP address"},
		{IPAddress(IPv4), "192.0.2.300", "Invalid IP address"},
		{IPAddress(AnyFamily), "fe80::1%eth0", "Invalid IP address"},
		{Prefix(IPv4), "10.0.0.0/8", ""},
		{Prefix(IPv4), "10.0.0.1/8", "Invalid CIDR"},
		{Prefix(IPv4), "2001:db8::/32", "Invalid CIDR"},
		{Prefix(AnyFamily), "2001:db8::/32", ""},
		{Prefix(AnyFamily), "10.0.0.0", "Invalid CIDR"},
		{AddressOrPrefix(), "10.0.0.5", ""},
		{AddressOrPrefix(), "10.0.0.0/24", ""},
		{AddressOrPrefix(), "ten", "Invalid IP address"},
		{UUID(), "0b7a4c5e-6a07-4b73-9c8a-2f0c5b1a9d3e", ""},
		{UUID(), "network-a", "Invalid ID"},
		{MAC(), "fa:16:3e:00:00:01", ""},
		{MAC(), "fa:16:3e:00:00", "Invalid MAC address"},
		{Name("network"), "a", ""},
		{Name("network"), " a", "Invalid name"},
		{StringCheck("thing", "a thing", func(string) error { return errors.New("no") }), "x", "Invalid thing"},
	}

	for _, tt := range tests {
		t.Run(tt.validator.Description(context.Background())+"/"+tt.value, func(t *testing.T) {
			t.Parallel()

			resp := &validator.StringResponse{}
			tt.validator.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("attr"), ConfigValue: types.StringValue(tt.value),
			}, resp)

			assertSummary(t, resp.Diagnostics, tt.wantSummary)
		})
	}
}

func TestStringValidatorsSkipNullAndUnknown(t *testing.T) {
	t.Parallel()

	for _, v := range []types.String{types.StringNull(), types.StringUnknown()} {
		resp := &validator.StringResponse{}
		IPAddress(IPv4).ValidateString(context.Background(), validator.StringRequest{Path: path.Root("a"), ConfigValue: v}, resp)

		if resp.Diagnostics.HasError() {
			t.Errorf("%s: %v, want no diagnostics", v, resp.Diagnostics)
		}
	}
}

// TestValueChecks runs ObjectCheck, ListCheck and SetCheck: check sees a known value's
// attributes or elements at the value's path, never a null or unknown one.
func TestValueChecks(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	p := path.Root("a")
	objType := map[string]attr.Type{"n": types.Int64Type}
	obj := types.ObjectValueMust(objType, map[string]attr.Value{"n": types.Int64Value(2)})
	elems := []attr.Value{types.StringValue("x"), types.StringValue("y")}

	var seen []string

	// check reports what it saw, once, as an error at the value's path.
	check := func(what string, n int, at path.Path, diags *diag.Diagnostics) {
		seen = append(seen, fmt.Sprintf("%s %d", what, n))
		diags.AddAttributeError(at, "Bad "+what, what)
	}
	objectCheck := ObjectCheck("o", func(attrs map[string]attr.Value, at path.Path, diags *diag.Diagnostics) {
		check("object", len(attrs), at, diags)
	})
	listCheck := ListCheck("l", func(es []attr.Value, at path.Path, diags *diag.Diagnostics) { check("list", len(es), at, diags) })
	setCheck := SetCheck("s", func(es []attr.Value, at path.Path, diags *diag.Diagnostics) { check("set", len(es), at, diags) })

	// A null, an unknown and a known value of each kind.
	objects := &validator.ObjectResponse{}
	for _, v := range []types.Object{types.ObjectNull(objType), types.ObjectUnknown(objType), obj} {
		objectCheck.ValidateObject(ctx, validator.ObjectRequest{Path: p, ConfigValue: v}, objects)
	}

	lists := &validator.ListResponse{}
	for _, v := range []types.List{types.ListNull(types.StringType), types.ListUnknown(types.StringType), types.ListValueMust(types.StringType, elems)} {
		listCheck.ValidateList(ctx, validator.ListRequest{Path: p, ConfigValue: v}, lists)
	}

	sets := &validator.SetResponse{}
	for _, v := range []types.Set{types.SetNull(types.StringType), types.SetUnknown(types.StringType), types.SetValueMust(types.StringType, elems)} {
		setCheck.ValidateSet(ctx, validator.SetRequest{Path: p, ConfigValue: v}, sets)
	}

	for what, diags := range map[string]diag.Diagnostics{"object": objects.Diagnostics, "list": lists.Diagnostics, "set": sets.Diagnostics} {
		if len(diags) != 1 || !diags.Contains(diag.NewAttributeErrorDiagnostic(p, "Bad "+what, what)) {
			t.Errorf("%s: %v, want one error at %s for the known value only", what, diags, p)
		}
	}

	if want := []string{"object 1", "list 2", "set 2"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("check saw %v, want %v", seen, want)
	}

	if objectCheck.Description(ctx) != "o" || listCheck.MarkdownDescription(ctx) != "l" {
		t.Errorf("descriptions %q, %q", objectCheck.Description(ctx), listCheck.MarkdownDescription(ctx))
	}
}

func TestCollectionsKeepPriorNull(t *testing.T) {
	t.Parallel()

	if got := StringList(nil, types.ListNull(types.StringType)); !got.IsNull() {
		t.Errorf("empty list after null = %s, want null", got)
	}

	if got := StringList(nil, types.ListValueMust(types.StringType, nil)); got.IsNull() || len(got.Elements()) != 0 {
		t.Errorf("empty list after [] = %s, want []", got)
	}

	if got := StringSet([]string{"a", "b"}, types.SetNull(types.StringType)); len(got.Elements()) != 2 {
		t.Errorf("set = %s, want two elements", got)
	}

	if got := StringMap(nil, types.MapUnknown(types.StringType)); !got.IsNull() {
		t.Errorf("empty map after unknown = %s, want null", got)
	}

	if got := StringMap(map[string]string{"k": "v"}, types.MapNull(types.StringType)); got.Elements()["k"].String() != `"v"` {
		t.Errorf("map = %s, want k=v", got)
	}

	if got := StringOrNull(""); !got.IsNull() {
		t.Errorf("StringOrNull(\"\") = %s", got)
	}

	if got := KnownOrNull(types.StringUnknown()); !got.IsNull() {
		t.Errorf("KnownOrNull(unknown) = %s", got)
	}
}

func TestOperationSummaryAndSubject(t *testing.T) {
	t.Parallel()

	var diags diag.Diagnostics

	b := NewResourceBase[nullMeta](Kind{Noun: "security group"})

	ctx, op, ok := b.Begin(context.Background(), Update, timeouts.Value{}, &diags)
	if !ok {
		t.Fatalf("Begin: %v", diags)
	}

	defer op.End(ctx)

	op.Fail(Subject("securitygroup-a", "id-1", stringer("project p, region r")), errors.New("boom"))

	if len(diags) != 1 || diags[0].Summary() != "Error updating security group" ||
		!strings.Contains(diags[0].Detail(), "securitygroup-a (id-1) in project p, region r: boom") {
		t.Fatalf("diagnostics = %v", diags)
	}

	if _, hasDeadline := ctx.Deadline(); hasDeadline {
		t.Errorf("a zero default timeout must not set a deadline")
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
