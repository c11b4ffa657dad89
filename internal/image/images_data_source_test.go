package image

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

var (
	gpuImage = Image{
		ID: "gpu", Name: "gpu-image", OS: OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04", Codename: "noble"},
		Packages:       map[string]string{"kubernetes": "v1.31.0"},
		GPU:            &GPU{Vendor: "NVIDIA", Models: []string{"H100", "A100"}, DriverVersion: "550"},
		Virtualization: "any", Architecture: "x86_64", SizeGiB: 3,
		Tags: map[string]string{"role": "worker"}, OrganizationID: "org-1", IdentityID: "ident-1", Status: StatusReady,
		CreatedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600)),
	}
	plainImage = Image{
		ID: "plain", Name: "plain-image", OS: OS{Kernel: "linux", Family: "redhat", Distro: "rocky", Version: "9"},
		Packages: map[string]string{}, Virtualization: "virtualized", Architecture: "aarch64",
		Tags: map[string]string{}, Status: StatusPending, CreatedAt: time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC),
	}
)

// TestKeepMatchesSchema lets each data source's model keep a result and writes it into a
// state of the data source's schema: a tfsdk tag or attribute type that does not match fails
// here, without a CLI.
func TestKeepMatchesSchema(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	filters := filterModel{
		Architecture: types.StringValue("x86_64"), GPUModel: types.StringValue("H100"), GPUVendor: types.StringValue("NVIDIA"),
		Name: types.StringNull(), OrganizationID: types.StringValue("org-1"), OSDistro: types.StringValue("ubuntu"),
		OSVersion: types.StringNull(), Package: types.StringValue("kubernetes >= 1.30"), Region: types.StringValue("RegionOne"),
		Status:         types.StringValue("ready"),
		Tags:           types.MapValueMust(types.StringType, map[string]attr.Value{"role": types.StringValue("worker")}),
		Virtualization: types.StringValue("baremetal"),
	}

	single := &singleImageModel{filterModel: filters, MostRecent: types.BoolValue(true)}
	sel := selection{
		region:   "RegionOne",
		matches:  []Image{gpuImage, plainImage},
		rejected: []Rejected{{ID: "r", Name: "bad", Reason: "schema: x"}},
	}

	tests := []struct {
		ds    datasource.DataSource
		model model
	}{
		{NewImagesDataSource(), &imagesModel{filterModel: filters}},
		{NewImageDataSource(), single},
	}

	for _, tt := range tests {
		var diags diag.Diagnostics

		tt.model.keep(ctx, sel, &diags)

		diags.Append(adapter.WriteState(ctx, tt.ds, tt.model)...)

		if diags.HasError() {
			t.Errorf("%T: %v", tt.model, diags)
		}
	}

	if single.ID.ValueString() != plainImage.ID || len(single.Rejected.Elements()) != 1 {
		t.Errorf("unikorn_image with most_recent kept %s and rejected %v; want %s and one rejected image",
			single.ID, single.Rejected, plainImage.ID)
	}
}

func TestFlattenImage(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	var diags diag.Diagnostics

	m := flattenImage(ctx, gpuImage, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}

	if got := m.CreatedAt.ValueString(); got != "2025-03-01T11:00:00Z" {
		t.Errorf("created_at = %s, want UTC RFC 3339", got)
	}

	if m.OrganizationID.ValueString() != "org-1" || m.IdentityID.ValueString() != "ident-1" || m.SizeGiB.ValueInt64() != 3 || m.GPU.IsNull() {
		t.Errorf("flattened %+v", m)
	}

	os := m.OS.Attributes()
	if !os["variant"].IsNull() || os["codename"].(types.String).ValueString() != "noble" { //nolint:forcetypeassert // schema type
		t.Errorf("os = %v, want variant null and codename noble", os)
	}

	models := m.GPU.Attributes()["models"].(types.List).Elements()            //nolint:forcetypeassert // schema type
	if len(models) != 2 || models[0].(types.String).ValueString() != "H100" { //nolint:forcetypeassert // schema type
		t.Errorf("gpu.models = %v, want [H100 A100] in order", models)
	}

	plain := flattenImage(ctx, plainImage, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}

	if !plain.GPU.IsNull() || !plain.OrganizationID.IsNull() || !plain.IdentityID.IsNull() || plain.Packages.IsNull() ||
		len(plain.Packages.Elements()) != 0 {
		t.Errorf("plain image flattened to %+v, want gpu, organization_id and identity_id null, packages empty", plain)
	}
}

