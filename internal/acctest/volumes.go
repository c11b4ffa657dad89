package acctest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/volumeattach"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

// volumeWait bounds the waits of the volume helpers (the local cloud's fake Cinder driver takes
// seconds).
const volumeWait = 3 * time.Minute

// CreateVolume makes a 1 GiB volume called cinderName with metadata through sc (Cinder of region
// in the scope it is made in: an identity's user, a project's), waits until Cinder says it is
// available, deletes it when the test ends (gone already is fine) and returns its ID.
func CreateVolume(t *testing.T, sc *gophercloud.ServiceClient, region, cinderName string, metadata map[string]string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), volumeWait)
	defer cancel()

	v, err := volumes.Create(ctx, sc, volumes.CreateOpts{Name: cinderName, Size: 1, Metadata: metadata}, nil).Extract()
	if err != nil {
		t.Fatalf("making volume %s in %s: %v", cinderName, region, err)
	}

	deleteOnCleanup(t, "volume", cinderName, v.ID, func(ctx context.Context) error {
		return volumes.Delete(ctx, AdminCinder(t, region), v.ID, nil).ExtractErr()
	})

	WaitVolume(ctx, t, sc, v.ID, []string{"creating"}, "available")

	return v.ID
}

// AttachVolume attaches volume volumeID to server serverID in region through Nova, as an admin
// would, and waits until Cinder says the volume is in use.
func AttachVolume(t *testing.T, region, serverID, volumeID string) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), volumeWait)
	defer cancel()

	if _, err := volumeattach.Create(ctx, AdminCompute(t, region), serverID, volumeattach.CreateOpts{VolumeID: volumeID}).Extract(); err != nil {
		t.Fatalf("attaching volume %s to server %s in %s: %v", volumeID, serverID, region, err)
	}

	WaitVolume(ctx, t, AdminCinder(t, region), volumeID, []string{"available", "reserved", "attaching"}, "in-use")
}

// IdentityCinder is Cinder's client of region in the identity scope of projectID (the identity's
// own user), at the provider's microversion: what it makes is the identity's.
func IdentityCinder(t *testing.T, projectID, region string) *gophercloud.ServiceClient {
	t.Helper()

	tenant, err := Client(t).Tenant(context.Background(), projectID, region, cloud.AsIdentity)
	if err == nil {
		var sc *gophercloud.ServiceClient
		if sc, err = tenant.BlockStorage(); err == nil {
			c := *sc
			c.Microversion = volume.Microversion

			return &c
		}
	}

	t.Fatalf("the Cinder client of project %s in %s: %v", projectID, region, err)

	return nil
}

// ProjectVolumes lists, as an admin, the volumes Cinder has in projectID in region (every one,
// whoever made it: the check that nothing is left).
func ProjectVolumes(t *testing.T, region, projectID string) ([]volumes.Volume, error) {
	t.Helper()

	pages, err := volumes.List(AdminCinder(t, region), volumes.ListOpts{AllTenants: true, TenantID: projectID}).AllPages(context.Background())
	if err != nil {
		return nil, fmt.Errorf("listing the volumes of project %s in %s: %w", projectID, region, err)
	}

	return volumes.ExtractVolumes(pages)
}

// WaitVolume waits until Cinder (sc) says volume id is in status target, through pending; any
// other status fails the test.
func WaitVolume(ctx context.Context, t *testing.T, sc *gophercloud.ServiceClient, id string, pending []string, target string) {
	t.Helper()

	if _, err := cloud.Poll(ctx, cloud.PollSpec{Pending: pending, Target: []string{target}, MaxInterval: 3 * time.Second},
		func(ctx context.Context) (*volumes.Volume, string, string, error) {
			v, err := volumes.Get(ctx, sc, id).Extract()
			if err != nil {
				return nil, "", "", err
			}

			return v, v.Status, "", nil
		}); err != nil {
		t.Fatalf("waiting for volume %s to be %s: %v", id, target, err)
	}
}
