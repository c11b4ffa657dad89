package volume_test

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestMain registers the sweeper of the volume class tests: in every region, the Cinder volume
// types whose names carry the test prefix. Run with `go test ./internal/volume/ -sweep=all`.
func TestMain(m *testing.M) {
	acctest.AddSweeper("unikorn_volume_class", nil,
		acctest.PagedSweep(acctest.Cinder, "volume type", acctest.NamePrefix,
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return volumetypes.List(sc, volumetypes.ListOpts{})
			},
			volumetypes.ExtractVolumeTypes, func(v volumetypes.VolumeType) (string, string) { return v.Name, v.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return volumetypes.Delete(ctx, sc, id).ExtractErr()
			}),
	)

	resource.TestMain(m)
}
