package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestDemandOf(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name   string
		flavor flavors.Flavor
		want   Demand
	}{
		{"plain", flavors.Flavor{VCPUs: 2, RAM: 2048, Disk: 20}, Demand{"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 20}},
		{"ephemeral and swap round up", flavors.Flavor{VCPUs: 1, RAM: 512, Disk: 1, Ephemeral: 2, Swap: 1500},
			Demand{"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 5}},
		{"no disk", flavors.Flavor{VCPUs: 1, RAM: 512}, Demand{"VCPU": 1, "MEMORY_MB": 512}},
		{"baremetal extra specs", flavors.Flavor{VCPUs: 64, RAM: 262144, Disk: 400, ExtraSpecs: map[string]string{
			"resources:VCPU": "0", "resources:MEMORY_MB": "0", "resources:DISK_GB": "0", "resources:CUSTOM_BAREMETAL_LARGE": "1",
			"capabilities:boot_mode": "uefi",
		}}, Demand{"CUSTOM_BAREMETAL_LARGE": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if diff := cmp.Diff(tc.want, DemandOf(&tc.flavor)); diff != "" {
				t.Errorf("DemandOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShortfalls(t *testing.T) {
	t.Parallel()

	inventories := map[string]resourceproviders.Inventory{
		"VCPU":      {Total: 8, AllocationRatio: 4, MaxUnit: 8},
		"MEMORY_MB": {Total: 16384, Reserved: 512, AllocationRatio: 1.5, MaxUnit: 16384},
		"DISK_GB":   {Total: 100, AllocationRatio: 1, MaxUnit: 100},
	}
	usages := map[string]int{"VCPU": 30, "MEMORY_MB": 20000, "DISK_GB": 90}

	for _, tc := range []struct {
		name   string
		demand Demand
		want   []Shortfall
	}{
		{"fits", Demand{"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 10}, nil},
		{"vcpus over what is free", Demand{"VCPU": 3}, []Shortfall{{Class: "VCPU", Need: 3, Free: 2, MaxUnit: 8}}},
		// (16384 - 512) × 1.5 = 23808, less 20000 used.
		{"memory after reserved and ratio", Demand{"MEMORY_MB": 3809}, []Shortfall{{Class: "MEMORY_MB", Need: 3809, Free: 3808, MaxUnit: 16384}}},
		{"disk, sorted by class", Demand{"DISK_GB": 11, "VCPU": 9}, []Shortfall{
			{Class: "DISK_GB", Need: 11, Free: 10, MaxUnit: 100}, {Class: "VCPU", Need: 9, Free: 2, MaxUnit: 8},
		}},
		{"no such inventory", Demand{"CUSTOM_GPU": 1}, []Shortfall{{Class: "CUSTOM_GPU", Need: 1, Missing: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if diff := cmp.Diff(tc.want, Shortfalls(tc.demand, inventories, usages)); diff != "" {
				t.Errorf("Shortfalls (-want +got):\n%s", diff)
			}
		})
	}
}

// placementCloud is a fake Nova with flavor f-1 (2 VCPUs, 4096 MB, 20 GB) and compute host
// node-a (resource provider rp-a) and Placement with rp-a's inventory and usages.
func placementCloud(t *testing.T, usedMemory int) (*cloudtest.API, HostCheck) {
	t.Helper()

	api := cloudtest.New(t)
	api.Reply("GET", "/compute/flavors/f-1", 200, map[string]any{"flavor": map[string]any{
		"id": "f-1", "name": "m1.medium", "vcpus": 2, "ram": 4096, "disk": 20, "OS-FLV-EXT-DATA:ephemeral": 0, "swap": "",
	}})
	api.Reply("GET", "/compute/os-hypervisors/detail", 200, map[string]any{"hypervisors": []any{
		map[string]any{"id": "rp-a", "hypervisor_hostname": "node-a.example.com", "service": map[string]any{"host": "node-a", "id": "s-1"}},
		map[string]any{"id": "rp-b", "hypervisor_hostname": "node-b.example.com", "service": map[string]any{"host": "node-b", "id": "s-2"}},
	}})
	placementResources(api, "rp-a", usedMemory)

	return api, HostCheck{
		Compute: api.ServiceClient("/compute/", "/compute/"), Placement: api.ServiceClient("/placement/", "/placement/"),
		Region: "RegionOne",
	}
}

// placementResources answers the inventory (16 VCPUs, 32768 MB, 500 GB) and usages (4 VCPUs,
// usedMemory MB, 40 GB) of resource provider rp.
func placementResources(api *cloudtest.API, rp string, usedMemory int) {
	api.Reply("GET", "/placement/resource_providers/"+rp+"/inventories", 200, map[string]any{
		"resource_provider_generation": 1,
		"inventories": map[string]any{
			"VCPU":      map[string]any{"total": 16, "reserved": 0, "allocation_ratio": 1.0, "max_unit": 16, "min_unit": 1, "step_size": 1},
			"MEMORY_MB": map[string]any{"total": 32768, "reserved": 0, "allocation_ratio": 1.0, "max_unit": 32768, "min_unit": 1, "step_size": 1},
			"DISK_GB":   map[string]any{"total": 500, "reserved": 0, "allocation_ratio": 1.0, "max_unit": 500, "min_unit": 1, "step_size": 1},
		},
	})
	api.Reply("GET", "/placement/resource_providers/"+rp+"/usages", 200, map[string]any{
		"resource_provider_generation": 1, "usages": map[string]any{"VCPU": 4, "MEMORY_MB": usedMemory, "DISK_GB": 40},
	})
}

func TestHostCheck(t *testing.T) {
	t.Parallel()

	t.Run("room", func(t *testing.T) {
		t.Parallel()

		api, h := placementCloud(t, 8192)

		if err := h.Check(context.Background(), "node-a", "f-1"); err != nil {
			t.Fatal(err)
		}

		want := []string{
			"GET /compute/flavors/f-1", "GET /compute/os-hypervisors/detail",
			"GET /placement/resource_providers/rp-a/inventories", "GET /placement/resource_providers/rp-a/usages",
		}
		if diff := cmp.Diff(want, api.Calls()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})

	t.Run("shortfall names the host and the class", func(t *testing.T) {
		t.Parallel()

		_, h := placementCloud(t, 30000)

		err := h.Check(context.Background(), "node-a", "f-1")

		var he *HostError
		if !errors.As(err, &he) || len(he.Short) != 1 {
			t.Fatalf("err = %v, want a HostError with one shortfall", err)
		}

		for _, part := range []string{"node-a", "RegionOne", "m1.medium", "MEMORY_MB: the flavor needs 4096, 2768 free"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
	})

	t.Run("unknown host lists the known ones", func(t *testing.T) {
		t.Parallel()

		api, h := placementCloud(t, 0)

		err := h.Check(context.Background(), "node-c", "f-1")

		var he *HostError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), "no compute host node-c in region RegionOne (its compute hosts: node-a, node-b)") {
			t.Fatalf("err = %v", err)
		}

		if n := api.Count("GET /placement/resource_providers/rp-a/usages"); n != 0 {
			t.Errorf("Placement read %d times for an unknown host", n)
		}
	})

	t.Run("no resource provider", func(t *testing.T) {
		t.Parallel()

		_, h := placementCloud(t, 0)

		err := h.Check(context.Background(), "node-b", "f-1")
		if !strings.Contains(errText(err), "Placement has no resource provider for its node node-b.example.com") {
			t.Fatalf("err = %v", err)
		}
	})
}

// errText is err's message ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}

	return err.Error()
}

// pinnedService is service(api) with the privileged scope's Nova at /privileged/.
func pinnedService(api *cloudtest.API) *Service {
	s := service(api)
	s.pinned = api.ServiceClient("/privileged/", "/privileged/")
	s.refusal = func(call string, err error) error { return fmt.Errorf("refused %s: %w", call, err) }

	return s
}

// TestEnsurePinned: a pinned server is created through the privileged scope's Nova with the
// host in the body; Nova's refusal is explained and deletes the port made for it.
func TestEnsurePinned(t *testing.T) {
	t.Parallel()

	spec := baseSpec()
	spec.Host = "node-a"

	t.Run("created in the privileged scope on the host", func(t *testing.T) {
		t.Parallel()

		f := newCreate(t)
		f.Reply("POST", "/privileged/servers", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
		serverReads(f, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
		echoMetadata(f)

		if _, err := pinnedService(f).Ensure(context.Background(), spec, Known{}); err != nil {
			t.Fatal(err)
		}

		body := f.Last(t, "POST /privileged/servers").JSON(t, "server")
		if body["host"] != "node-a" || body["key_name"] != nil || f.Count("POST /compute/servers") != 0 {
			t.Fatalf("server created with %v (identity-scope creates: %d)", body, f.Count("POST /compute/servers"))
		}
	})

	t.Run("a refusal is explained and the port deleted", func(t *testing.T) {
		t.Parallel()

		f := newCreate(t)
		f.Reply("POST", "/privileged/servers", 403, map[string]any{"forbidden": map[string]any{"message": "Policy doesn't allow compute:servers:create:requested_destination to be performed.", "code": 403}})
		f.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

		out, err := pinnedService(f).Ensure(context.Background(), spec, Known{})
		if out != nil || err == nil || !strings.Contains(err.Error(), "refused a server create on host node-a (policy compute:servers:create:requested_destination)") {
			t.Fatalf("Ensure = %v, %v", out, err)
		}

		if f.Count("DELETE /network/v2.0/ports/port-1") != 1 {
			t.Errorf("the port made for the refused server was kept: %v", f.Calls())
		}
	})

	t.Run("without the privileged scope nothing is made", func(t *testing.T) {
		t.Parallel()

		f := newCreate(t)

		if _, err := service(f).Ensure(context.Background(), spec, Known{}); err == nil || f.Count("POST /network/v2.0/ports") != 0 {
			t.Fatalf("err = %v, calls %v", err, f.Calls())
		}
	})
}
