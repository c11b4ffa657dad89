package flavor

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func ptr[T any](v T) *T { return &v }

// novaFlavors is a flavor list as Nova answers at microversion 2.88: a
// public GPU flavor, a public plain flavor, a private flavor the project can
// see, and a public flavor outside the allow-list.
const novaFlavors = `{
  "flavors": [
    {"id": "f-gpu", "name": "g.h100", "vcpus": 8, "ram": 65536, "disk": 100,
     "os-flavor-access:is_public": true, "swap": "",
     "extra_specs": {"resources:VGPU": "1", "hw:cpu_policy": "dedicated"}},
    {"id": "f-small", "name": "a.small", "vcpus": 2, "ram": 1536, "disk": 20,
     "os-flavor-access:is_public": true, "swap": 0, "extra_specs": {}},
    {"id": "f-private", "name": "p.secret", "vcpus": 4, "ram": 4096, "disk": 40,
     "os-flavor-access:is_public": false, "swap": "", "extra_specs": {}},
    {"id": "f-other", "name": "b.other", "vcpus": 4, "ram": 4096, "disk": 40,
     "os-flavor-access:is_public": true, "swap": "", "extra_specs": {}}
  ]
}`

// novaClient is a compute client of api at microversion 2.88, as the provider's.
func novaClient(api *cloudtest.API) *gophercloud.ServiceClient {
	c := api.ServiceClient("/", "/")
	c.Type = "compute"
	c.Microversion = "2.88"

	return c
}

// fakeNova is a Nova at microversion 2.88 whose flavor list answers body; it checks the
// list's query and microversion header. More routes go on the returned API.
func fakeNova(t *testing.T, body string) (*cloudtest.API, *gophercloud.ServiceClient) {
	t.Helper()

	api := cloudtest.New(t)
	api.On(http.MethodGet, "/flavors/detail", func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("is_public"); got != "true" {
			t.Errorf("is_public = %q, want true", got)
		}

		if got := r.Header.Get("X-OpenStack-Nova-API-Version"); got != "2.88" {
			t.Errorf("microversion = %q, want 2.88", got)
		}

		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, body)
	})

	return api, novaClient(api)
}

func TestList(t *testing.T) {
	t.Parallel()

	overrides := Overrides{
		"f-gpu": {
			CPU:       CPU{Architecture: ArchitectureAarch64, Count: ptr(16), Family: "Grace"},
			MemoryGiB: ptr(480),
			Baremetal: true, PinnedOnly: true,
			GPU: &GPU{Vendor: GPUVendorNVIDIA, Model: "H100", MemoryGiB: 80, PhysicalCount: 1},
		},
		"f-missing": {CPU: CPU{Family: "ignored"}},
	}

	gpuFlavor := Flavor{
		ID: "f-gpu", Name: "g.h100", Architecture: ArchitectureAarch64, CPUs: 16, CPUFamily: "Grace",
		MemoryGiB: 480, DiskGB: 100, Baremetal: true, PinnedOnly: true,
		GPU:        &GPU{Vendor: GPUVendorNVIDIA, Model: "H100", MemoryGiB: 80, PhysicalCount: 1, LogicalCount: 1},
		ExtraSpecs: map[string]string{"resources:VGPU": "1", "hw:cpu_policy": "dedicated"},
	}
	smallFlavor := Flavor{
		ID: "f-small", Name: "a.small", Architecture: ArchitectureX86_64, CPUs: 2,
		MemoryGiB: 1.5, DiskGB: 20, ExtraSpecs: map[string]string{},
	}
	otherFlavor := Flavor{
		ID: "f-other", Name: "b.other", Architecture: ArchitectureX86_64, CPUs: 4,
		MemoryGiB: 4, DiskGB: 40, ExtraSpecs: map[string]string{},
	}

	tests := []struct {
		name  string
		allow []string
		want  []Flavor
	}{
		{name: "no allow-list: all public flavors sorted by name", want: []Flavor{smallFlavor, otherFlavor, gpuFlavor}},
		{name: "allow-list", allow: []string{"f-gpu", "f-small", "f-private", "f-unknown"}, want: []Flavor{smallFlavor, gpuFlavor}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			nova, compute := fakeNova(t, novaFlavors)

			got, err := List(t.Context(), compute, tt.allow, overrides)
			if err != nil {
				t.Fatalf("List: %v", err)
			}

			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("List:\n got %+v\nwant %+v", got, tt.want)
			}

			if calls := nova.Calls(); len(calls) != 1 {
				t.Errorf("List made the requests %v, want one list", calls)
			}
		})
	}
}

func TestListExtraSpecsFallback(t *testing.T) {
	t.Parallel()

	// Below microversion 2.61 Nova omits extra_specs from the list.
	const old = `{"flavors": [
	  {"id": "f1", "name": "one", "vcpus": 1, "ram": 1024, "disk": 10, "os-flavor-access:is_public": true},
	  {"id": "f2", "name": "two", "vcpus": 2, "ram": 2048, "disk": 10, "os-flavor-access:is_public": true}
	]}`

	tests := []struct {
		name         string
		status       int
		wantSpecs    map[string]string
		wantRequests int
		wantErr      string
	}{
		{name: "fetched per flavor", status: http.StatusOK, wantSpecs: map[string]string{"k": "v"}, wantRequests: 3},
		{name: "policy forbids: asked once, specs empty", status: http.StatusForbidden, wantSpecs: map[string]string{}, wantRequests: 2},
		{name: "server error fails", status: http.StatusInternalServerError, wantErr: "listing extra specs of flavor one (f1)"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			nova, compute := fakeNova(t, old)
			for _, id := range []string{"f1", "f2"} {
				nova.Reply(http.MethodGet, "/flavors/"+id+"/os-extra_specs", tt.status, map[string]any{"extra_specs": map[string]string{"k": "v"}})
			}

			got, err := List(t.Context(), compute, nil, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("List error = %v, want it to contain %q", err, tt.wantErr)
				}

				return
			}

			if err != nil {
				t.Fatalf("List: %v", err)
			}

			for _, f := range got {
				if !reflect.DeepEqual(f.ExtraSpecs, tt.wantSpecs) {
					t.Errorf("flavor %s extra specs = %v, want %v", f.ID, f.ExtraSpecs, tt.wantSpecs)
				}
			}

			if calls := nova.Calls(); len(calls) != tt.wantRequests {
				t.Errorf("List made the requests %v, want %d", calls, tt.wantRequests)
			}
		})
	}
}

