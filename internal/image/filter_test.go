package image

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePackageConstraint(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in             string
		wantName       string
		wantConstraint string
		wantErr        string
	}{
		{in: "kubernetes", wantName: "kubernetes"},
		{in: "  kubernetes  ", wantName: "kubernetes"},
		{in: "kubernetes >= 1.30", wantName: "kubernetes", wantConstraint: ">=1.30"},
		{in: "kubernetes>=1.30", wantName: "kubernetes", wantConstraint: ">=1.30"},
		{in: "kubernetes ~1.30", wantName: "kubernetes", wantConstraint: "~1.30"},
		{in: "kubernetes >= 1.30, < 1.32", wantName: "kubernetes", wantConstraint: ">=1.30 <1.32"},
		{in: "nvidia-container-toolkit ^1.14", wantName: "nvidia-container-toolkit", wantConstraint: "^1.14"},
		{in: "slurmd 24.5.1", wantName: "slurmd", wantConstraint: "24.5.1"},
		{in: "", wantErr: "empty package constraint"},
		{in: ">= 1.30", wantErr: `package constraint ">= 1.30": missing the package name`},
		{in: "kube/rnetes", wantErr: `invalid package name "kube/rnetes"`},
		{in: "kubernetes >= banana", wantErr: `package constraint "kubernetes >= banana": invalid version constraint ">= banana"`},
		{in: "kubernetes >= 1.30 ||", wantErr: `invalid version constraint ">= 1.30 ||"`},
	}

	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()

			name, c, err := ParsePackageConstraint(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePackageConstraint error = %v, want it to contain %q", err, tt.wantErr)
				}

				return
			}

			if err != nil {
				t.Fatalf("ParsePackageConstraint: %v", err)
			}

			if name != tt.wantName {
				t.Errorf("name = %q, want %q", name, tt.wantName)
			}

			switch {
			case tt.wantConstraint == "" && c != nil:
				t.Errorf("constraint = %v, want none", c)
			case tt.wantConstraint != "" && (c == nil || c.String() != tt.wantConstraint):
				t.Errorf("constraint = %v, want %s", c, tt.wantConstraint)
			}
		})
	}
}

var (
	k8s129 = Image{
		ID: "1", Name: "k8s-1.29", CreatedAt: t0,
		OS:       OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "22.04"},
		Packages: map[string]string{"kubernetes": "v1.29.3"}, Tags: map[string]string{"team": "ml", "tier": "gold"},
		Virtualization: "virtualized", Architecture: "x86_64", Status: "ready",
	}
	k8s131 = Image{
		ID: "2", Name: "k8s-1.31", CreatedAt: t0.Add(time.Hour),
		OS:       OS{Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04"},
		Packages: map[string]string{"kubernetes": "v1.31.0"}, Tags: map[string]string{"team": "ml"},
		GPU:            &GPU{Vendor: "NVIDIA", Models: []string{"H100", "A100"}, DriverVersion: "550"},
		Virtualization: "any", Architecture: "x86_64", Status: "ready",
	}
	rocky = Image{
		ID: "3", Name: "rocky", CreatedAt: t0.Add(2 * time.Hour),
		OS:       OS{Kernel: "linux", Family: "redhat", Distro: "rocky", Version: "9"},
		Packages: map[string]string{"slurmd": "v24.5.1", "kubernetes": "not-a-version"}, Tags: map[string]string{},
		GPU:            &GPU{Vendor: "AMD", Models: []string{"MI300X"}, DriverVersion: "6.1"},
		Virtualization: "baremetal", Architecture: "aarch64", Status: "creating",
	}
	rc = Image{
		ID: "4", Name: "k8s-rc", CreatedAt: t0.Add(3 * time.Hour),
		Packages: map[string]string{"kubernetes": "v1.32.0-rc.1"}, Tags: map[string]string{},
		Virtualization: "virtualized", Architecture: "x86_64", Status: "pending",
	}

	catalog = []Image{k8s129, k8s131, rocky, rc}
)

// idsOf are the IDs of imgs, in order (nil for none).
func idsOf(imgs []Image) []string {
	var ids []string
	for _, img := range imgs {
		ids = append(ids, img.ID)
	}

	return ids
}

