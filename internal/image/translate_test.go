package image

import (
	"crypto/elliptic"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestTranslate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		img  images.Image
		want Image
	}{
		{
			name: "minimal: defaults and empty maps",
			img:  images.Image{ID: "i1", Name: "ubuntu", Status: "active", CreatedAt: t0, Properties: validProps()},
			want: Image{
				ID: "i1", Name: "ubuntu",
				OS:       OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04"},
				Packages: map[string]string{}, Tags: map[string]string{},
				Virtualization: "virtualized", Architecture: "x86_64", Status: "ready", CreatedAt: t0,
			},
		},
		{
			name: "full",
			img: images.Image{
				ID: "i2", Name: "gpu", Status: "active", CreatedAt: t0, MinDiskGigabytes: 40, VirtualSize: 100 << 30,
				Properties: with(map[string]any{
					PropertyOSVariant: "server", PropertyOSCodename: "noble",
					"unikorn:package:kubernetes": "v1.31.0", "unikorn:package:slurmd": "v24.5.1",
					PropertyLegacyKubernetesVersion: "v1.20.0",
					PropertyGPUVendor:               "NVIDIA", PropertyGPUModels: "H100,A100", PropertyGPUDriverVersion: "550.54",
					"unikorn:tag:team": "ml", "unikorn:tag:tier": "gold", "unikorn:tag:bad": 1.0,
					PropertyOrganizationID: "org-1", "architecture": "aarch64",
				}),
			},
			want: Image{
				ID: "i2", Name: "gpu",
				OS:             OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04", Variant: "server", Codename: "noble"},
				Packages:       map[string]string{"kubernetes": "v1.31.0", "slurmd": "v24.5.1"},
				GPU:            &GPU{Vendor: "NVIDIA", Models: []string{"H100", "A100"}, DriverVersion: "550.54"},
				Virtualization: "virtualized", Architecture: "aarch64", SizeGiB: 40,
				Tags:           map[string]string{"team": "ml", "tier": "gold"},
				OrganizationID: "org-1", Status: "ready", CreatedAt: t0,
			},
		},
		{
			name: "legacy kubernetes key when the package key is absent",
			img:  images.Image{ID: "i3", Properties: with(map[string]any{PropertyLegacyKubernetesVersion: "v1.28.5"})},
			want: Image{
				ID: "i3", OS: OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04"},
				Packages: map[string]string{"kubernetes": "v1.28.5"}, Tags: map[string]string{},
				Virtualization: "virtualized", Architecture: "x86_64", Status: "failed",
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := Translate(tt.img); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Translate:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTranslateSize(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		minDisk     int
		virtualSize int64
		want        int
	}{
		{name: "unknown", want: 0},
		{name: "one byte rounds up", virtualSize: 1, want: 1},
		{name: "exactly 2 GiB", virtualSize: 2 << 30, want: 2},
		{name: "2 GiB and a byte", virtualSize: 2<<30 + 1, want: 3},
		{name: "min_disk wins", minDisk: 10, virtualSize: 2<<30 + 1, want: 10},
		{name: "min_disk wins even when smaller", minDisk: 1, virtualSize: 5 << 30, want: 1},
		{name: "negative virtual size is unknown", virtualSize: -1, want: 0},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			img := images.Image{MinDiskGigabytes: tt.minDisk, VirtualSize: tt.virtualSize, Properties: validProps()}
			if got := Translate(img).SizeGiB; got != tt.want {
				t.Errorf("SizeGiB = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestStatusOf(t *testing.T) {
	t.Parallel()

	tests := map[images.ImageStatus]string{
		"queued":         StatusPending,
		"saving":         StatusCreating,
		"uploading":      StatusCreating,
		"importing":      StatusCreating,
		"active":         StatusReady,
		"killed":         StatusFailed,
		"deleted":        StatusFailed,
		"pending_delete": StatusFailed,
		"deactivated":    StatusFailed,
		"":               StatusFailed,
		"something-new":  StatusFailed,
	}

	for glance, want := range tests {
		t.Run(string(glance), func(t *testing.T) {
			t.Parallel()

			if got := StatusOf(glance); got != want {
				t.Errorf("StatusOf(%q) = %q, want %q", glance, got, want)
			}
		})
	}
}

func TestNormalizeArchitecture(t *testing.T) {
	t.Parallel()

	tests := map[string]string{
		"": "x86_64", "x86_64": "x86_64", "amd64": "x86_64", "X86-64": "x86_64",
		"aarch64": "aarch64", "arm64": "aarch64", "ARM64": "aarch64",
		"ppc64le": "ppc64le", " RISCV64 ": "riscv64",
	}

	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()

			if got := NormalizeArchitecture(in); got != want {
				t.Errorf("NormalizeArchitecture(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()

	key, keyPEM := newKey(t, elliptic.P384())
	other, _ := newKey(t, elliptic.P384())

	pub, err := ParseSigningKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}

	image := func(id, name string, created time.Time, set map[string]any) images.Image {
		return images.Image{ID: id, Name: name, Status: "active", CreatedAt: created, Properties: with(set)}
	}

	imgs := []images.Image{
		image("new", "b-signed", t0.Add(2*time.Hour), map[string]any{PropertyDigest: sign(t, key, "new")}),
		image("old", "z-signed", t0, map[string]any{PropertyDigest: sign(t, key, "old")}),
		image("tie-2", "a-signed", t0.Add(time.Hour), map[string]any{PropertyDigest: sign(t, key, "tie-2")}),
		image("tie-1", "a-signed", t0.Add(time.Hour), map[string]any{PropertyDigest: sign(t, key, "tie-1")}),
		image("org", "org-unsigned", t0.Add(time.Minute), map[string]any{PropertyOrganizationID: "org-1"}),
		image("unsigned", "unsigned", t0, nil),
		image("wrong", "wrong-key", t0, map[string]any{PropertyDigest: sign(t, other, "wrong")}),
		image("copied", "copied-digest", t0, map[string]any{PropertyDigest: sign(t, key, "new")}),
		image("bad", "bad-schema", t0, map[string]any{PropertyOSKernel: "windows", PropertyVirtualization: absent}),
	}

	tests := []struct {
		name         string
		key          bool
		wantAccepted []string
		wantRejected map[string]string
	}{
		{
			name:         "with signing key",
			key:          true,
			wantAccepted: []string{"old", "org", "tie-1", "tie-2", "new"},
			wantRejected: map[string]string{
				"bad":      `schema: property "unikorn:os:kernel" is "windows", must be one of linux; property "unikorn:virtualization" is required`,
				"copied":   "signature: invalid image signature: property \"unikorn:digest\" is not a signature of the image ID by the configured signing key",
				"unsigned": `signature: image is not signed: property "unikorn:digest" is missing or empty`,
				"wrong":    "signature: invalid image signature: property \"unikorn:digest\" is not a signature of the image ID by the configured signing key",
			},
		},
		{
			name:         "without signing key, only the schema counts",
			wantAccepted: []string{"copied", "unsigned", "wrong", "old", "org", "tie-1", "tie-2", "new"},
			wantRejected: map[string]string{
				"bad": `schema: property "unikorn:os:kernel" is "windows", must be one of linux; property "unikorn:virtualization" is required`,
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			k := pub
			if !tt.key {
				k = nil
			}

			accepted, rejected := Classify(imgs, k)

			var gotIDs []string
			for _, a := range accepted {
				gotIDs = append(gotIDs, a.ID)
			}

			if !reflect.DeepEqual(gotIDs, tt.wantAccepted) {
				t.Errorf("accepted = %v, want %v", gotIDs, tt.wantAccepted)
			}

			gotRejected := map[string]string{}
			for _, r := range rejected {
				gotRejected[r.ID] = r.Reason

				if r.Image.ID != r.ID || r.Image.Name != r.Name || r.Image.Status != StatusReady {
					t.Errorf("rejected %s carries the translation %+v, want the image translated", r.ID, r.Image)
				}

				if strings.Contains(r.Reason, "\n") {
					t.Errorf("reason for %s spans lines: %q", r.ID, r.Reason)
				}
			}

			if !reflect.DeepEqual(gotRejected, tt.wantRejected) {
				t.Errorf("rejected:\n got %q\nwant %q", gotRejected, tt.wantRejected)
			}

			for i := 1; i < len(rejected); i++ {
				if rejected[i-1].Name > rejected[i].Name {
					t.Errorf("rejected not sorted by name: %v", rejected)
				}
			}
		})
	}
}
