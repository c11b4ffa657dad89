package volume_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/snapshots"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

const volumeAddress = "unikorn_volume.v"

// volumeConfig is an identity called name and its volume of sizeGB, with the argument lines
// extra.
func volumeConfig(name string, sizeGB int, extra string) string {
	return acctest.IdentityHCL("i", name, "") + fmt.Sprintf(`
resource "unikorn_volume" "v" {
  identity_id = unikorn_identity.i.id
  name        = %[1]q
  size_gb     = %[2]d
%[3]s}
`, name, sizeGB, extra)
}

// cinderVolume reads the volume at address in the state from Cinder, with its attributes.
func cinderVolume(t *testing.T, s *terraform.State, address string) (*volumes.Volume, map[string]string, error) {
	a, err := acctest.Attributes(s, address)
	if err != nil {
		return nil, nil, err
	}

	v, err := volumes.Get(context.Background(), acctest.AdminCinder(t, a["region"]), a["id"]).Extract()

	return v, a, err
}

// checkCinder asks Cinder for the volume of the state: one volume-<name> in the identity's
// project, of the state's size and description, made by the identity's user, carrying both
// marks.
func checkCinder(t *testing.T, name string, sizeGB int, description string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		v, a, err := cinderVolume(t, s, volumeAddress)
		if err != nil {
			return err
		}

		identity, err := acctest.Attributes(s, "unikorn_identity.i")
		if err != nil {
			return err
		}

		mark := naming.MarkOf(v.Metadata)

		switch {
		case v.Name != naming.Volume(name):
			return fmt.Errorf("Cinder name %q, want %q", v.Name, naming.Volume(name))
		case v.Size != sizeGB || a["size_gb"] != fmt.Sprint(sizeGB):
			return fmt.Errorf("size %d GiB in Cinder, %s in the state, want %d", v.Size, a["size_gb"], sizeGB)
		case v.Description != description:
			return fmt.Errorf("description %q, want %q", v.Description, description)
		case v.TenantID != identity["id"]:
			return fmt.Errorf("project %s, want the identity's %s", v.TenantID, identity["id"])
		case v.UserID != identity["user_id"]:
			return fmt.Errorf("made by user %s, want the identity's own user %s", v.UserID, identity["user_id"])
		case mark.Kind != volume.Type || !mark.Completed:
			return fmt.Errorf("marks %v, want a finished %s", v.Metadata, volume.Type)
		case v.Status != volume.StatusAvailable || a["status"] != volume.StatusAvailable:
			return fmt.Errorf("status %q (state %q), want available", v.Status, a["status"])
		}

		return nil
	}
}

// checkGone is the CheckDestroy of the volume tests: Cinder has none of the volumes that the
// state recorded.
func checkGone(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "unikorn_volume" {
				continue
			}

			_, err := volumes.Get(context.Background(), acctest.AdminCinder(t, rs.Primary.Attributes["region"]), rs.Primary.ID).Extract()
			if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				return fmt.Errorf("volume %s is still there after destroy (err %v)", rs.Primary.ID, err)
			}
		}

		return acctest.CheckIdentityDestroy(t)(s)
	}
}

