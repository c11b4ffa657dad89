package server_test

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

const snapshotAddress = "unikorn_server_snapshot.test"

// withEcho are the provider factories with terraform-plugin-testing's echo provider, which
// carries an ephemeral resource's result from its provider block into its state for the checks.
func withEcho() map[string]func() (tfprotov6.ProviderServer, error) {
	out := maps.Clone(acctest.ProtoV6ProviderFactories)
	out["echo"] = echoprovider.NewProviderServer()

	return out
}

// operationsConfig is the fixture with one server, a snapshot of it published for
// organization and the image data source that finds that snapshot for the organization; with
// consoles, also the server's console log (data source) and a console session (ephemeral,
// echoed into echo.console). The import steps run without consoles: `terraform import` opens
// no ephemeral resource, so the echo provider's configuration would stay unknown.
func (f fixture) operationsConfig(organization string, consoles bool) string {
	config := f.config(srv{}) + fmt.Sprintf(`
resource "unikorn_server_snapshot" "test" {
  identity_id     = local.identity_id
  region          = %[1]q
  server_id       = unikorn_server.test.id
  name            = "%[2]s-snap"
  organization_id = %[3]q
}

data "unikorn_images" "snapshot" {
  region          = %[1]q
  organization_id = unikorn_server_snapshot.test.organization_id
  name            = unikorn_server_snapshot.test.name
}
`, f.region, f.name, organization)

	if !consoles {
		return config
	}

	return config + fmt.Sprintf(`
data "unikorn_server_console" "test" {
  identity_id = local.identity_id
  region      = %[1]q
  server_id   = unikorn_server.test.id
  lines       = 1
}

ephemeral "unikorn_server_console_session" "test" {
  identity_id = local.identity_id
  region      = %[1]q
  server_id   = unikorn_server.test.id
}

provider "echo" {
  data = ephemeral.unikorn_server_console_session.test
}

resource "echo" "console" {}
`, f.region)
}