func TestFilterModel(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	m := filterModel{
		Architecture: types.StringValue("aarch64"), GPUModel: types.StringNull(), GPUVendor: types.StringValue("AMD"),
		Name: types.StringValue("n"), OrganizationID: types.StringValue("o"), OSDistro: types.StringValue("ubuntu"),
		OSVersion: types.StringValue("24.04"), Package: types.StringValue("slurmd"), Region: types.StringNull(),
		Status: types.StringValue("ready"), Virtualization: types.StringValue("any"),
		Tags: types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")}),
	}

	got, diags := m.filter(ctx)
	if diags.HasError() {
		t.Fatal(diags)
	}

	want := Filter{
		OSDistro: "ubuntu", OSVersion: "24.04", GPUVendor: "AMD", Virtualization: "any", Architecture: "aarch64",
		Status: "ready", Package: "slurmd", Tags: map[string]string{"a": "b"}, Name: "n",
	}

	if !reflect.DeepEqual(got, want) {
		t.Errorf("filter:\n got %+v\nwant %+v", got, want)
	}

	m.Tags = types.MapNull(types.StringType)
	if got, _ := m.filter(ctx); got.Tags != nil {
		t.Errorf("null tags give %v, want no tag filter", got.Tags)
	}
}

func TestPickOne(t *testing.T) {
	t.Parallel()

	older := plainImage
	older.ID, older.Name, older.CreatedAt = "older", "older", plainImage.CreatedAt.Add(-time.Hour)

	rejected := []Rejected{{ID: "r1", Name: "unsigned", Reason: "signature: image is not signed"}}

	tests := []struct {
		name       string
		sel        selection
		mostRecent bool
		wantID     string
		wantErr    []string
	}{
		{name: "one", sel: selection{matches: []Image{gpuImage}}, wantID: "gpu"},
		{name: "most recent", sel: selection{matches: []Image{older, plainImage}}, mostRecent: true, wantID: "plain"},
		{
			name:    "several",
			sel:     selection{region: "R", matches: []Image{older, plainImage}},
			wantErr: []string{"In region R: expected exactly one image, but 2 match the filters: older (older), plain-image (plain). Narrow the filters, or set most_recent = true"},
		},
		{
			name:    "none",
			sel:     selection{region: "R"},
			wantErr: []string{"No image in region R matches the filters."},
		},
		{
			name:       "none but rejected",
			sel:        selection{region: "R", rejected: rejected},
			mostRecent: true,
			wantErr:    []string{"No image in region R matches the filters. Left out because of the schema or the signature check, though they match:\nunsigned (r1): signature: image is not signed"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			got, ok := pickOne(tt.sel, tt.mostRecent, &diags)
			if ok == diags.HasError() {
				t.Fatalf("pickOne = %v with diagnostics %v", ok, diags)
			}

			if tt.wantErr == nil {
				if !ok || got.ID != tt.wantID {
					t.Errorf("pickOne = %s, %v; want %s", got.ID, diags, tt.wantID)
				}

				return
			}

			var details []string
			for _, d := range diags.Errors() {
				details = append(details, d.Detail())
			}

			if len(details) != 1 || !strings.HasPrefix(details[0], tt.wantErr[0]) {
				t.Errorf("pickOne errors = %q, want %q", details, tt.wantErr)
			}
		})
	}
}

func TestRejectionWarnings(t *testing.T) {
	t.Parallel()

	diags := rejectionWarnings("RegionOne", []Rejected{
		{ID: "1", Name: "a", Reason: "schema: x"},
		{ID: "2", Name: "b", Reason: "signature: y"},
	})

	if diags.HasError() || len(diags.Warnings()) != 2 {
		t.Fatalf("diagnostics = %v, want two warnings", diags)
	}

	w := diags.Warnings()[1]
	if w.Summary() != `Image "b" left out` || w.Detail() != `Image "b" (2) in region RegionOne matches the filters but was left out: signature: y` {
		t.Errorf("warning = %q / %q", w.Summary(), w.Detail())
	}
}