// TestAccVolume_lifecycle makes, in an identity, the volume an interrupted create left (its
// creation mark, no completion mark: adopted, same ID, and finished) and refuses, before anything
// is made, a volume of the name that someone else made, with the import command (that volume is
// left as it was); imports the volume by REGION/ID and REGION/name, grows it and changes its
// description in place (same ID), refuses a shrink at plan time, refuses the configured size of
// a volume grown out of band (the plan says the size it has) and takes the grown size once the
// configuration follows, makes the volume again, as the identity's user with both marks,
// when it was deleted out of band, and makes a larger volume from a snapshot of it; the destroy
// leaves no volume.
func TestAccVolume_lifecycle(t *testing.T) {
	name := acctest.RandomName()
	sameID := statecheck.CompareValue(compare.ValuesSame())
	grown := "  description = \"grown\"\n"

	acctest.PreCheck(t)

	region := acctest.FirstRegion()

	var id, project, left, foreign, snapshot string

	capture := func(s *terraform.State) error {
		a, err := acctest.Attributes(s, volumeAddress)
		id = a["id"]

		if a["region"] != region {
			return fmt.Errorf("the volume is in region %q, want the provider's default %q", a["region"], region)
		}

		return err
	}

	outOfBand := func(change func(ctx context.Context, cinder *gophercloud.ServiceClient) error) func() {
		return func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			if err := change(ctx, acctest.AdminCinder(t, region)); err != nil {
				t.Fatalf("changing volume %s out of band: %v", id, err)
			}
		}
	}

	foreignHCL := fmt.Sprintf(`
resource "unikorn_volume" "x" {
  identity_id = unikorn_identity.i.id
  name        = "%s-x"
  size_gb     = 1
}
`, name)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkGone(t),
		Steps: []resource.TestStep{
			{
				Config: acctest.IdentityHCL("i", name, ""),
				Check: func(s *terraform.State) error {
					a, err := acctest.Attributes(s, "unikorn_identity.i")
					project = a["id"]

					return err
				},
			},
			{
				// an interrupted create's volume, and one of the next name made by someone else
				PreConfig: func() {
					left = makeVolume(t, project, region, name, naming.MadeFor(volume.Type).Properties())
					foreign = makeVolume(t, project, region, name+"-x", map[string]string{"owner": "someone"})
				},
				Config: volumeConfig(name, 1, ""),
				Check: resource.ComposeAggregateTestCheckFunc(checkCinder(t, name, 1, ""), capture, func(*terraform.State) error {
					if id != left {
						return fmt.Errorf("the resource holds volume %s, want the adopted %s", id, left)
					}

					return nil
				}),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(volumeAddress, tfjsonpath.New("id"))},
			},
			{
				Config: volumeConfig(name, 1, "") + foreignHCL,
				ExpectError: acctest.Wrapped(`volume named "volume-`+name+`-x" already exists`, "this provider did not make it",
					"terraform import unikorn_volume.<address> "+region+"/"),
			},
			{
				// the refused volume is as it was; then it goes, so that the identity can be destroyed
				PreConfig: func() {
					v, err := volumes.Get(context.Background(), acctest.AdminCinder(t, region), foreign).Extract()
					if err != nil || v.Metadata["owner"] != "someone" || naming.MarkOf(v.Metadata).Marked() || v.Size != 1 {
						t.Fatalf("the refused volume %s was touched: %+v (err %v)", foreign, v, err)
					}

					if err := volumes.Delete(context.Background(), acctest.AdminCinder(t, region), foreign, nil).ExtractErr(); err != nil {
						t.Fatal(err)
					}
				},
				Config:            volumeConfig(name, 1, ""),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(volumeAddress, tfjsonpath.New("id"))},
			},
			acctest.ImportStep(volumeAddress, acctest.ImportID(volumeAddress, "id")),
			acctest.ImportStep(volumeAddress, acctest.ImportID(volumeAddress, "name")),
			{
				// grown in place, beside a bootable volume made from an image
				Config:           volumeConfig(name, 2, grown) + fromImage(t, name),
				ConfigPlanChecks: acctest.Expect(volumeAddress, plancheck.ResourceActionUpdate),
				Check: resource.ComposeAggregateTestCheckFunc(checkCinder(t, name, 2, "grown"), func(s *terraform.State) error {
					v, a, err := cinderVolume(t, s, "unikorn_volume.img")

					switch {
					case err != nil:
						return err
					case v.Bootable != "true" || a["bootable"] != "true":
						return fmt.Errorf("the volume made from an image is not bootable (Cinder %q, state %q)", v.Bootable, a["bootable"])
					case v.VolumeImageMetadata["image_id"] != a["image_id"] || a["image_id"] == "":
						return fmt.Errorf("Cinder says the volume came from image %q, the state %q", v.VolumeImageMetadata["image_id"], a["image_id"])
					}

					return nil
				}),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(volumeAddress, tfjsonpath.New("id"))},
			},
			{
				Config:      volumeConfig(name, 1, grown) + fromImage(t, name),
				ExpectError: acctest.Wrapped("Volume cannot shrink", "has 2 GiB", "asks for 1 GiB"),
			},
			{
				PreConfig: outOfBand(func(ctx context.Context, cinder *gophercloud.ServiceClient) error {
					if err := volumes.ExtendSize(ctx, cinder, id, volumes.ExtendSizeOpts{NewSize: 3}).ExtractErr(); err != nil {
						return err
					}

					return waitSize(ctx, cinder, id, 3)
				}),
				Config:      volumeConfig(name, 2, grown) + fromImage(t, name),
				ExpectError: acctest.Wrapped("Volume cannot shrink", "has 3 GiB", "asks for 2 GiB"),
			},
			{
				Config:            volumeConfig(name, 3, grown) + fromImage(t, name),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:             checkCinder(t, name, 3, "grown"),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(volumeAddress, tfjsonpath.New("id"))},
			},
			{
				PreConfig: outOfBand(func(ctx context.Context, cinder *gophercloud.ServiceClient) error {
					return volumes.Delete(ctx, cinder, id, nil).ExtractErr()
				}),
				Config:           volumeConfig(name, 3, grown) + fromImage(t, name),
				ConfigPlanChecks: acctest.Expect(volumeAddress, plancheck.ResourceActionCreate),
				Check: resource.ComposeAggregateTestCheckFunc(checkCinder(t, name, 3, "grown"), func(s *terraform.State) error {
					if a, _ := acctest.Attributes(s, volumeAddress); a["id"] == id {
						return fmt.Errorf("the volume deleted out of band (%s) is still the one in the state", id)
					}

					return nil
				}, capture),
			},
			{
				// a volume made from a snapshot of the volume (taken by the identity's user, whose
				// snapshot it is), one size larger
				PreConfig:       func() { snapshot = makeSnapshot(t, project, region, id) },
				Config:          volumeConfig(name, 3, grown) + fromImage(t, name) + fromSnapshot(name),
				ConfigVariables: config.Variables{"snapshot_id": lazyString(func() string { return snapshot })},
				Check: func(s *terraform.State) error {
					v, a, err := cinderVolume(t, s, "unikorn_volume.snap")

					switch {
					case err != nil:
						return err
					case v.SnapshotID != snapshot || a["snapshot_id"] != snapshot:
						return fmt.Errorf("Cinder says the volume came from snapshot %q, the state %q; want %q", v.SnapshotID, a["snapshot_id"], snapshot)
					case v.Size != 4 || v.Status != volume.StatusAvailable || v.TenantID != project:
						return fmt.Errorf("the volume from the snapshot is %s, %d GiB, in project %s; want available, 4 GiB, in %s",
							v.Status, v.Size, v.TenantID, project)
					}

					return nil
				},
			},
			{
				// the volume from the snapshot goes; then the snapshot, which would keep the destroy
				// from deleting the volume it was taken of
				Config: volumeConfig(name, 3, grown) + fromImage(t, name),
				Check:  func(*terraform.State) error { return deleteSnapshot(t, region, snapshot) },
			},
		},
	})
}