func TestSelect(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{name: "empty filter", want: []string{"1", "2", "3", "4"}},
		{name: "kubernetes >= 1.30", filter: Filter{Package: "kubernetes >= 1.30"}, want: []string{"2"}},
		{name: "kubernetes < 1.30", filter: Filter{Package: "kubernetes < 1.30"}, want: []string{"1"}},
		{name: "kubernetes ~1.29", filter: Filter{Package: "kubernetes ~1.29"}, want: []string{"1"}},
		{name: "pre-release needs a pre-release constraint", filter: Filter{Package: "kubernetes >= 1.32.0-0"}, want: []string{"4"}},
		{name: "package presence", filter: Filter{Package: "slurmd"}, want: []string{"3"}},
		{name: "unknown package", filter: Filter{Package: "cuda >= 12"}, want: nil},
		{name: "os distro", filter: Filter{OSDistro: "ubuntu"}, want: []string{"1", "2"}},
		{name: "os version", filter: Filter{OSVersion: "24.04"}, want: []string{"2"}},
		{name: "gpu vendor", filter: Filter{GPUVendor: "AMD"}, want: []string{"3"}},
		{name: "gpu model among models", filter: Filter{GPUModel: "A100"}, want: []string{"2"}},
		{name: "gpu vendor and model disagree", filter: Filter{GPUVendor: "AMD", GPUModel: "H100"}, want: nil},
		{name: "virtualized includes any", filter: Filter{Virtualization: "virtualized"}, want: []string{"1", "2", "4"}},
		{name: "baremetal includes any", filter: Filter{Virtualization: "baremetal"}, want: []string{"2", "3"}},
		{name: "any means runs everywhere", filter: Filter{Virtualization: "any"}, want: []string{"2"}},
		{name: "architecture", filter: Filter{Architecture: "aarch64"}, want: []string{"3"}},
		// As in Unikorn, amd64 is not another name of x86_64.
		{name: "architecture exact", filter: Filter{Architecture: "amd64"}, want: nil},
		{name: "status", filter: Filter{Status: "ready"}, want: []string{"1", "2"}},
		{name: "tags subset", filter: Filter{Tags: map[string]string{"team": "ml"}}, want: []string{"1", "2"}},
		{name: "tags all required", filter: Filter{Tags: map[string]string{"team": "ml", "tier": "gold"}}, want: []string{"1"}},
		{name: "tag value must match", filter: Filter{Tags: map[string]string{"team": "web"}}, want: nil},
		{name: "empty tags map", filter: Filter{Tags: map[string]string{}}, want: []string{"1", "2", "3", "4"}},
		{name: "name exact", filter: Filter{Name: "k8s-1.3"}, want: nil},
		{name: "combined", filter: Filter{OSDistro: "ubuntu", Status: "ready", Package: "kubernetes>=1.29", Virtualization: "virtualized"}, want: []string{"1", "2"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := Select(catalog, tt.filter)
			if err != nil {
				t.Fatalf("Select: %v", err)
			}

			if ids := idsOf(got); !slices.Equal(ids, tt.want) {
				t.Errorf("Select = %v, want %v", ids, tt.want)
			}
		})
	}
}

func TestMatchBadConstraint(t *testing.T) {
	t.Parallel()

	if _, err := (Filter{Package: "kubernetes >= banana"}).Match(k8s129); err == nil {
		t.Error("Match with a bad constraint: no error")
	}

	// The constraint is only parsed when the other fields match.
	if ok, err := (Filter{Package: "kubernetes >= banana", OSDistro: "debian"}).Match(k8s129); ok || err != nil {
		t.Errorf("Match = %v, %v", ok, err)
	}

	if _, err := Select(catalog, Filter{Package: ">= 1"}); err == nil {
		t.Error("Select with a bad constraint: no error")
	}
}

func TestMostRecent(t *testing.T) {
	t.Parallel()

	sameTimeB := Image{ID: "b", Name: "same", CreatedAt: t0}
	sameTimeA := Image{ID: "a", Name: "same", CreatedAt: t0}

	tests := []struct {
		name string
		imgs []Image
		want string
	}{
		{name: "empty", imgs: nil, want: ""},
		{name: "newest wins whatever the order", imgs: []Image{rc, k8s129, rocky, k8s131}, want: "4"},
		{name: "tie broken by name then ID", imgs: []Image{sameTimeB, sameTimeA}, want: "b"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := MostRecent(tt.imgs); got.ID != tt.want {
				t.Errorf("MostRecent = %q, want %q", got.ID, tt.want)
			}
		})
	}
}

func TestSortOldestFirst(t *testing.T) {
	t.Parallel()

	imgs := []Image{rc, {ID: "b", Name: "x", CreatedAt: t0}, rocky, {ID: "a", Name: "x", CreatedAt: t0}, k8s129}
	SortOldestFirst(imgs)

	if ids, want := idsOf(imgs), []string{"1", "a", "b", "3", "4"}; !slices.Equal(ids, want) {
		t.Errorf("SortOldestFirst = %v, want %v", ids, want)
	}
}
