package image

import (
	"context"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// Facts is one image as the plan checks of a server see it: the translated image (whether or
// not it passes the image schema: the facts are the same) and what Nova checks before it boots
// it, Glance's status and minimums.
type Facts struct {
	Image

	// GlanceStatus is Glance's own status; Nova boots only "active" images.
	GlanceStatus string
	// MinRAMMiB and MinDiskGiB are Glance's min_ram and min_disk (0: none).
	MinRAMMiB  int
	MinDiskGiB int
}

// Active tells whether Nova can boot the image.
func (f Facts) Active() bool { return f.GlanceStatus == string(images.ImageStatusActive) }

func factsOf(img images.Image) Facts {
	return Facts{
		Image:        Translate(img),
		GlanceStatus: string(img.Status),
		MinRAMMiB:    img.MinRAMMegabytes,
		MinDiskGiB:   img.MinDiskGigabytes,
	}
}

// Lookup is image id of region (a resolved region name) for the plan checks of a server: from
// the run's shared public Glance listing (the one the image data sources use), else read from
// Glance once per run (Cache.byID, a 404 included). found is false when Glance has no such image.
func (c *Cache) Lookup(ctx context.Context, region, id string, imageClient *gophercloud.ServiceClient) (Facts, bool, error) {
	public, err := c.glance.Get(ctx, glanceKey{region: region}, func(ctx context.Context) ([]images.Image, error) {
		return listGlance(ctx, imageClient, false)
	})
	if err != nil {
		return Facts{}, false, err
	}

	if i := slices.IndexFunc(public, func(img images.Image) bool { return img.ID == id }); i >= 0 {
		return factsOf(public[i]), true, nil
	}

	return c.byID.Get(ctx, region, id, func(ctx context.Context) (Facts, error) {
		img, err := images.Get(ctx, imageClient, id).Extract()
		if err != nil {
			return Facts{}, err
		}

		return factsOf(*img), nil
	})
}