// fromSnapshot is a unikorn_volume of 4 GiB made from the snapshot var.snapshot_id.
func fromSnapshot(name string) string {
	return fmt.Sprintf(`
variable "snapshot_id" {
  type = string
}

resource "unikorn_volume" "snap" {
  identity_id = unikorn_identity.i.id
  name        = "%s-snap"
  size_gb     = 4
  snapshot_id = var.snapshot_id
}
`, name)
}

// lazyString is a configuration variable whose value is read when the step writes it (after its
// PreConfig), not when the test case is built.
type lazyString func() string

func (l lazyString) MarshalJSON() ([]byte, error) { return json.Marshal(l()) }

// makeSnapshot takes a snapshot of volume volumeID as the identity's user of projectID, waits
// until it is available and deletes it when the test ends (a 404 is fine).
func makeSnapshot(t *testing.T, projectID, region, volumeID string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	sc := acctest.IdentityCinder(t, projectID, region)

	snap, err := snapshots.Create(ctx, sc, snapshots.CreateOpts{VolumeID: volumeID, Name: "tf-acc-snapshot"}).Extract()
	if err != nil {
		t.Fatalf("taking a snapshot of volume %s: %v", volumeID, err)
	}

	t.Cleanup(func() { _ = deleteSnapshot(t, region, snap.ID) })

	if _, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"creating"}, Target: []string{volume.StatusAvailable}},
		func(ctx context.Context) (*snapshots.Snapshot, string, string, error) {
			s, err := snapshots.Get(ctx, sc, snap.ID).Extract()
			if err != nil {
				return nil, "", "", err
			}

			return s, s.Status, "", nil
		}); err != nil {
		t.Fatalf("snapshot %s of volume %s: %v", snap.ID, volumeID, err)
	}

	return snap.ID
}