// TestAccServer_operations walks the operations on one server: its console log (Nova's fake
// driver prints a fixed text) and a console session (ephemeral: echoed, never in the state);
// a snapshot published as an organization image, checked in Glance and found by the image data
// source; the reboot and snapshot_now actions, invoked through the provider server's protocol
// (no CLI here runs actions) and checked in Nova's instance actions and Glance; then the
// snapshot's import, an in-place change of organization, and the snapshot deleted out of band
// (the plan takes it again). CheckDestroy asks Glance that the snapshot is gone.
func TestAccServer_operations(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	// The snapshot is published for the identity's organization: the image data source takes
	// an organization's private image only from a project tagged with that organization.
	org, org2 := "org-"+f.identity, "org2-"+f.name
	snapshotID := statecheck.CompareValue(compare.ValuesDiffer())
	// The snapshot carries the server image's Unikorn properties (the local cloud's image is a
	// cirros one).
	source, err := acctest.Image(t, f.region, f.image)
	if err != nil {
		t.Fatalf("reading the server image %s: %v", f.image, err)
	}

	distro := fmt.Sprint(source.Properties["unikorn:os:distro"])

	var imageID string

	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   acctest.EphemeralCLI,
		ProtoV6ProviderFactories: withEcho(),
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDestroy(t), acctest.CheckImagesDestroyed(t, "unikorn_server_snapshot")),
		Steps: append([]resource.TestStep{
			{
				Config:           f.operationsConfig(org, true),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					snapshotID.AddStateValue(snapshotAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue("data.unikorn_server_console.test", tfjsonpath.New("output"),
						knownvalue.StringRegexp(lastConsoleLine())),
					statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("protocol"), knownvalue.StringExact("vnc")),
					statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("type"), knownvalue.StringExact("novnc")),
					statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^https?://.*token`))),
					statecheck.ExpectKnownValue(snapshotAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(snapshotAddress, tfjsonpath.New("properties").AtMapKey("unikorn:os:distro"), knownvalue.StringExact(distro)),
					statecheck.ExpectKnownValue(snapshotAddress, tfjsonpath.New("properties").AtMapKey("unikorn:organization:id"), knownvalue.StringExact(org)),
					statecheck.ExpectKnownValue("data.unikorn_images.snapshot", tfjsonpath.New("images"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("data.unikorn_images.snapshot", tfjsonpath.New("rejected"), knownvalue.ListSizeExact(0)),
					statecheck.CompareValuePairs("data.unikorn_images.snapshot", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("id"),
						snapshotAddress, tfjsonpath.New("id"), compare.ValuesSame()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					glance(t, f, org, &imageID),
					func(s *terraform.State) error { return invokeActions(t, f, s, org) },
				),
			},
			{
				// The consoles go (the echo resource is destroyed); nothing else changes.
				Config:           f.operationsConfig(org, false),
				ConfigPlanChecks: settled(),
			},
		}, append(acctest.ImportSteps(snapshotAddress),
			resource.TestStep{
				Config: f.operationsConfig(org2, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(snapshotAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: glance(t, f, org2, &imageID),
			},
			resource.TestStep{
				// Deleted out of band: the refresh drops it and the plan takes it again.
				PreConfig:         func() { acctest.DeleteImage(t, f.region, imageID) },
				Config:            f.operationsConfig(org2, false),
				ConfigPlanChecks:  acctest.Expect(snapshotAddress, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{snapshotID.AddStateValue(snapshotAddress, tfjsonpath.New("id"))},
				Check:             glance(t, f, org2, &imageID),
			},
		)...),
	})
}

// lastConsoleLine is what a console log of one line reads: the last line that Nova's fake
// driver prints on the local cloud; on another, any one line (a real guest's boot log ends
// where it ends).
func lastConsoleLine() *regexp.Regexp {
	if acctest.External() {
		return regexp.MustCompile(`^[^\n]*\n?$`)
	}

	return regexp.MustCompile(`^LAST LINE\n?$`)
}

// glance checks the snapshot image as Glance holds it: active, private, in the identity's
// project, a Nova snapshot of the server, published for organization, the server's Unikorn
// image properties carried over and no stale signature. It records the image's ID in id.
func glance(t *testing.T, f fixture, organization string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := acctest.Attributes(s, snapshotAddress)
		if err != nil {
			return err
		}

		*id = a["id"]

		srv, _ := acctest.Attributes(s, address)
		identity, _ := f.identityAttrs(s)

		img, err := acctest.Image(t, a["region"], a["id"])
		if err != nil {
			return fmt.Errorf("reading the snapshot image %s: %w", a["id"], err)
		}

		src, err := acctest.Image(t, a["region"], f.image)
		if err != nil {
			return fmt.Errorf("reading the server image %s: %w", f.image, err)
		}

		props, carried := img.Properties, src.Properties

		switch {
		case img.Status != images.ImageStatusActive || img.Visibility != images.ImageVisibilityPrivate:
			return fmt.Errorf("image %s is %s and %s, want active and private", img.ID, img.Status, img.Visibility)
		case img.Owner != identity["id"]:
			return fmt.Errorf("image %s is owned by %s, want the identity's project %s", img.ID, img.Owner, identity["id"])
		case props["image_type"] != "snapshot" || props["instance_uuid"] != srv["id"]:
			return fmt.Errorf("image %s: image_type %v, instance_uuid %v, want a snapshot of %s", img.ID, props["image_type"], props["instance_uuid"], srv["id"])
		case props["unikorn:organization:id"] != organization:
			return fmt.Errorf("image %s: unikorn:organization:id = %v, want %s", img.ID, props["unikorn:organization:id"], organization)
		case props["unikorn:os:kernel"] != carried["unikorn:os:kernel"] || (props["unikorn:virtualization"] == nil) != (carried["unikorn:virtualization"] == nil):
			return fmt.Errorf("image %s lacks the server's Unikorn properties: %v", img.ID, props)
		case props["unikorn:digest"] != nil:
			return fmt.Errorf("image %s keeps the server image's signature %v", img.ID, props["unikorn:digest"])
		}

		return nil
	}
}

// invokeActions runs the two actions on the server through the provider server's protocol and
// checks what they did in Nova and Glance; then it measures a console read and a snapshot.
func invokeActions(t *testing.T, f fixture, s *terraform.State, org string) error {
	srv, err := acctest.Attributes(s, address)
	if err != nil {
		return err
	}

	ref := map[string]tftypes.Value{
		"identity_id": tftypes.NewValue(tftypes.String, srv["identity_id"]),
		"region":      tftypes.NewValue(tftypes.String, f.region),
		"server_id":   tftypes.NewValue(tftypes.String, srv["id"]),
	}

	reboot := acctest.InvokeAction(t, "unikorn_server_reboot", ref)
	if err := reboot.Err(); err != nil {
		return err
	}

	actions, err := acctest.InstanceActions(t, f.region, srv["id"])
	if err != nil {
		return err
	}

	if !slices.Contains(actions, "reboot") || len(reboot.Progress) < 2 {
		return fmt.Errorf("after unikorn_server_reboot Nova's instance actions are %v (progress %q)", actions, reboot.Progress)
	}

	now := maps.Clone(ref)
	now["name"] = tftypes.NewValue(tftypes.String, f.name+"-now")
	now["organization_id"] = tftypes.NewValue(tftypes.String, org)

	snap := acctest.InvokeAction(t, "unikorn_server_snapshot_now", now)
	if err := snap.Err(); err != nil {
		return err
	}

	last := snap.Progress[len(snap.Progress)-1]

	id, _, ok := strings.Cut(strings.TrimPrefix(last, "Snapshot image "), " ")
	if !ok || !strings.Contains(last, "is active") {
		return fmt.Errorf("unikorn_server_snapshot_now's progress ends with %q", last)
	}

	acctest.DeleteImageOnCleanup(t, f.region, id)

	img, err := acctest.Image(t, f.region, id)
	if err != nil {
		return err
	}

	if img.Status != images.ImageStatusActive || img.Name != f.name+"-now" || img.Properties["unikorn:organization:id"] != org {
		return fmt.Errorf("the action's snapshot %s is %s %q for %v", id, img.Status, img.Name, img.Properties["unikorn:organization:id"])
	}

	t.Logf("unikorn_server_reboot progress: %q; unikorn_server_snapshot_now progress: %q", reboot.Progress, snap.Progress)

	return measureOperations(t, f, srv["identity_id"], srv["id"])
}
