package flavor

import (
	"context"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
)

// Facts is one flavor as the plan checks of a server see it: the enriched flavor, and Nova's
// own RAM, which is what Nova compares with an image's min_ram (an override's memory_gib
// describes the flavor to users; Nova keeps its own figure).
type Facts struct {
	Flavor

	RAMMiB int
}

// Lookup is flavor id of region (a resolved region name) for the plan checks of a server:
// from the run's shared listing (Flavors), else read from Nova once per run (Cache.byID, a 404
// included). found is false when Nova has no such flavor.
func (c *Cache) Lookup(ctx context.Context, region, id string, compute *gophercloud.ServiceClient) (Facts, bool, error) {
	list, err := c.Flavors(ctx, region, compute)
	if err != nil {
		return Facts{}, false, err
	}

	if i := slices.IndexFunc(list, func(f Flavor) bool { return f.ID == id }); i >= 0 {
		if o, ok := c.overrides[id]; !ok || o.MemoryGiB == nil {
			// Nova's RAM, exactly: MemoryGiB is RAM / 1024 without an override (see Flavor).
			return Facts{Flavor: list[i], RAMMiB: int(list[i].MemoryGiB * 1024)}, true, nil
		}
	}

	return c.byID.Get(ctx, region, id, func(ctx context.Context) (Facts, error) {
		nf, err := flavors.Get(ctx, compute, id).Extract()
		if err != nil {
			return Facts{}, err
		}

		return Facts{Flavor: Enrich(*nf, c.overrides), RAMMiB: nf.RAM}, nil
	})
}
