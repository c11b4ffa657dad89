package volume_test

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestMain registers the sweeper of the volume and volume class tests: in every region, the
// Cinder volumes (of every project) and volume types whose names carry the test prefix, in that
// order. Run with `go test ./internal/volume/ -sweep=all`.
func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_volume", nil,
		acctest.PagedSweep(acctest.Cinder, "volume", naming.VolumePrefix+acctest.NamePrefix,
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return volumes.List(sc, volumes.ListOpts{AllTenants: true})
			},
			volumes.ExtractVolumes, func(v volumes.Volume) (string, string) { return v.Name, v.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return volumes.Delete(ctx, sc, id, volumes.DeleteOpts{Cascade: true}).ExtractErr()
			}),
		acctest.PagedSweep(acctest.Cinder, "volume type", acctest.NamePrefix,
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return volumetypes.List(sc, volumetypes.ListOpts{})
			},
			volumetypes.ExtractVolumeTypes, func(v volumetypes.VolumeType) (string, string) { return v.Name, v.ID },
			acctest.Deleted(volumetypes.Delete)),
	)
}
