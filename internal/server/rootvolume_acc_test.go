package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccServer_bootFromVolume: on a flavor without a disk (made by the test, disk 0; that a
// server without root_volume is refused on it at plan time is TestAccServer_planChecks'), a
// server with root_volume boots from a volume that Nova made from the image (Nova names no image
// for the server; Cinder's volume is bootable, of the size asked for, made from the image, and in
// the region's default class, which the state shows), beside a data volume in `volumes`, which
// the root volume is not one of and which leaves it attached; an import reads the same back (the
// image from the root volume); the destroy leaves neither the server nor its root volume
// (delete_on_termination).
func TestAccServer_bootFromVolume(t *testing.T) {
	f := sharedFixture(t)
	noDisk := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 512, DiskGB: 0})

	data := fmt.Sprintf(`
resource "unikorn_volume" "d" {
  identity_id = local.identity_id
%[1]s  name        = "%[2]s-d"
  size_gb     = 1
}
`, f.regionLine(), f.name)

	volumeBoot := srv{name: f.name, flavor: noDisk, extra: "  root_volume = { size_gb = 1 }\n  volumes     = [unikorn_volume.d.id]"}

	var rootID string

	bootsFromVolume := func(s *terraform.State) error {
		a, err := acctest.Attributes(s, address)
		if err != nil {
			return err
		}

		d, err := acctest.Attributes(s, "unikorn_volume.d")
		if err != nil {
			return err
		}

		rootID = a["root_volume_id"]

		srv, err := acctest.Server(t, f.region, a["id"])
		if err != nil {
			return err
		}

		var attached []string
		for _, v := range srv.AttachedVolumes {
			attached = append(attached, v.ID)
		}

		slices.Sort(attached)

		want := []string{rootID, d["id"]}
		slices.Sort(want)

		if id, _ := srv.Image["id"].(string); id != "" || !slices.Equal(attached, want) || rootID == "" {
			return fmt.Errorf("Nova says server %s boots from image %q with volumes %v; want no image, volumes %v (root %q)",
				srv.ID, id, attached, want, rootID)
		}

		var listed []string

		for k, v := range a {
			if strings.HasPrefix(k, "volumes.") && k != "volumes.#" {
				listed = append(listed, v)
			}
		}

		if !slices.Equal(listed, []string{d["id"]}) {
			return fmt.Errorf("the state's volumes are %v, want only the data volume %s", listed, d["id"])
		}

		vol, err := volumes.Get(context.Background(), acctest.AdminCinder(t, f.region), rootID).Extract()

		switch {
		case err != nil:
			return err
		case vol.Bootable != "true" || vol.Size != 1 || vol.Status != "in-use" || vol.VolumeImageMetadata["image_id"] != f.image:
			return fmt.Errorf("Cinder says the root volume %s is bootable %q, %d GiB, %s, from image %q; want bootable, 1 GiB, "+
				"in-use, from %s", rootID, vol.Bootable, vol.Size, vol.Status, vol.VolumeImageMetadata["image_id"], f.image)
		case a["root_volume.size_gb"] != "1" || a["root_volume.delete_on_termination"] != "true" || a["root_volume.volume_class"] == "":
			return fmt.Errorf("the state's root_volume is %s GiB, delete_on_termination %s, class %q",
				a["root_volume.size_gb"], a["root_volume.delete_on_termination"], a["root_volume.volume_class"])
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkDestroy(t), func(*terraform.State) error {
			_, err := volumes.Get(context.Background(), acctest.AdminCinder(t, f.region), rootID).Extract()
			if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				return fmt.Errorf("the root volume %s is still there after destroy (err %v)", rootID, err)
			}

			return nil
		}),
		Steps: []resource.TestStep{
			{
				// Empty after a refresh; not settled(): the data volume's own attachments change
				// after its create, when the server attaches it.
				Config:           f.config(volumeBoot) + data,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            bootsFromVolume,
			},
			acctest.ImportStep(address, acctest.ImportID(address, "id"), "volumes"),
		},
	})
}
