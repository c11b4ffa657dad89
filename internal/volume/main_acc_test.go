package volume_test

import (
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestMain registers the sweeper of the volume class tests: in every region, the Cinder volume
// types whose names carry the test prefix. Run with `go test ./internal/volume/ -sweep=all`.
func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_volume_class", nil,
		acctest.PagedSweep(acctest.Cinder, "volume type", acctest.NamePrefix,
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return volumetypes.List(sc, volumetypes.ListOpts{})
			},
			volumetypes.ExtractVolumeTypes, func(v volumetypes.VolumeType) (string, string) { return v.Name, v.ID },
			acctest.Deleted(volumetypes.Delete)),
	)
}