func TestListError(t *testing.T) {
	t.Parallel()

	nova := cloudtest.New(t)
	nova.Reply(http.MethodGet, "/flavors/detail", http.StatusUnauthorized, nil)

	_, err := List(t.Context(), nova.ServiceClient("/", "/"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "listing Nova flavors") {
		t.Fatalf("List error = %v", err)
	}
}

func TestEnrich(t *testing.T) {
	t.Parallel()

	nova := flavors.Flavor{ID: "id", Name: "n", VCPUs: 4, RAM: 3072, Disk: 10}

	tests := []struct {
		name      string
		overrides Overrides
		want      Flavor
	}{
		{
			name: "no override: Nova values, x86_64, MiB/1024",
			want: Flavor{ID: "id", Name: "n", Architecture: "x86_64", CPUs: 4, MemoryGiB: 3, DiskGB: 10, ExtraSpecs: map[string]string{}},
		},
		{
			name:      "override without architecture keeps default, family set",
			overrides: Overrides{"id": {CPU: CPU{Family: "EPYC"}}},
			want:      Flavor{ID: "id", Name: "n", Architecture: "x86_64", CPUs: 4, CPUFamily: "EPYC", MemoryGiB: 3, DiskGB: 10, ExtraSpecs: map[string]string{}},
		},
		{
			name: "override replaces count and memory, logical GPUs explicit",
			overrides: Overrides{"id": {
				CPU: CPU{Count: ptr(64)}, MemoryGiB: ptr(512),
				GPU: &GPU{Vendor: "AMD", Model: "MI250", PhysicalCount: 4, LogicalCount: 8},
			}},
			want: Flavor{
				ID: "id", Name: "n", Architecture: "x86_64", CPUs: 64, MemoryGiB: 512, DiskGB: 10, ExtraSpecs: map[string]string{},
				GPU: &GPU{Vendor: "AMD", Model: "MI250", PhysicalCount: 4, LogicalCount: 8},
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := Enrich(nova, tt.overrides); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Enrich:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestEnrichDoesNotAliasOverride(t *testing.T) {
	t.Parallel()

	overrides := Overrides{"id": {GPU: &GPU{Vendor: "NVIDIA", Model: "A100", PhysicalCount: 2}}}

	f := Enrich(flavors.Flavor{ID: "id"}, overrides)
	f.GPU.Model = "changed"

	if overrides["id"].GPU.Model != "A100" || overrides["id"].GPU.LogicalCount != 0 {
		t.Errorf("Enrich modified the override: %+v", overrides["id"].GPU)
	}
}

func TestOverridesValidate(t *testing.T) {
	t.Parallel()

	goodGPU := &GPU{Vendor: "NVIDIA", Model: "H100", MemoryGiB: 80, PhysicalCount: 1}

	tests := []struct {
		name      string
		overrides Overrides
		want      []string
	}{
		{name: "empty", overrides: nil},
		{name: "complete and valid", overrides: Overrides{"a": {
			CPU: CPU{Architecture: "aarch64", Count: ptr(2), Family: "Neoverse"}, MemoryGiB: ptr(4),
			Baremetal: true, PinnedOnly: true, GPU: goodGPU,
		}}},
		{name: "unknown architecture", overrides: Overrides{"a": {CPU: CPU{Architecture: "arm64"}}},
			want: []string{`flavor "a": cpu.architecture: "arm64" is not one of x86_64, aarch64`}},
		{name: "zero and negative counts", overrides: Overrides{"a": {CPU: CPU{Count: ptr(0)}, MemoryGiB: ptr(-1)}},
			want: []string{`flavor "a": cpu.count: must be at least 1, got 0`, `flavor "a": memory_gib: must be at least 1, got -1`}},
		{name: "gpu problems", overrides: Overrides{"b": {GPU: &GPU{Vendor: "nvidia", MemoryGiB: -2, PhysicalCount: 0, LogicalCount: -1}}},
			want: []string{
				`flavor "b": gpu.vendor: "nvidia" is not one of NVIDIA, AMD`,
				`flavor "b": gpu.model: must not be empty`,
				`flavor "b": gpu.memory_gib: must not be negative, got -2`,
				`flavor "b": gpu.physical_count: must be at least 1, got 0`,
				`flavor "b": gpu.logical_count: must not be negative, got -1`,
			}},
		{name: "empty id, sorted by id", overrides: Overrides{"z": {CPU: CPU{Architecture: "ppc"}}, "": {}},
			want: []string{`flavor "": id: must not be empty`, `flavor "z": cpu.architecture: "ppc" is not one of x86_64, aarch64`}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var got []string

			for _, err := range adapter.Unjoin(tt.overrides.Validate()) {
				var oe *OverrideError
				if !errors.As(err, &oe) {
					t.Errorf("Validate error %q is not an *OverrideError", err)
				}

				got = append(got, err.Error())
			}

			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
