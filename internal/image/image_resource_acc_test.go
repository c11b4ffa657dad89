package image_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
)

const imageAddress = "unikorn_image.test"

// unikornProperties is a property set that passes the Unikorn image schema, tagged so that
// the data sources (filtering on the tag) see only the test's image.
func unikornProperties(tag, version string) string {
	return fmt.Sprintf(`{
    "unikorn:os:kernel"      = "linux"
    "unikorn:os:family"      = "debian"
    "unikorn:os:distro"      = "ubuntu"
    "unikorn:os:version"     = %[2]q
    "unikorn:virtualization" = "virtualized"
    "unikorn:tag:acctest"    = %[1]q
  }`, tag, version)
}

// imageConfig is one unikorn_image "test" named name, of the raw data at source, with the
// extra arguments.
func imageConfig(name, source, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_image" "test" {
  name        = %[1]q
  disk_format = "raw"
  source_url  = %[2]q
%[3]s
}
`, name, source, extra)
}

// webDownload is why the tests that import an image need the local bed: Glance's web-download
// fetches it from this machine's loopback (acctest.ImageServer), which only a Glance running
// here reaches and allows.
const webDownload = "Glance's web-download fetches the image from this machine's loopback (acctest.ImageServer)"

// unfetchedSource is a source URL for the tests that stop before any import: no Glance ever
// fetches it.
const unfetchedSource = "http://127.0.0.1:8000/1mib/x"

// checkGlanceImage asks Glance, for unikorn_image.test, that exactly one image of
// its name exists in the service user's project and is the one in state, active, and that
// its visibility, protection, minimums, tags and properties are what the state says.
func checkGlanceImage(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckAttributes(imageAddress, func(a map[string]string) error {
		sc := acctest.AdminGlance(t, a["region"])

		pages, err := images.List(sc, images.ListOpts{Name: a["name"], Owner: acctest.Client(t).Base().ProjectID(), Visibility: "all"}).AllPages(context.Background())
		if err != nil {
			return err
		}

		all, _ := images.ExtractImages(pages)
		if len(all) != 1 || all[0].ID != a["id"] {
			return fmt.Errorf("images named %s: %d, want exactly %s", a["name"], len(all), a["id"])
		}

		img := all[0]

		var problems acctest.Mismatches

		expect := problems.Expect

		expect("status", img.Status, "active")
		expect("status in state", a["status"], "active")
		expect("visibility", img.Visibility, a["visibility"])
		expect("protected", img.Protected, a["protected"])
		expect("min_disk", img.MinDiskGigabytes, a["min_disk_gb"])
		expect("min_ram", img.MinRAMMegabytes, a["min_ram_mib"])
		expect("size", img.SizeBytes, a["size_bytes"])
		expect("checksum", img.Checksum, a["checksum"])

		expect("tags", sorted(img.Tags), acctest.SetValues(a, "tags"))

		// An organization image carries the organization and Unikorn's provenance tags, which
		// the state does not show among the properties; any other image none of the three.
		props := image.UserProperties(&img)
		org := a["organization_id"]
		source := ""

		if org != "" {
			source = image.SourceImport
		}

		expect("organization property", props[image.PropertyOrganizationID], org)
		expect("organization tag", props[image.PropertyOrganizationTag], org)
		expect("source tag", props[image.PropertySourceTag], source)
		delete(props, image.PropertyOrganizationID)
		delete(props, image.PropertyOrganizationTag)
		delete(props, image.PropertySourceTag)

		expect("properties", fmt.Sprint(props), fmt.Sprint(acctest.MapValues(a, "properties")))

		return problems.Err("image " + a["name"])
	})
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)

	return s
}

// glanceChange changes the image of unikorn_image.test out of band (as the service user).
func glanceChange(t *testing.T, s *terraform.State, change func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error) {
	t.Helper()

	rs := s.RootModule().Resources[imageAddress]
	if err := change(context.Background(), acctest.AdminGlance(t, rs.Primary.Attributes["region"]), rs.Primary.ID); err != nil {
		t.Fatal(err)
	}
}

// TestAccImageResource_basic imports an image by web-download and checks it in Glance, imports
// it by REGION/ID and REGION/name, changes tags, properties, visibility, minimums and
// protection in place (same ID), refuses to destroy or replace it while protected, replaces it
// on a new source_url in the change that turns protection off, and converges a property and
// a visibility changed out of band.
func TestAccImageResource_basic(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	base := acctest.ImageServer(t)
	name := acctest.RandomName()
	def := acctest.Client(t).DefaultRegion()

	first := imageConfig(name, base+"/1mib/first", `
  tags        = ["a", "b"]
  min_disk_gb = 1
  properties  = `+unikornProperties(name, "24.04"))
	protected := imageConfig(name, base+"/1mib/first", `
  tags        = ["b", "c"]
  visibility  = "shared"
  protected   = true
  min_ram_mib = 256
  properties  = merge(`+unikornProperties(name, "24.10")+`, { hw_disk_bus = "scsi" })`)
	replaced := imageConfig(name, base+"/2mib/second", `
  tags        = ["b", "c"]
  visibility  = "shared"
  min_ram_mib = 256
  properties  = merge(`+unikornProperties(name, "24.10")+`, { hw_disk_bus = "scsi" })`)

	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	keptID := statecheck.CompareValue(compare.ValuesSame())

	var state *terraform.State

	keep := func(s *terraform.State) error { state = s; return nil }

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: slices.Concat([]resource.TestStep{
			{
				Config: first,
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(imageAddress, tfjsonpath.New("id")),
					newID.AddStateValue(imageAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("region"), knownvalue.StringExact(def)),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(1<<20)),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("visibility"), knownvalue.StringExact("private")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("container_format"), knownvalue.StringExact("bare")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("organization_id"), knownvalue.Null()),
				},
				Check: checkGlanceImage(t),
			},
		}, acctest.ImportSteps(imageAddress), []resource.TestStep{
			{
				Config: protected,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(imageAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(imageAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("protected"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkGlanceImage(t), keep),
			},
			{Config: protected, Destroy: true, ExpectError: regexp.MustCompile(wrapped(`is protected: Glance refuses to delete it`))},
			{
				Config:      imageConfig(name, base+"/2mib/second", `  protected = true`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(wrapped(`replaces the protected image`)),
			},
			{
				Config: replaced,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(imageAddress, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(imageAddress, tfjsonpath.New("id")),
					keptID.AddStateValue(imageAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(2<<20)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkGlanceImage(t),
					func(*terraform.State) error { return gone(t, def, state, "the replaced, formerly protected image") }, keep),
			},
			{
				PreConfig: func() {
					glanceChange(t, state, func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
						_, err := images.Update(ctx, sc, id, images.UpdateOpts{
							images.UpdateImageProperty{Op: images.AddOp, Name: "out_of_band", Value: "yes"},
							images.UpdateImageProperty{Op: images.ReplaceOp, Name: "hw_disk_bus", Value: "virtio"},
							images.UpdateVisibility{Visibility: images.ImageVisibilityPrivate},
						}).Extract()

						return err
					})
				},
				Config: replaced,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(imageAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{keptID.AddStateValue(imageAddress, tfjsonpath.New("id"))},
				Check:             checkGlanceImage(t),
			},
		}),
	})
}

// gone checks that the image the saved state recorded no longer exists.
func gone(t *testing.T, region string, s *terraform.State, what string) error {
	id := s.RootModule().Resources[imageAddress].Primary.ID

	_, err := images.Get(context.Background(), acctest.AdminGlance(t, region), id).Extract()
	if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return fmt.Errorf("%s %s: %v, want 404", what, id, err)
	}

	return nil
}

// TestAccImageResource_disappears deletes the image out of band: the plan re-creates it.
func TestAccImageResource_disappears(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	config := imageConfig(acctest.RandomName(), acctest.ImageServer(t)+"/1mib/disappears", "")

	var state *terraform.State

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: []resource.TestStep{
			{Config: config, Check: func(s *terraform.State) error { state = s; return nil }},
			{
				PreConfig: func() {
					glanceChange(t, state, func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
						return images.Delete(ctx, sc, id).ExtractErr()
					})
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(imageAddress, plancheck.ResourceActionCreate)},
				},
				Check: checkGlanceImage(t),
			},
		},
	})
}

// TestAccImageResource_failedImport: a source Glance cannot fetch fails the apply with
// Glance's reason; the image made for it is tainted and destroyed.
func TestAccImageResource_failedImport(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: []resource.TestStep{{
			Config:      imageConfig(acctest.RandomName(), acctest.ImageServer(t)+"/missing", ""),
			ExpectError: regexp.MustCompile(wrapped(`web-download import of http://127\.0\.0\.1:\d+/missing into image \S+ failed[\s\S]*import task`)),
		}},
	})
}

