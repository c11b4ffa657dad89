package image

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listed lists the images of region that unikorn_image manages: those owned by the provider's
// own project (the unikorn_image list resource). It lives apart from list.go, the image
// catalog's listing.
func Listed(ctx context.Context, c *cloud.Client, region string) ([]cloud.Located, error) {
	glance, err := c.Base().Image(region)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, images.List(glance, images.ListOpts{Owner: c.Base().ProjectID()}), images.ExtractImages,
		"the images of "+region,
		func(i images.Image) (cloud.Located, bool) { return cloud.Located{ID: i.ID, Name: i.Name}, true })
}
