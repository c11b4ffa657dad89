package image

import (
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

func TestCheckSourceURL(t *testing.T) {
	t.Parallel()

	for s, want := range map[string]string{
		"http://127.0.0.1:8000/a.raw":    "",
		"https://images.example/u.qcow2": "",
		"ftp://example/a.raw":            "not an http or https URL",
		"file:///etc/passwd":             "not an http or https URL",
		"http:///a.raw":                  "has no host",
		"example/a.raw":                  "not an http or https URL",
		"http://[::1":                    "missing ']'",
	} {
		err := checkSourceURL(s)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
}

func TestCheckImageName(t *testing.T) {
	t.Parallel()

	for s, ok := range map[string]bool{
		"ubuntu-24.04": true, "Ubuntu 24.04 (GPU)": true, "": false, " a": false, "a ": false, "a\nb": false,
		strings.Repeat("x", 255): true, strings.Repeat("x", 256): false,
	} {
		if err := checkImageName(s); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", s, err, ok)
		}
	}
}

func stringMapValue(m map[string]string) types.Map {
	elems := map[string]attr.Value{}
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}

	return types.MapValueMust(types.StringType, elems)
}

func validUnikorn() map[string]string {
	return map[string]string{
		PropertyOSKernel: "linux", PropertyOSFamily: "debian", PropertyOSDistro: "ubuntu", PropertyOSVersion: "24.04",
		PropertyVirtualization: "virtualized",
	}
}

// diagnostics is "path: summary: detail" of every diagnostic.
func diagnostics(diags diag.Diagnostics) []string {
	var out []string

	for _, d := range diags {
		p := ""
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			p = wp.Path().String()
		}

		out = append(out, p+": "+d.Summary()+": "+d.Detail())
	}

	return out
}