func TestSelectRejected(t *testing.T) {
	t.Parallel()

	rejected := []Rejected{
		{ID: "1", Name: "gpu", Image: gpuImage},
		{ID: "2", Name: "plain", Image: plainImage},
		{ID: "3", Name: "empty", Image: Image{Packages: map[string]string{}, Tags: map[string]string{}}},
	}

	tests := []struct {
		filter Filter
		want   []string
	}{
		{filter: Filter{}, want: []string{"1", "2", "3"}},
		{filter: Filter{GPUVendor: "NVIDIA"}, want: []string{"1"}},
		{filter: Filter{Package: "kubernetes >= 1.30"}, want: []string{"1"}},
		{filter: Filter{Tags: map[string]string{"role": "worker"}}, want: []string{"1"}},
		{filter: Filter{OSDistro: "rocky"}, want: []string{"2"}},
	}

	for _, tt := range tests {
		got, err := SelectRejected(rejected, tt.filter)
		if err != nil {
			t.Fatal(err)
		}

		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}

		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("SelectRejected(%+v) = %v, want %v", tt.filter, ids, tt.want)
		}
	}

	if _, err := SelectRejected(rejected, Filter{Package: ">= 1"}); err == nil {
		t.Error("a bad constraint is not an error")
	}
}

func TestValidators(t *testing.T) {
	t.Parallel()

	_, p256 := newKey(t, elliptic.P256())
	_, p521 := newKey(t, elliptic.P521())

	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024) //nolint:gosec // a test key, never used to sign
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		validator validator.String
		value     types.String
		wantErr   string
	}{
		{name: "P-256 key", validator: SigningKey(), value: types.StringValue(p256)},
		{name: "P-521 key with text around", validator: SigningKey(), value: types.StringValue("comment\n" + p521 + "\ntrailer")},
		{name: "RSA key", validator: SigningKey(), value: types.StringValue(publicPEM(t, &rsaKey.PublicKey)), wantErr: "the key is an RSA key, an ECDSA key is required"},
		{name: "garbage", validator: SigningKey(), value: types.StringValue("ssh-ed25519 AAAA"), wantErr: "no PEM block found"},
		{name: "null key", validator: SigningKey(), value: types.StringNull()},
		{name: "unknown key", validator: SigningKey(), value: types.StringUnknown()},
		{name: "bare package", validator: PackageConstraint(), value: types.StringValue("slurmd")},
		{name: "constraint", validator: PackageConstraint(), value: types.StringValue("kubernetes >= 1.30, < 1.32")},
		{name: "no name", validator: PackageConstraint(), value: types.StringValue(">= 1.30"), wantErr: "missing the package name"},
		{name: "bad version", validator: PackageConstraint(), value: types.StringValue("kubernetes >= one"), wantErr: "invalid version constraint"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			p := path.Root("attr")
			resp := &validator.StringResponse{}
			tt.validator.ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: tt.value}, resp)

			switch {
			case tt.wantErr == "" && resp.Diagnostics.HasError():
				t.Errorf("unexpected diagnostics: %v", resp.Diagnostics)
			case tt.wantErr != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), tt.wantErr)):
				t.Errorf("diagnostics = %v, want %q", resp.Diagnostics, tt.wantErr)
			}
		})
	}
}

func TestExpandSigningKey(t *testing.T) {
	t.Parallel()

	key, keyPEM := newKey(t, elliptic.P384())

	got, diags := ExpandSigningKey(types.StringValue(keyPEM))
	if diags.HasError() || got == nil || !got.Equal(key.Public().(*ecdsa.PublicKey)) { //nolint:forcetypeassert // ECDSA key
		t.Errorf("ExpandSigningKey = %v, %v", got, diags)
	}

	if got, diags := ExpandSigningKey(types.StringNull()); got != nil || diags.HasError() {
		t.Errorf("null: %v, %v", got, diags)
	}

	for _, v := range []types.String{types.StringUnknown(), types.StringValue("nope")} {
		if _, diags := ExpandSigningKey(v); !diags.HasError() {
			t.Errorf("ExpandSigningKey(%v): no error", v)
		}
	}
}

// FuzzParsePackageConstraint: the package filter, user input checked at plan time, never
// panics, and a constraint it accepts can be matched.
func FuzzParsePackageConstraint(f *testing.F) {
	for _, seed := range []string{"kubernetes", "kubernetes >= 1.30", "slurmd~1.2", "a>=1,<2 || >3", ">= 1", "k8s ^v1.2.3-rc.1", " ", "x !=", "\x00"} {
		f.Add(seed, "v1.30.2")
	}

	f.Fuzz(func(t *testing.T, constraint, version string) {
		name, _, err := ParsePackageConstraint(constraint)
		if err != nil {
			return
		}

		img := Image{Packages: map[string]string{name: version}}
		if _, err := (Filter{Package: constraint}).Match(img); err != nil {
			t.Errorf("accepted constraint %q does not match: %v", constraint, err)
		}
	})
}
