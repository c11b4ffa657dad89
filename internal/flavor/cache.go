package flavor

import (
	"context"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Cache is the flavor listing of one provider process: every flavor data
// source of a region shares one Nova flavor list, made by the first caller
// and kept for the life of the process (one Terraform command). Concurrent
// callers wait for that one listing instead of starting their own. A failed
// listing is not kept: the next caller tries again.
//
// The allow-list and overrides are fixed at construction (they are provider
// configuration), so the cache keeps flavors already enriched.
type Cache struct {
	allow     []string
	overrides Overrides
	lists     cloud.OnceCache[string, []Flavor]
	// byID holds the flavors read one by one because the listing does not hold them (private
	// flavors, flavors outside the allow-list) or does not hold their Nova RAM (memory
	// overridden), so that each is read once per run however many servers name it.
	byID cloud.ByID[Facts]
}

// NewCache returns an empty cache that lists flavors restricted to allow
// (when not empty) and enriched by overrides; see List.
func NewCache(allow []string, overrides Overrides) *Cache {
	return &Cache{allow: slices.Clone(allow), overrides: overrides, byID: cloud.ByID[Facts]{Kind: "flavor"}}
}

// Flavors returns the enriched public flavors of region (a resolved region
// name, the cache key), listed with compute (that region's Nova client) on
// the first call. The result is shared: callers must not modify it.
func (c *Cache) Flavors(ctx context.Context, region string, compute *gophercloud.ServiceClient) ([]Flavor, error) {
	ctx = tflog.SetField(ctx, "region", region)

	return cloud.ListOnce(ctx, &c.lists, region, "Nova flavors", "flavors", nil, func(ctx context.Context) ([]Flavor, error) {
		return List(ctx, compute, c.allow, c.overrides)
	})
}
