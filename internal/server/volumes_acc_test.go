package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/volumeattach"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccServer_volumes attaches a volume to a server, moves it to another server in one apply
// (detached from the first while the second waits for it) while a second volume goes onto the
// first, attaches again a volume detached out of band (the plan shows it), and destroys a volume
// that a server still holds (its attachments there are not managed: the destroy detaches it
// first). Both servers keep their IDs throughout; Cinder and Nova are asked after every step.
// The destroy deletes the servers with the second volume attached, then the volume.
func TestAccServer_volumes(t *testing.T) {
	f := sharedFixture(t)

	config := func(aVolumes, bVolumes string, withV bool) string {
		vols := fmt.Sprintf(`
resource "unikorn_volume" "w" {
  identity_id = local.identity_id
%[1]s  name        = "%[2]s-w"
  size_gb     = 1
}
`, f.regionLine(), f.name)

		if withV {
			vols += fmt.Sprintf(`
resource "unikorn_volume" "v" {
  identity_id = local.identity_id
%[1]s  name        = "%[2]s-v"
  size_gb     = 1
}
`, f.regionLine(), f.name)
		}

		return f.config(srv{label: "a", name: f.name + "-a", extra: aVolumes}, srv{label: "b", name: f.name + "-b", extra: bVolumes}) + vols
	}

	idOf := func(s *terraform.State, address string) string {
		a, _ := acctest.Attributes(s, address)
		return a["id"]
	}

	// attached checks, in Nova and in Cinder, that each server holds exactly the volumes given
	// (addresses of unikorn_volume).
	attached := func(want map[string][]string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			for server, vols := range want {
				srv, err := acctest.Server(t, f.region, idOf(s, server))
				if err != nil {
					return err
				}

				var got, wantIDs []string
				for _, v := range srv.AttachedVolumes {
					got = append(got, v.ID)
				}

				for _, v := range vols {
					id := idOf(s, v)
					wantIDs = append(wantIDs, id)

					vol, err := volumes.Get(context.Background(), acctest.AdminCinder(t, f.region), id).Extract()
					if err != nil {
						return err
					}

					if vol.Status != "in-use" || len(vol.Attachments) != 1 || vol.Attachments[0].ServerID != srv.ID {
						return fmt.Errorf("Cinder says %s is %s with attachments %+v, want in-use on %s", v, vol.Status, vol.Attachments, server)
					}
				}

				slices.Sort(got)
				slices.Sort(wantIDs)

				if !slices.Equal(got, wantIDs) {
					return fmt.Errorf("Nova says %s has volumes %v, want %v", server, got, wantIDs)
				}
			}

			return nil
		}
	}

	sameA := statecheck.CompareValue(compare.ValuesSame())
	sameB := statecheck.CompareValue(compare.ValuesSame())
	same := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			sameA.AddStateValue("unikorn_server.a", tfjsonpath.New("id")),
			sameB.AddStateValue("unikorn_server.b", tfjsonpath.New("id")),
		}
	}

	var serverA, volumeW, volumeV, serverB string

	capture := func(s *terraform.State) error {
		serverA, serverB = idOf(s, "unikorn_server.a"), idOf(s, "unikorn_server.b")
		volumeW, volumeV = idOf(s, "unikorn_volume.w"), idOf(s, "unikorn_volume.v")

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkDestroy(t), func(*terraform.State) error {
			for _, id := range []string{volumeW, volumeV} {
				_, err := volumes.Get(context.Background(), acctest.AdminCinder(t, f.region), id).Extract()
				if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
					return fmt.Errorf("volume %s is still there after destroy (err %v)", id, err)
				}
			}

			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config:            config("  volumes = [unikorn_volume.v.id]", "  volumes = []", true),
				Check:             resource.ComposeAggregateTestCheckFunc(capture, attached(map[string][]string{"unikorn_server.a": {"unikorn_volume.v"}, "unikorn_server.b": nil})),
				ConfigStateChecks: same(),
			},
			{
				// v moves from a to b, and w goes onto a, in one apply
				Config: config("  volumes = [unikorn_volume.w.id]", "  volumes = [unikorn_volume.v.id]", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("unikorn_server.a", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("unikorn_server.b", plancheck.ResourceActionUpdate),
				}},
				Check:             attached(map[string][]string{"unikorn_server.a": {"unikorn_volume.w"}, "unikorn_server.b": {"unikorn_volume.v"}}),
				ConfigStateChecks: same(),
			},
			{
				// w detached from a out of band: the plan attaches it again
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
					defer cancel()

					if err := volumeattach.Delete(ctx, acctest.AdminCompute(t, f.region), serverA, volumeW).ExtractErr(); err != nil {
						t.Fatalf("detaching %s out of band: %v", volumeW, err)
					}

					acctest.WaitVolume(ctx, t, acctest.AdminCinder(t, f.region), volumeW, []string{"in-use", "detaching"}, "available")
					waitNovaDropped(ctx, t, f.region, serverA, volumeW)
				},
				Config:            config("  volumes = [unikorn_volume.w.id]", "  volumes = [unikorn_volume.v.id]", true),
				ConfigPlanChecks:  acctest.Expect("unikorn_server.a", plancheck.ResourceActionUpdate),
				Check:             attached(map[string][]string{"unikorn_server.a": {"unikorn_volume.w"}, "unikorn_server.b": {"unikorn_volume.v"}}),
				ConfigStateChecks: same(),
			},
			{
				// v destroyed while b still holds it (b's attachments no longer managed)
				Config: config("  volumes = [unikorn_volume.w.id]", "", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("unikorn_volume.v", plancheck.ResourceActionDestroy),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					attached(map[string][]string{"unikorn_server.a": {"unikorn_volume.w"}}),
					func(*terraform.State) error {
						srv, err := acctest.Server(t, f.region, serverB)
						if err == nil && len(srv.AttachedVolumes) != 0 {
							err = fmt.Errorf("server b still has volumes %v", srv.AttachedVolumes)
						}

						return err
					}),
				ConfigStateChecks: same(),
			},
		},
	})
}

// waitNovaDropped waits until Nova no longer lists volume volumeID on server serverID: Nova's
// compute service drops the attachment after Cinder says the volume is available again.
func waitNovaDropped(ctx context.Context, t *testing.T, region, serverID, volumeID string) {
	t.Helper()

	for ctx.Err() == nil {
		srv, err := acctest.Server(t, region, serverID)
		if err != nil {
			t.Fatal(err)
		}

		if !slices.ContainsFunc(srv.AttachedVolumes, func(v servers.AttachedVolume) bool { return v.ID == volumeID }) {
			return
		}

		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}

	t.Fatalf("Nova still lists volume %s on server %s", volumeID, serverID)
}