// deleteSnapshot deletes snapshot id and waits until Cinder no longer has it.
func deleteSnapshot(t *testing.T, region, id string) error {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	sc := acctest.AdminCinder(t, region)

	err := snapshots.Delete(ctx, sc, id).ExtractErr()
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	} else if err != nil {
		return fmt.Errorf("deleting snapshot %s: %w", id, err)
	}

	_, err = cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"deleting", volume.StatusAvailable}, NotFoundIsTarget: true},
		func(ctx context.Context) (*snapshots.Snapshot, string, string, error) {
			s, err := snapshots.Get(ctx, sc, id).Extract()
			if err != nil {
				return nil, "", "", err
			}

			return s, s.Status, "", nil
		})

	return err
}

// waitSize waits until Cinder says volume id has sizeGB and is available again.
func waitSize(ctx context.Context, cinder *gophercloud.ServiceClient, id string, sizeGB int) error {
	_, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"extending"}, Target: []string{volume.StatusAvailable}},
		func(ctx context.Context) (*volumes.Volume, string, string, error) {
			v, err := volumes.Get(ctx, cinder, id).Extract()
			if err != nil {
				return nil, "", "", err
			}

			if v.Status == volume.StatusAvailable && v.Size != sizeGB {
				return v, "extending", "", nil // not begun yet
			}

			return v, v.Status, "", nil
		})

	return err
}

// TestAccVolume_planChecks refuses at plan time, with nothing made, a volume class the region
// does not offer and an image and a snapshot together.
func TestAccVolume_planChecks(t *testing.T) {
	const someID = "0b7a4c5e-6a07-4b73-9c8a-2f0c5b1a9d3e"

	config := func(extra string) string {
		return fmt.Sprintf(`
resource "unikorn_volume" "v" {
  identity_id = %[1]q
  name        = "plan-checks"
  size_gb     = 1
%[2]s}
`, someID, extra)
	}

	// The error lists the region's volume classes: on the local cloud, Cinder's own __DEFAULT__
	// among them; another cloud's are its own.
	offered := "__DEFAULT__"
	if acctest.External() {
		offered = "Its volume classes"
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(fmt.Sprintf("  volume_class = %q\n", someID)),
				PlanOnly:    true,
				ExpectError: acctest.Wrapped("Unknown volume class", "offers no volume class "+someID, offered),
			},
			{
				Config:      config(fmt.Sprintf("  image_id = %q\n  snapshot_id = %q\n", someID, someID)),
				PlanOnly:    true,
				ExpectError: acctest.Wrapped("Invalid Attribute Combination"),
			},
		},
	})
}

// makeVolume makes volume-<name> of 1 GiB in projectID with metadata, as the identity's user,
// waits until it is available, and deletes it when the test ends (a 404 is fine).
func makeVolume(t *testing.T, projectID, region, name string, metadata map[string]string) string {
	t.Helper()

	return acctest.CreateVolume(t, acctest.IdentityCinder(t, projectID, region), region, naming.Volume(name), metadata)
}

// fromImage is a volume of the identity i made from the suite's server image.
func fromImage(t *testing.T, name string) string {
	t.Helper()

	return fmt.Sprintf(`
resource "unikorn_volume" "img" {
  identity_id = unikorn_identity.i.id
  name        = "%s-img"
  size_gb     = 1
  image_id    = %q
}
`, name, acctest.ImageID(t, acctest.FirstRegion(), acctest.ServerImage))
}
