package image

import (
	"context"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestLookup(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		id     string
		found  bool
		active bool
		minRAM int
		arch   string
		// gets is how many GET /image/v2/images/<id> two lookups of the image send.
		gets int
	}{
		{name: "public", id: "img-public", found: true, active: true, minRAM: 512, arch: ArchitectureAarch64},
		{name: "public, not active", id: "img-queued", found: true, arch: ArchitectureX86_64},
		{name: "private: read once", id: "img-private", found: true, active: true, arch: ArchitectureX86_64, gets: 1},
		{name: "unknown: asked once", id: "img-none", gets: 1},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			api := cloudtest.New(t)
			api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{
				map[string]any{"id": "img-public", "name": "ubuntu", "status": "active", "visibility": "public", "min_ram": 512, "min_disk": 3, "architecture": "aarch64"},
				map[string]any{"id": "img-queued", "name": "empty", "status": "queued", "visibility": "public"},
			}})
			api.Reply("GET", "/image/v2/images/img-private", 200, map[string]any{
				"id": "img-private", "name": "mine", "status": "active", "visibility": "private",
			})

			client := api.ServiceClient("/image/v2/", "/image/v2/")
			cache := NewCache(nil)

			for range 2 {
				img, found, err := cache.Lookup(context.Background(), "RegionOne", tt.id, client)
				if err != nil {
					t.Fatal(err)
				}

				if found != tt.found || img.Active() != tt.active || img.MinRAMMiB != tt.minRAM || img.Architecture != tt.arch {
					t.Fatalf("Lookup = %+v, %v; want found %v, active %v, min_ram %d, architecture %q",
						img, found, tt.found, tt.active, tt.minRAM, tt.arch)
				}
			}

			if q := api.Last(t, "GET /image/v2/images").Query.Get("visibility"); q != "public" {
				t.Errorf("listed visibility=%q, want the public listing the data sources share", q)
			}

			if n := api.Count("GET /image/v2/images"); n != 1 {
				t.Errorf("listed %d times, want once", n)
			}

			if n := api.Count("GET /image/v2/images/" + tt.id); n != tt.gets {
				t.Errorf("read %s %d times, want %d", tt.id, n, tt.gets)
			}
		})
	}
}
