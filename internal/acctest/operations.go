package acctest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/instanceactions"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/services"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file holds the helpers of the tests of the operations on servers (snapshots, reboots,
// pinned servers) and of volume classes. They read the cloud as the service user in its own
// project (admin on the local cloud).

// Glance is Glance's client of a region, for sweepers.
func Glance(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().Image(region)
}

// Cinder is Cinder's client of a region, for sweepers.
func Cinder(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().BlockStorage(region)
}

// AdminGlance is the Glance client of region in the configured (admin) scope.
func AdminGlance(t *testing.T, region string) *gophercloud.ServiceClient {
	t.Helper()

	return clientOf(t, "Glance", region, Client(t).Base().Image)
}

// AdminCinder is the Cinder client of region in the configured (admin) scope.
func AdminCinder(t *testing.T, region string) *gophercloud.ServiceClient {
	t.Helper()

	return clientOf(t, "Cinder", region, Client(t).Base().BlockStorage)
}

// Image reads image id in region from Glance (gophercloud's 404 when it is gone).
func Image(t *testing.T, region, id string) (*images.Image, error) {
	t.Helper()

	return images.Get(context.Background(), AdminGlance(t, region), id).Extract()
}

// DeleteImageOnCleanup deletes image id in region when the test ends (a 404 is fine).
func DeleteImageOnCleanup(t *testing.T, region, id string) {
	t.Helper()

	deleteOnCleanup(t, "image", id, id, func(ctx context.Context) error {
		return images.Delete(ctx, AdminGlance(t, region), id).ExtractErr()
	})
}

// DeleteImage deletes image id in region out of band, as an admin would.
func DeleteImage(t *testing.T, region, id string) {
	t.Helper()

	if err := images.Delete(context.Background(), AdminGlance(t, region), id).ExtractErr(); err != nil {
		t.Fatalf("deleting image %s: %v", id, err)
	}
}

// InstanceActions are the actions Nova recorded on server id in region ("create", "reboot",
// "createImage", ...), newest first.
func InstanceActions(t *testing.T, region, id string) ([]string, error) {
	t.Helper()

	all, err := AllPages(context.Background(), instanceactions.List(AdminCompute(t, region), id, nil),
		instanceactions.ExtractInstanceActions)
	if err != nil {
		return nil, err
	}

	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.Action
	}

	return out, nil
}

// ComputeHost is the host of the first enabled and running nova-compute service of region
// (the local cloud has one per region).
func ComputeHost(t *testing.T, region string) string {
	t.Helper()

	all, err := AllPages(context.Background(), services.List(AdminCompute(t, region), services.ListOpts{Binary: "nova-compute"}),
		services.ExtractServices)
	if err != nil {
		t.Fatalf("nova-compute services of %s: %v", region, err)
	}

	for _, s := range all {
		if s.Status == "enabled" && s.State == "up" {
			return s.Host
		}
	}

	t.Fatalf("no enabled nova-compute service is up in %s: %+v", region, all)

	return ""
}

// CreateVolumeType creates the public Cinder volume type name in region as the service user
// (admin), registers its deletion with t.Cleanup and returns its ID.
func CreateVolumeType(t *testing.T, region, name string) string {
	t.Helper()

	cinder := clientOf(t, "Cinder", region, Client(t).Base().BlockStorage)
	public := true

	vt, err := volumetypes.Create(context.Background(), cinder, volumetypes.CreateOpts{Name: name, IsPublic: &public}).Extract()
	if err != nil {
		t.Fatalf("creating volume type %s in %s: %v", name, region, err)
	}

	deleteOnCleanup(t, "volume type", name, vt.ID, func(ctx context.Context) error {
		return volumetypes.Delete(ctx, cinder, vt.ID).ExtractErr()
	})

	return vt.ID
}

// CheckImagesDestroyed is a CheckDestroy step: every resource of type in the state names by
// its ID an image that Glance no longer has.
func CheckImagesDestroyed(t *testing.T, resourceType string) func(*terraform.State) error {
	return CheckEach(resourceType, func(a map[string]string) error {
		img, err := Image(t, a["region"], a["id"])
		if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) && (err != nil || img.Status != images.ImageStatusDeleted) {
			return fmt.Errorf("%s %s: image %s still exists (err %v)", resourceType, a["name"], a["id"], err)
		}

		return nil
	})
}
