package image_test

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_image", nil, sweepImages)
}

// sweepImages deletes, in every region, the images whose names carry the test prefix
// (protected ones are unprotected first). Run with `go test ./internal/image/ -sweep=all`.
var sweepImages = acctest.PagedSweep(acctest.Glance, "image", acctest.NamePrefix,
	func(sc *gophercloud.ServiceClient) pagination.Pager {
		return images.List(sc, images.ListOpts{Visibility: "all", Limit: 1000})
	}, images.ExtractImages,
	func(i images.Image) (string, string) { return i.Name, i.ID },
	func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
		_, _ = images.Update(ctx, sc, id, images.UpdateOpts{images.ReplaceImageProtected{NewProtected: false}}).Extract()
		return images.Delete(ctx, sc, id).ExtractErr()
	})
