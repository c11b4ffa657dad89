package image

import (
	"reflect"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// TestTranslateAsUnikorn: images Unikorn's schema accepts translate as Unikorn's convertImage
// (uni-region pkg/providers/internal/openstack/provider.go, v1.16.7 and v1.19.0) makes its
// model of them; each row names the rule.
func TestTranslateAsUnikorn(t *testing.T) {
	t.Parallel()

	tests := []struct {
		why   string
		img   images.Image
		check func(Image) any
		want  any
	}{
		// imageArchitecture: the property when it is a non-empty string, else x86_64; no
		// other translation (Unikorn's API then shows only x86_64 and aarch64).
		{why: "architecture: unset is x86_64", img: img(nil), check: arch, want: "x86_64"},
		{why: "architecture: empty is x86_64", img: img(map[string]any{"architecture": ""}), check: arch, want: "x86_64"},
		{why: "architecture: aarch64 as it is", img: img(map[string]any{"architecture": "aarch64"}), check: arch, want: "aarch64"},
		{why: "architecture: amd64 is not renamed", img: img(map[string]any{"architecture": "amd64"}), check: arch, want: "amd64"},
		{why: "architecture: arm64 is not renamed", img: img(map[string]any{"architecture": "arm64"}), check: arch, want: "arm64"},
		{why: "architecture: case is kept", img: img(map[string]any{"architecture": "X86_64"}), check: arch, want: "X86_64"},

		// imagePackages: every unikorn:package:<name> string; the legacy
		// unikorn:kubernetes_version fills kubernetes when that is absent, whatever it holds.
		{
			why:   "packages: the legacy key without v fills kubernetes",
			img:   img(map[string]any{PropertyLegacyKubernetesVersion: "1.28.5"}),
			check: packages, want: map[string]string{"kubernetes": "1.28.5"},
		},
		{
			why:   "packages: the legacy key, empty, fills kubernetes",
			img:   img(map[string]any{PropertyLegacyKubernetesVersion: ""}),
			check: packages, want: map[string]string{"kubernetes": ""},
		},
		{
			why:   "packages: the package key wins over the legacy one",
			img:   img(map[string]any{PropertyLegacyKubernetesVersion: "1.28.5", "unikorn:package:kubernetes": "v1.31.0"}),
			check: packages, want: map[string]string{"kubernetes": "v1.31.0"},
		},
		{
			why:   "packages: other packages as they are, empty and nameless too",
			img:   img(map[string]any{"unikorn:package:cuda": "", "unikorn:package:": "x", "unikorn:package:containerd": "1.7"}),
			check: packages, want: map[string]string{"cuda": "", "": "x", "containerd": "1.7"},
		},
		{
			why:   "packages: values that are not strings are left out",
			img:   img(map[string]any{"unikorn:package:cuda": 12.4, PropertyLegacyKubernetesVersion: 1.28}),
			check: packages, want: map[string]string{},
		},

		// imageTags: every unikorn:tag:<key> string, the nameless one too.
		{
			why:   "tags: Unikorn's provenance tags and a nameless one",
			img:   img(map[string]any{"unikorn:tag:images.unikorn-cloud.org:source": "import", "unikorn:tag:": "x", "unikorn:tag:team": ""}),
			check: tags, want: map[string]string{"images.unikorn-cloud.org:source": "import", "": "x", "team": ""},
		},

		// convertImage: the size is min_disk, else the virtual size rounded up to GiB.
		{why: "size: min_disk", img: sized(7, 20<<30), check: size, want: 7},
		{why: "size: the virtual size in GiB", img: sized(0, 3<<30), check: size, want: 3},
		{why: "size: rounded up", img: sized(0, 3<<30+1), check: size, want: 4},
		{why: "size: unknown", img: sized(0, 0), check: size, want: 0},

		// convertImage: the GPU from the vendor, the driver, and the models split at commas.
		{
			why:   "gpu: vendor, driver and models",
			img:   img(map[string]any{PropertyGPUVendor: "AMD", PropertyGPUModels: "MI300X,MI250", PropertyGPUDriverVersion: ""}),
			check: gpu, want: &GPU{Vendor: "AMD", Models: []string{"MI300X", "MI250"}, DriverVersion: ""},
		},
		{why: "gpu: none without a vendor", img: img(map[string]any{PropertyGPUModels: "H100"}), check: gpu, want: (*GPU)(nil)},

		// convertImage: the organization when it is a non-empty string; the identity of a
		// snapshot (unikorn:identity_id).
		{why: "organization: empty is none", img: img(map[string]any{PropertyOrganizationID: ""}), check: org, want: ""},
		{why: "organization", img: img(map[string]any{PropertyOrganizationID: "o1"}), check: org, want: "o1"},
		{why: "identity of a snapshot", img: img(map[string]any{PropertyIdentityID: "i1"}), check: identity, want: "i1"},

		// imageOS: the OS strings as they are, empty too.
		{
			why:   "os: empty strings as they are",
			img:   img(map[string]any{PropertyOSFamily: "", PropertyOSDistro: "", PropertyOSVersion: ""}),
			check: func(i Image) any { return i.OS }, want: OS{Kernel: "linux"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()

			if err := Validate(tt.img.Properties); err != nil {
				t.Fatalf("the row's image breaks Unikorn's schema: %v", err)
			}

			if got := tt.check(Translate(tt.img)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func img(set map[string]any) images.Image {
	return images.Image{ID: "i", Name: "n", Status: "active", Properties: with(set)}
}

func sized(minDisk int, virtual int64) images.Image {
	i := img(nil)
	i.MinDiskGigabytes, i.VirtualSize = minDisk, virtual

	return i
}

func arch(i Image) any     { return i.Architecture }
func packages(i Image) any { return i.Packages }
func tags(i Image) any     { return i.Tags }
func size(i Image) any     { return i.SizeGiB }
func gpu(i Image) any      { return i.GPU }
func org(i Image) any      { return i.OrganizationID }
func identity(i Image) any { return i.IdentityID }
