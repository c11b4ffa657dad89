package image

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
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

// lookupKey is one image read by ID, of one Cache (one provider run) and region.
type lookupKey struct {
	cache      *Cache
	region, id string
}

// lookupResult is a read by ID; found is false when Glance answered 404, which is kept too.
type lookupResult struct {
	facts Facts
	found bool
}

// lookups holds the images read one by one because the run's public listing does not hold
// them (private, shared or community images, or images made after the listing). It is keyed
// by the Cache, which lives for one provider run, so each image is read once per run however
// many servers name it.
var lookups cloud.OnceCache[lookupKey, lookupResult]

// Lookup is image id of region (a resolved region name) for the plan checks of a server: from
// the run's shared public Glance listing (the one the image data sources use), else read from
// Glance once per run. found is false when Glance has no such image.
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

	r, err := lookups.Get(ctx, lookupKey{cache: c, region: region, id: id}, func(ctx context.Context) (lookupResult, error) {
		img, err := images.Get(ctx, imageClient, id).Extract()

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			tflog.Debug(ctx, "Glance has no such image", map[string]any{"image_id": id, "region": region})
			return lookupResult{}, nil
		case err != nil:
			return lookupResult{}, fmt.Errorf("reading image %s: %w", id, err)
		}

		return lookupResult{facts: factsOf(*img), found: true}, nil
	})

	return r.facts, r.found, err
}