// TestAccImageResource_organization makes a private organization image (the default
// visibility): carrying unikorn:organization:id and Unikorn's provenance tags, and returned by
// the image data sources for that organization only. (Unikorn's public shape:
// unikorn_shape_acc_test.go.)
func TestAccImageResource_organization(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	name := acctest.RandomName()
	org := "org-" + name

	config := imageConfig(name, acctest.ImageServer(t)+"/1mib/org", fmt.Sprintf(`
  organization_id = %[1]q
  properties      = %[2]s
}

data "unikorn_images" "org" {
  organization_id = %[1]q
  tags            = { acctest = %[3]q }
  depends_on      = [unikorn_image.test]
}

data "unikorn_images" "public" {
  tags       = { acctest = %[3]q }
  depends_on = [unikorn_image.test]
`, org, unikornProperties(name, "24.04"), name))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("visibility"), knownvalue.StringExact("private")),
				statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("organization_id"), knownvalue.StringExact(org)),
				statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("images"), knownvalue.ListSizeExact(1)),
				statecheck.CompareValuePairs(imageAddress, tfjsonpath.New("id"),
					"data.unikorn_images.org", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("id"), compare.ValuesSame()),
				statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("organization_id"),
					knownvalue.StringExact(org)),
				statecheck.ExpectKnownValue("data.unikorn_images.public", tfjsonpath.New("images"), knownvalue.ListSizeExact(0)),
			},
			Check: checkGlanceImage(t),
		}},
	})
}

