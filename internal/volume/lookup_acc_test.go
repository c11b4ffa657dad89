package volume_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccVolumeLookup: the unikorn_volume data source, in an identity that Unikorn's region
// service made (acctest.CreateUnikornIdentity, which mirrors uni-region's
// pkg/providers/internal/openstack/provider.go:CreateIdentity). Unikorn makes no volumes (its
// OpenStack provider has no volume code), so the volumes "made in the cloud" are made directly
// in that identity's project, named as this provider names them (acctest.CreateVolume).
//
// It finds, by name and by id, a volume that unikorn_volume made in the same configuration, with
// the resource's attributes; by name a volume made directly in the cloud; refuses a name two
// volumes share, listing both, and a name no volume has. A provider run that reads the
// look-ups lists the project's volumes once, however many look up names there.
func TestAccVolumeLookup(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	region := acctest.FirstRegion()
	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-"+name, "proj-"+name)
	direct := makeVolume(t, u.ProjectID, region, name+"-a", nil)
	twin1 := makeVolume(t, u.ProjectID, region, name+"-t", nil)
	twin2 := makeVolume(t, u.ProjectID, region, name+"-t", nil)

	config := fmt.Sprintf(`
resource "unikorn_volume" "v" {
  identity_id = %[1]q
  region      = %[2]q
  name        = "%[3]s-r"
  size_gb     = 1
}

data "unikorn_volume" "by_name" {
  identity_id = %[1]q
  region      = %[2]q
  name        = unikorn_volume.v.name
}

data "unikorn_volume" "by_id" {
  id = unikorn_volume.v.id
}

data "unikorn_volume" "direct" {
  identity_id = %[1]q
  region      = %[2]q
  name        = "%[3]s-a"
}
`, u.ProjectID, region, name)

	lookup := func(label, name string) string {
		return fmt.Sprintf("\ndata \"unikorn_volume\" %q {\n  identity_id = %q\n  region      = %q\n  name        = %q\n}\n",
			label, u.ProjectID, region, name)
	}

	var checks []statecheck.StateCheck

	for _, a := range []string{"id", "name", "identity_id", "region", "size_gb", "volume_class", "status", "created_at", "bootable"} {
		for _, label := range []string{"by_name", "by_id"} {
			checks = append(checks, statecheck.CompareValuePairs(volumeAddress, tfjsonpath.New(a),
				"data.unikorn_volume."+label, tfjsonpath.New(a), compare.ValuesSame()))
		}
	}

	checks = append(checks,
		statecheck.ExpectKnownValue("data.unikorn_volume.by_id", tfjsonpath.New("project_id"), knownvalue.Null()),
		statecheck.ExpectKnownValue("data.unikorn_volume.direct", tfjsonpath.New("id"), knownvalue.StringExact(direct)),
		statecheck.ExpectKnownValue("data.unikorn_volume.direct", tfjsonpath.New("name"), knownvalue.StringExact(name+"-a")),
		statecheck.ExpectKnownValue("data.unikorn_volume.direct", tfjsonpath.New("identity_id"), knownvalue.StringExact(u.ProjectID)),
		statecheck.ExpectKnownValue("data.unikorn_volume.direct", tfjsonpath.New("size_gb"), knownvalue.Int64Exact(1)),
		statecheck.ExpectKnownValue("data.unikorn_volume.direct", tfjsonpath.New("attachments"), knownvalue.ListSizeExact(0)),
	)

	log := acctest.NewRequestLog()

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy:             managedGone(t),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: checks,
			},
			{
				Config:      config + lookup("twins", name+"-t"),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)Several volumes found.*(%[1]s.*%[2]s|%[2]s.*%[1]s)`, twin1, twin2)),
			},
			{
				Config:      config + lookup("missing", name+"-none"),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)No volume found.*No volume is called "%s-none"`, name)),
			},
			{
				Config: config, // nothing to do: measures the plans of the steps' refreshes
				Check:  acctest.ListedOnce(t, log, 3, "Cinder's volumes", "/volumes/detail"),
			},
		},
	})
}

// managedGone is the CheckDestroy of the look-up test: Cinder has none of the volumes that the
// state's unikorn_volume resources recorded (checkGone would take the look-ups' volumes, of the
// same type in the state, for them: they are not the configuration's to destroy).
func managedGone(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for key, rs := range s.RootModule().Resources {
			if rs.Type != "unikorn_volume" || strings.HasPrefix(key, "data.") {
				continue
			}

			_, err := volumes.Get(context.Background(), acctest.AdminCinder(t, rs.Primary.Attributes["region"]), rs.Primary.ID).Extract()
			if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				return fmt.Errorf("volume %s is still there after destroy (err %v)", rs.Primary.ID, err)
			}
		}

		return nil
	}
}
