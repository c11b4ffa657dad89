// Package volume owns volume classes: the Cinder volume types a region offers, enriched by
// what the operator knows about them (the provider's volume_classes: which types are offered,
// their media, performance tier and encryption), and the unikorn_volume_classes /
// unikorn_volume_class data sources. The core (this file) holds no Terraform types; the
// listing is made once per region and run (Cache).
package volume

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Media a volume class may be described as.
const (
	MediaSSD  = "ssd"
	MediaHDD  = "hdd"
	MediaNVMe = "nvme"
)

// Media are the values of media.
func Media() []string { return []string{MediaHDD, MediaNVMe, MediaSSD} }

// Description is what the operator knows about one volume type (one element of the provider's
// volume_classes.metadata). Empty fields are unknown.
type Description struct {
	Media       string
	Performance string
	Encrypted   *bool
}

// Settings are the provider's volume_classes: the offered volume type IDs (none: every public
// type) and the descriptions, keyed by volume type ID.
type Settings struct {
	IDs          []string
	Descriptions map[string]Description
}

// Class is a Cinder volume type as the data sources show it.
type Class struct {
	ID          string
	Name        string
	Description string
	// ExtraSpecs are Cinder's extra specs of the type (as the caller may see them), never nil.
	ExtraSpecs map[string]string
	// Media, Performance and Encrypted are the operator's description ("" and nil: unknown).
	Media       string
	Performance string
	Encrypted   *bool
}

// List lists the public volume types of a region with cinder (one paginated request) and
// returns those settings offer, enriched by its descriptions, sorted by name then ID.
func List(ctx context.Context, cinder *gophercloud.ServiceClient, settings Settings) ([]Class, error) {
	all, err := cloud.ListAll(ctx, volumetypes.List(cinder, volumetypes.ListOpts{IsPublic: volumetypes.VisibilityPublic}),
		volumetypes.ExtractVolumeTypes, "Cinder volume types")
	if err != nil {
		return nil, err
	}

	out := make([]Class, 0, len(all))

	for _, t := range all {
		if !t.IsPublic || (len(settings.IDs) > 0 && !slices.Contains(settings.IDs, t.ID)) {
			continue
		}

		c := Class{ID: t.ID, Name: t.Name, Description: t.Description, ExtraSpecs: t.ExtraSpecs}
		if c.ExtraSpecs == nil {
			c.ExtraSpecs = map[string]string{}
		}

		if d, ok := settings.Descriptions[t.ID]; ok {
			c.Media, c.Performance, c.Encrypted = d.Media, d.Performance, d.Encrypted
		}

		out = append(out, c)
	}

	slices.SortFunc(out, func(a, b Class) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })

	return out, nil
}

// Filter selects volume classes. Zero-valued fields do not filter.
type Filter struct {
	Name        string
	Media       string
	Performance string
	Encrypted   *bool
}

// Match reports whether c satisfies every set field of the filter. A class whose media,
// performance or encryption is not described matches no filter on it.
func (f Filter) Match(c Class) bool {
	switch {
	case f.Name != "" && c.Name != f.Name,
		f.Media != "" && c.Media != f.Media,
		f.Performance != "" && c.Performance != f.Performance,
		f.Encrypted != nil && (c.Encrypted == nil || *c.Encrypted != *f.Encrypted):
		return false
	}

	return true
}

// label names c in a list of volume classes: "name (id)".
func label(c Class) string { return fmt.Sprintf("%s (%s)", c.Name, c.ID) }

// Cache is the volume class listing of one provider process: every volume class data source
// of a region shares one Cinder listing, made by the first caller (concurrent callers wait for
// it); a failed listing is not kept.
type Cache struct {
	settings Settings
	lists    cloud.OnceCache[string, []Class]
}

// NewCache is an empty cache that lists what settings offer.
func NewCache(settings Settings) *Cache {
	return &Cache{settings: settings}
}

// Classes are the volume classes of region (a resolved region name, the cache key), listed
// with cinder (that region's Cinder client) on the first call. The result is shared: callers
// must not modify it.
func (c *Cache) Classes(ctx context.Context, region string, cinder *gophercloud.ServiceClient) ([]Class, error) {
	ctx = tflog.SetField(ctx, "region", region)

	return cloud.ListOnce(ctx, &c.lists, region, "Cinder volume types", "volume_classes", nil, func(ctx context.Context) ([]Class, error) {
		return List(ctx, cinder, c.settings)
	})
}
