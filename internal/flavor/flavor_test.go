package flavor

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	th "github.com/gophercloud/gophercloud/v2/testhelper"
	"github.com/gophercloud/gophercloud/v2/testhelper/client"
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

func fakeNova(t *testing.T, body string, handlers map[string]http.HandlerFunc) (*gophercloud.ServiceClient, *atomic.Int64) {
	t.Helper()

	server := th.SetupHTTP()
	t.Cleanup(server.Teardown)

	var requests atomic.Int64

	server.Mux.HandleFunc("/flavors/detail", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		th.TestMethod(t, r, http.MethodGet)
		th.TestFormValues(t, r, map[string]string{"is_public": "true"})
		th.TestHeader(t, r, "X-OpenStack-Nova-API-Version", "2.88")
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, body)
	})

	for path, h := range handlers {
		server.Mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			h(w, r)
		})
	}

	c := client.ServiceClient(server)
	c.Type = "compute"
	c.Microversion = "2.88"

	return c, &requests
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

			compute, requests := fakeNova(t, novaFlavors, nil)

			got, err := List(t.Context(), compute, tt.allow, overrides)
			if err != nil {
				t.Fatalf("List: %v", err)
			}

			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("List:\n got %+v\nwant %+v", got, tt.want)
			}

			if n := requests.Load(); n != 1 {
				t.Errorf("List made %d requests, want 1", n)
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
		wantRequests int64
		wantErr      string
	}{
		{name: "fetched per flavor", status: http.StatusOK, wantSpecs: map[string]string{"k": "v"}, wantRequests: 3},
		{name: "policy forbids: asked once, specs empty", status: http.StatusForbidden, wantSpecs: map[string]string{}, wantRequests: 2},
		{name: "server error fails", status: http.StatusInternalServerError, wantErr: "listing extra specs of flavor one (f1)"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			specs := func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = fmt.Fprint(w, `{"extra_specs": {"k": "v"}}`)
			}

			compute, requests := fakeNova(t, old, map[string]http.HandlerFunc{
				"/flavors/f1/os-extra_specs": specs,
				"/flavors/f2/os-extra_specs": specs,
			})

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

			if n := requests.Load(); n != tt.wantRequests {
				t.Errorf("List made %d requests, want %d", n, tt.wantRequests)
			}
		})
	}
}

func TestListError(t *testing.T) {
	t.Parallel()

	server := th.SetupHTTP()
	t.Cleanup(server.Teardown)
	server.Mux.HandleFunc("/flavors/detail", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	})

	_, err := List(t.Context(), client.ServiceClient(server), nil, nil)
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

			err := tt.overrides.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}

				return
			}

			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}

			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tt.want)
			}

			var oe *OverrideError
			if !errors.As(err, &oe) {
				t.Errorf("Validate error does not unwrap to *OverrideError")
			}
		})
	}
}