func TestCheckProperties(t *testing.T) {
	t.Parallel()

	with := func(extra map[string]string) map[string]string {
		m := validUnikorn()
		for k, v := range extra {
			m[k] = v
		}

		return m
	}

	tests := []struct {
		name       string
		props      map[string]string
		org        string
		visibility string
		want       []string // each diagnostic starts with one, in order
	}{
		{name: "no unikorn keys", props: map[string]string{"hw_disk_bus": "scsi"}},
		{name: "none"},
		{name: "valid", props: with(map[string]string{"unikorn:package:kubernetes": "v1.30.2"})},
		{name: "valid organization", props: validUnikorn(), org: "o1", visibility: "private"},
		{
			name:  "bad values",
			props: with(map[string]string{PropertyOSKernel: "windows", "unikorn:package:kubernetes": "1.30"}),
			want: []string{
				`properties["unikorn:os:kernel"]: Invalid Unikorn image property: The image breaks the Unikorn image schema, so ` +
					`the image data sources would leave it out: property "unikorn:os:kernel" is "windows", must be one of linux.`,
				`properties["unikorn:package:kubernetes"]: Invalid Unikorn image property: The image breaks the Unikorn image ` +
					`schema, so the image data sources would leave it out: property "unikorn:package:kubernetes" is "1.30", must ` +
					`be a version vX.Y.Z.`,
			},
		},
		{
			name:  "missing keys are the map's",
			props: map[string]string{PropertyOSKernel: "linux"},
			want: []string{
				`properties: Invalid Unikorn image property: The image breaks the Unikorn image schema, so the image data ` +
					`sources would leave it out: property "unikorn:os:family" is required.`,
				`properties: `, `properties: `, `properties: `,
			},
		},
		{
			name: "gpu", props: with(map[string]string{PropertyGPUVendor: "NVIDIA"}),
			want: []string{`properties: `, `properties: `},
		},
		{
			name: "organization alone", org: "o1",
			want: []string{`properties: `, `properties: `, `properties: `, `properties: `, `properties: `},
		},
		// Unikorn's shape of an organization image: public, with the property.
		{name: "public organization", props: validUnikorn(), org: "o1", visibility: "public"},
		{name: "organization, visibility unknown", props: validUnikorn(), org: "o1"},
		{
			name: "provenance source as a property", props: with(map[string]string{PropertySourceTag: "import"}),
			want: []string{`properties["unikorn:tag:images.unikorn-cloud.org:source"]: Reserved image property: ` +
				`"unikorn:tag:images.unikorn-cloud.org:source" is one of Unikorn's provenance tags, which the provider writes ` +
				`from organization_id`},
		},
		{
			name: "provenance organization as a property", props: with(map[string]string{PropertyOrganizationTag: "o1"}), org: "o1",
			want: []string{`properties["unikorn:tag:images.unikorn-cloud.org:organization-id"]: Reserved image property: `},
		},
		// Unikorn's schema: empty OS strings pass, a hyphen in a GPU model does not.
		{name: "empty os strings", props: with(map[string]string{PropertyOSFamily: "", PropertyOSDistro: "", PropertyOSVersion: ""})},
		{
			name: "gpu model with a hyphen", props: with(map[string]string{PropertyGPUModels: "H100-SXM5"}),
			want: []string{`properties["unikorn:gpu_models"]: Invalid Unikorn image property: `},
		},
		{
			name: "organization as a property", props: with(map[string]string{PropertyOrganizationID: "o1"}),
			want: []string{`properties["unikorn:organization:id"]: Invalid Unikorn image property: Set the organization with organization_id`},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			m := resourceModel{Properties: types.MapNull(types.StringType), OrganizationID: adapter.StringOrNull(tt.org),
				Visibility: adapter.StringOrNull(tt.visibility)}
			if tt.props != nil {
				m.Properties = stringMapValue(tt.props)
			}

			var diags diag.Diagnostics

			checkProperties(m, &diags)

			got := diagnostics(diags)
			if len(got) != len(tt.want) {
				t.Fatalf("diagnostics:\n%s\nwant %d", strings.Join(got, "\n"), len(tt.want))
			}

			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("diagnostic %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReplacedBy(t *testing.T) {
	t.Parallel()

	state := resourceModel{
		RegionalObject: adapter.RegionalObject{Name: types.StringValue("a"), Region: types.StringValue("RegionOne")},
		DiskFormat:     types.StringValue("raw"), ContainerFormat: types.StringValue("bare"), SourceURL: types.StringValue("http://h/a"),
	}
	config := resourceModel{RegionalObject: adapter.RegionalObject{Region: types.StringNull()}}

	if got := replacedBy(state, config, state); len(got) != 0 {
		t.Errorf("unchanged: %v", got)
	}

	plan := state
	plan.SourceURL = types.StringValue("http://h/b")
	plan.DiskFormat = types.StringValue("qcow2")
	plan.Name = types.StringUnknown()

	if got := replacedBy(plan, config, state); !slices.Equal(got, []string{"disk_format", "source_url"}) {
		t.Errorf("changed: %v", got)
	}

	// An imported image whose source Glance forgot takes the configured one in place.
	imported := state
	imported.SourceURL = types.StringNull()

	if got := replacedBy(plan, resourceModel{RegionalObject: adapter.RegionalObject{Region: types.StringValue("RegionTwo")}}, imported); !slices.Equal(got, []string{"disk_format", "region"}) {
		t.Errorf("imported: %v", got)
	}
}

func TestExpandAndFlatten(t *testing.T) {
	t.Parallel()

	m := resourceModel{
		RegionalObject: adapter.RegionalObject{Name: types.StringValue("a")}, SourceURL: types.StringValue("http://h/a"), DiskFormat: types.StringValue("raw"),
		ContainerFormat: types.StringValue("bare"), Visibility: types.StringValue("private"), Protected: types.BoolValue(true),
		MinDiskGB: types.Int64Value(2), MinRAMMiB: types.Int64Value(512), Tags: types.SetNull(types.StringType),
		Properties: stringMapValue(map[string]string{"k": "v"}), OrganizationID: types.StringValue("o1"),
	}

	var diags diag.Diagnostics

	spec := expand(t.Context(), m, &diags)
	if diags.HasError() || spec.Properties[PropertyOrganizationID] != "o1" || spec.Properties["k"] != "v" || len(spec.Tags) != 0 ||
		spec.MinRAMMiB != 512 || !spec.Protected {
		t.Fatalf("spec: %+v, %v", spec, diags)
	}

	// An organization image carries Unikorn's provenance tags, as Unikorn's import does.
	if spec.Properties[PropertySourceTag] != SourceImport || spec.Properties[PropertyOrganizationTag] != "o1" || len(spec.Properties) != 4 {
		t.Errorf("spec properties: %v, want k, the organization and its two provenance tags", spec.Properties)
	}

	flatten(&m, &Glance{ID: "id", Name: "a", Status: "active", Visibility: "private", Properties: spec.Properties}, "RegionOne")

	if m.OrganizationID.ValueString() != "o1" || len(m.Properties.Elements()) != 1 || !m.Tags.IsNull() || m.SourceURL.ValueString() != "http://h/a" ||
		!m.Checksum.IsNull() {
		t.Errorf("flattened: %+v", m)
	}

	// Without an organization, none of the three.
	m.OrganizationID = types.StringNull()

	if spec := expand(t.Context(), m, &diags); len(spec.Properties) != 1 {
		t.Errorf("spec properties without an organization: %v", spec.Properties)
	}
}

// TestProvenanceKept: an image that already says where it came from (a Unikorn snapshot taken
// over by import) keeps its source; the organization tag follows organization_id.
func TestProvenanceKept(t *testing.T) {
	t.Parallel()

	spec := Spec{Properties: map[string]string{
		PropertyOrganizationID: "o2", PropertyOrganizationTag: "o2", PropertySourceTag: SourceImport, "k": "v",
	}}

	img := &images.Image{Properties: map[string]any{
		PropertyOrganizationID: "o1", PropertyOrganizationTag: "o1", PropertySourceTag: SourceSnapshot,
	}}

	got := keepProvenance(spec, img).Properties
	if got[PropertySourceTag] != SourceSnapshot || got[PropertyOrganizationTag] != "o2" || got["k"] != "v" {
		t.Errorf("kept: %v", got)
	}

	if spec.Properties[PropertySourceTag] != SourceImport {
		t.Error("keepProvenance changed the spec it was given")
	}

	// No organization asked: nothing kept (the tags go with the organization).
	none := keepProvenance(Spec{Properties: map[string]string{"k": "v"}}, img).Properties
	if len(none) != 1 {
		t.Errorf("kept without an organization: %v", none)
	}

	// No source on the image: the spec's.
	if got := keepProvenance(spec, &images.Image{}).Properties[PropertySourceTag]; got != SourceImport {
		t.Errorf("source without one on the image: %q", got)
	}
}
