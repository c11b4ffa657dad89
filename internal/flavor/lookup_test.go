package flavor

import (
	"context"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestLookup(t *testing.T) {
	t.Parallel()

	memory := 96

	tests := []struct {
		name    string
		id      string
		found   bool
		ramMiB  int
		memGiB  float64
		baremet bool
		// gets is how many GET /compute/flavors/<id> two lookups of the flavor send.
		gets int
	}{
		{name: "listed", id: "f-small", found: true, ramMiB: 1536, memGiB: 1.5},
		{name: "listed, memory overridden: Nova's RAM read once", id: "f-metal", found: true, ramMiB: 512, memGiB: 96, baremet: true, gets: 1},
		{name: "private: read once", id: "f-private", found: true, ramMiB: 4096, memGiB: 4, gets: 1},
		{name: "unknown: asked once", id: "f-none", gets: 1},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			api := cloudtest.New(t)
			api.Reply("GET", "/compute/flavors/detail", 200, map[string]any{"flavors": []any{
				map[string]any{"id": "f-small", "name": "a.small", "vcpus": 2, "ram": 1536, "disk": 20, "os-flavor-access:is_public": true, "extra_specs": map[string]any{}},
				map[string]any{"id": "f-metal", "name": "bm.large", "vcpus": 1, "ram": 512, "disk": 100, "os-flavor-access:is_public": true, "extra_specs": map[string]any{}},
			}})
			api.Reply("GET", "/compute/flavors/f-metal", 200, map[string]any{"flavor": map[string]any{
				"id": "f-metal", "name": "bm.large", "vcpus": 1, "ram": 512, "disk": 100, "os-flavor-access:is_public": true,
			}})
			api.Reply("GET", "/compute/flavors/f-private", 200, map[string]any{"flavor": map[string]any{
				"id": "f-private", "name": "p.secret", "vcpus": 4, "ram": 4096, "disk": 40, "os-flavor-access:is_public": false,
			}})

			compute := api.ServiceClient("/compute/", "/compute/")
			cache := NewCache(nil, Overrides{"f-metal": {MemoryGiB: &memory, Baremetal: true}})

			for range 2 {
				f, found, err := cache.Lookup(context.Background(), "RegionOne", tt.id, compute)
				if err != nil {
					t.Fatal(err)
				}

				if found != tt.found || f.RAMMiB != tt.ramMiB || f.MemoryGiB != tt.memGiB || f.Baremetal != tt.baremet {
					t.Fatalf("Lookup = %+v, %v; want RAM %d MiB, memory %v GiB, baremetal %v, found %v",
						f, found, tt.ramMiB, tt.memGiB, tt.baremet, tt.found)
				}
			}

			if n := api.Count("GET /compute/flavors/detail"); n != 1 {
				t.Errorf("listed %d times, want once", n)
			}

			if n := api.Count("GET /compute/flavors/" + tt.id); n != tt.gets {
				t.Errorf("read %s %d times, want %d", tt.id, n, tt.gets)
			}
		})
	}
}