// TestAccImageResource_planErrors: mistakes caught at plan time, with the attribute and, for
// the Unikorn properties, the reasons the image data sources give.
func TestAccImageResource_planErrors(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	src := unfetchedSource

	cases := []acctest.PlanError{
		{Config: imageConfig(name, "ftp://127.0.0.1/x.raw", ""), Error: `Invalid source URL[\s\S]*not an http or https URL`},
		{Config: imageConfig(name, "http:///x.raw", ""), Error: `Invalid source URL[\s\S]*has no host`},
		{Config: imageConfig(name, src, `  visibility = "secret"`), Error: `Invalid Attribute Value Match[\s\S]*visibility`},
		{Config: strings.Replace(imageConfig(name, src, ""), `"raw"`, `"floppy"`, 1), Error: `disk_format[\s\S]*value must be one of`},
		{Config: imageConfig(" "+name, src, ""), Error: `Invalid name[\s\S]*white space`},
		{Config: imageConfig(name, src, `  min_ram_mib = -1`), Error: `min_ram_mib[\s\S]*at least 0`},
		{
			Config: imageConfig(name, src, `  properties = { "unikorn:os:kernel" = "windows", "unikorn:package:kubernetes" = "1.30" }`),
			Error: `Invalid Unikorn image property[\s\S]*property "unikorn:os:kernel" is "windows", must be one of linux` +
				`[\s\S]*property "unikorn:package:kubernetes" is "1.30", must be a version vX.Y.Z`,
		},
		{Config: imageConfig(name, src, `  organization_id = "o1"`), Error: `property "unikorn:os:family" is required`},
		{
			Config: imageConfig(name, src, `  properties = { "unikorn:tag:images.unikorn-cloud.org:source" = "snapshot" }`),
			Error:  `Reserved image property[\s\S]*one of Unikorn's provenance tags, which the provider writes from organization_id`,
		},
		{
			Config: imageConfig(name, src, fmt.Sprintf("  properties = %s",
				strings.Replace(unikornProperties(name, "24.04"), "}", `  "unikorn:gpu_models" = "H100-SXM5"
  }`, 1))),
			Error: `property "unikorn:gpu_models" is "H100-SXM5", must be GPU model names`,
		},
		{
			Config: imageConfig(name, src, `  properties = { "unikorn:organization:id" = "o1" }`),
			Error:  `Set the organization with organization_id`,
		},
	}

	// Terraform wraps the diagnostics: a space of the patterns matches any white space.
	for i := range cases {
		cases[i].Error = wrapped(cases[i].Error)
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    acctest.PlanErrors(cases),
	})
}

// wrapped is the pattern with every space matching any white space, as Terraform wraps its
// diagnostics.
func wrapped(pattern string) string {
	return strings.ReplaceAll(pattern, " ", `\s+`)
}

// TestAccImageResource_measure imports a 16 MiB image by web-download through the core, as
// Create does, and logs the wall time of the import and the requests of one create and one
// refresh (from a fresh client, after its authentication).
func TestAccImageResource_measure(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	c := acctest.FreshClient(t)
	region := c.DefaultRegion()

	sc, err := c.Base().Image(region)
	if err != nil {
		t.Fatal(err)
	}

	mgr := image.NewManager(sc, c.Base().ProjectID(), region, c.AdminRefusal)
	spec := image.Spec{
		Name: acctest.RandomName(), SourceURL: acctest.ImageServer(t) + "/16mib/measure", DiskFormat: "raw", ContainerFormat: "bare",
		Visibility: "private", Tags: []string{}, Properties: map[string]string{},
	}

	ctx := t.Context()
	before := c.RequestCountByMethod()
	start := c.RequestCount()

	created, err := mgr.Create(ctx, spec)
	if created.Image != nil {
		t.Cleanup(func() { _ = mgr.Delete(context.Background(), created.Image.ID, spec.Name, false) })
	}

	if err != nil {
		t.Fatal(err)
	}

	importStart := time.Now()

	img, err := mgr.Import(ctx, created.Image, spec.SourceURL)
	if err == nil {
		img, err = mgr.Converge(ctx, img, spec)
	}

	importTime := time.Since(importStart).Round(time.Millisecond)

	if err != nil {
		t.Fatal(err)
	}

	createRequests := c.RequestCount() - start
	byMethod := diffCounts(before, c.RequestCountByMethod())

	if img.SizeBytes != 16<<20 {
		t.Errorf("size %d, want %d", img.SizeBytes, 16<<20)
	}

	start = c.RequestCount()

	if _, err := mgr.Observe(ctx, img.ID, spec.Name); err != nil {
		t.Fatal(err)
	}

	t.Logf("web-download import of a 16 MiB image: %s from the import request to active (poll included)", importTime)
	t.Logf("requests: create %d (%v), refresh %d", createRequests, byMethod, c.RequestCount()-start)
}

func diffCounts(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}

	for _, k := range slices.Sorted(maps.Keys(after)) {
		if d := after[k] - before[k]; d != 0 {
			out[k] = d
		}
	}

	return out
}
