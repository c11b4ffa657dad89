package flavor

import (
	"slices"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

var (
	small   = Flavor{ID: "1", Name: "small", Architecture: "x86_64", CPUs: 2, MemoryGiB: 4, DiskGB: 20}
	medium  = Flavor{ID: "2", Name: "medium", Architecture: "x86_64", CPUs: 4, MemoryGiB: 8, DiskGB: 40}
	arm     = Flavor{ID: "3", Name: "arm", Architecture: "aarch64", CPUs: 4, MemoryGiB: 8, DiskGB: 40}
	metal   = Flavor{ID: "4", Name: "metal", Architecture: "x86_64", CPUs: 64, MemoryGiB: 512, DiskGB: 960, Baremetal: true}
	gpuOne  = Flavor{ID: "5", Name: "gpu1", Architecture: "x86_64", CPUs: 8, MemoryGiB: 64, GPU: &GPU{Vendor: "NVIDIA", Model: "H100", PhysicalCount: 1, LogicalCount: 1}}
	gpuAMD  = Flavor{ID: "6", Name: "amd2", Architecture: "x86_64", CPUs: 8, MemoryGiB: 64, GPU: &GPU{Vendor: "AMD", Model: "MI250", PhysicalCount: 1, LogicalCount: 2}}
	halfGiB = Flavor{ID: "7", Name: "tiny", Architecture: "x86_64", CPUs: 1, MemoryGiB: 0.5, DiskGB: 1}

	all = []Flavor{small, medium, arm, metal, gpuOne, gpuAMD, halfGiB}
)

func names(fs []Flavor) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}

	return out
}

func TestSelect(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{name: "empty filter matches all", filter: Filter{}, want: names(all)},
		{name: "architecture", filter: Filter{Architecture: "aarch64"}, want: []string{"arm"}},
		{name: "baremetal true", filter: Filter{Baremetal: ptr(true)}, want: []string{"metal"}},
		{name: "baremetal false", filter: Filter{Baremetal: ptr(false)}, want: []string{"small", "medium", "arm", "gpu1", "amd2", "tiny"}},
		{name: "gpu vendor", filter: Filter{GPUVendor: "NVIDIA"}, want: []string{"gpu1"}},
		{name: "gpu model", filter: Filter{GPUModel: "MI250"}, want: []string{"amd2"}},
		{name: "gpu vendor and model disagree", filter: Filter{GPUVendor: "NVIDIA", GPUModel: "MI250"}, want: nil},
		{name: "min cpus", filter: Filter{MinCPUs: ptr(8)}, want: []string{"metal", "gpu1", "amd2"}},
		{name: "min memory fractional", filter: Filter{MinMemoryGiB: ptr(0.5)}, want: names(all)},
		{name: "min memory", filter: Filter{MinMemoryGiB: ptr(8.0)}, want: []string{"medium", "arm", "metal", "gpu1", "amd2"}},
		{name: "min gpus counts logical GPUs", filter: Filter{MinGPUs: ptr(2)}, want: []string{"amd2"}},
		{name: "min gpus zero matches all", filter: Filter{MinGPUs: ptr(0)}, want: names(all)},
		{name: "name is exact", filter: Filter{Name: "smal"}, want: nil},
		{name: "combined", filter: Filter{Architecture: "x86_64", MinCPUs: ptr(4), Baremetal: ptr(false), MinGPUs: ptr(1)}, want: []string{"gpu1", "amd2"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got := names(adapter.Select(all, tt.filter.Match))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Select = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSmallest(t *testing.T) {
	t.Parallel()

	twin := small
	twin.ID, twin.Name = "0", "small-b"
	twinSameName := small
	twinSameName.ID = "0"
	virtualTwin := metal
	virtualTwin.ID, virtualTwin.Name, virtualTwin.Baremetal = "9", "zz-virtual", false

	tests := []struct {
		name    string
		flavors []Flavor
		want    Flavor
	}{
		{name: "empty gives zero flavor", flavors: nil, want: Flavor{}},
		{name: "fewest cpus wins", flavors: all, want: halfGiB},
		{name: "fewer GPUs beat fewer CPUs", flavors: []Flavor{gpuOne, metal}, want: metal},
		{name: "fewer logical GPUs", flavors: []Flavor{gpuAMD, gpuOne}, want: gpuOne},
		{name: "memory breaks cpu tie", flavors: []Flavor{metal, medium, arm, {ID: "x", Name: "a", CPUs: 4, MemoryGiB: 6, DiskGB: 80}}, want: Flavor{ID: "x", Name: "a", CPUs: 4, MemoryGiB: 6, DiskGB: 80}},
		{name: "disk breaks memory tie", flavors: []Flavor{{ID: "a", Name: "a", CPUs: 1, MemoryGiB: 1, DiskGB: 50}, {ID: "b", Name: "b", CPUs: 1, MemoryGiB: 1, DiskGB: 10}}, want: Flavor{ID: "b", Name: "b", CPUs: 1, MemoryGiB: 1, DiskGB: 10}},
		{name: "virtual before bare metal", flavors: []Flavor{metal, virtualTwin}, want: virtualTwin},
		{name: "name breaks full tie", flavors: []Flavor{twin, small}, want: small},
		{name: "id breaks name tie", flavors: []Flavor{small, twinSameName}, want: twinSameName},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := Smallest(tt.flavors); got.ID != tt.want.ID || got.Name != tt.want.Name {
				t.Errorf("Smallest = %s (%s), want %s (%s)", got.Name, got.ID, tt.want.Name, tt.want.ID)
			}
		})
	}
}
