package image_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

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
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// listedByUnikorn checks, for unikorn_image.test, what Unikorn's region service would make of
// the image (uni-region v1.19.0): its listing (pkg/providers/internal/openstack/image.go:
// ListImages) asks Glance for visibility=public with the region's own project and keeps the
// images whose properties pass its schema; an organization's listing
// (provider.go:isPublicOrOrganizationOwnedImage) then keeps those without unikorn:organization:id
// and those of the organization.
func listedByUnikorn(t *testing.T, organizationID string, want bool) resource.TestCheckFunc {
	return acctest.CheckAttributes(imageAddress, func(a map[string]string) error {
		pages, err := images.List(acctest.AdminGlance(t, a["region"]), images.ListOpts{
			Visibility: images.ImageVisibilityPublic, Name: a["name"],
		}).AllPages(context.Background())
		if err != nil {
			return err
		}

		all, err := images.ExtractImages(pages)
		if err != nil {
			return err
		}

		listed := slices.ContainsFunc(all, func(img images.Image) bool {
			org, _ := img.Properties[image.PropertyOrganizationID].(string)

			return img.ID == a["id"] && image.Validate(img.Properties) == nil && (org == "" || org == organizationID)
		})
		if listed != want {
			return fmt.Errorf("Unikorn's listing for organization %q has image %s: %v, want %v", organizationID, a["id"], listed, want)
		}

		return nil
	})
}

// TestAccImageUnikornShape_resource: a unikorn_image with organization_id and visibility =
// "public" is made in Unikorn's shape (public, unikorn:organization:id and Unikorn's provenance
// tags, in the service user's project), which Unikorn's own listing shows for the organization
// only and the image data sources list for that organization only; without organization_id
// the three properties go.
func TestAccImageUnikornShape_resource(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	name := acctest.RandomName()
	org := "org-" + name
	src := acctest.ImageServer(t) + "/1mib/unikorn-shape"

	dataSources := fmt.Sprintf(`
data "unikorn_images" "org" {
  organization_id = %[1]q
  tags            = { acctest = %[2]q }
  depends_on      = [unikorn_image.test]
}

data "unikorn_images" "other_org" {
  organization_id = "other-%[1]s"
  tags            = { acctest = %[2]q }
  depends_on      = [unikorn_image.test]
}

data "unikorn_images" "public" {
  tags       = { acctest = %[2]q }
  depends_on = [unikorn_image.test]
}
`, org, name)

	organizationImage := imageConfig(name, src, fmt.Sprintf("  organization_id = %q\n  visibility = \"public\"\n  properties = %s",
		org, unikornProperties(name, "24.04"))) + dataSources
	publicImage := imageConfig(name, src, fmt.Sprintf("  visibility = \"public\"\n  properties = %s", unikornProperties(name, "24.04")))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: []resource.TestStep{
			{
				Config: organizationImage,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("visibility"), knownvalue.StringExact("public")),
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("organization_id"), knownvalue.StringExact(org)),
					// The provenance tags are not the user's properties.
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("properties"), knownvalue.MapSizeExact(6)),
					statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("images"), knownvalue.ListSizeExact(1)),
					statecheck.CompareValuePairs(imageAddress, tfjsonpath.New("id"),
						"data.unikorn_images.org", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("organization_id"),
						knownvalue.StringExact(org)),
					statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("tags"),
						stringMap(map[string]string{
							"acctest": name, "images.unikorn-cloud.org:source": "import", "images.unikorn-cloud.org:organization-id": org,
						})),
					statecheck.ExpectKnownValue("data.unikorn_images.org", tfjsonpath.New("rejected"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_images.other_org", tfjsonpath.New("images"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_images.other_org", tfjsonpath.New("rejected"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_images.public", tfjsonpath.New("images"), knownvalue.ListSizeExact(0)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkGlanceImage(t),
					listedByUnikorn(t, org, true),
					listedByUnikorn(t, "other-"+org, false),
					listedByUnikorn(t, "", false),
				),
			},
			// The same image, no longer an organization's: the organization and its provenance
			// tags are removed in place, and Unikorn lists it for everyone.
			{
				Config: publicImage,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(imageAddress, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("organization_id"), knownvalue.Null()),
				},
				Check: resource.ComposeTestCheckFunc(checkGlanceImage(t), listedByUnikorn(t, "", true)),
			},
		},
	})
}

// unikornImage is the organization image the test makes as Unikorn's image API does, tagged
// acctest = tag.
func unikornImage(t *testing.T, name, tag, org, src string) images.Image {
	t.Helper()

	return acctest.CreateUnikornImage(t, acctest.UnikornImageSpec{
		Name: name, SourceURL: src, OrganizationID: org,
		Kernel: "linux", Family: "debian", Distro: "ubuntu", Version: "24.04", Codename: "noble",
		Architecture: "x86_64", Virtualization: "virtualized",
		Packages:  map[string]string{"kubernetes": "v1.31.2"},
		GPUVendor: "NVIDIA", GPUModels: []string{"H100", "A100"}, GPUDriver: "550.54.15",
		Tags: map[string]string{"acctest": tag, "team": "ml"},
	})
}

// TestAccImageUnikornShape_madeByUnikorn: an organization image made in Glance as Unikorn's
// image API makes it is listed by the image data sources for its organization, translated as
// Unikorn reads it; images that only Unikorn's schema decides on are accepted or left out as
// Unikorn would (empty OS strings and a legacy Kubernetes version without v accepted; GPU models
// with a hyphen or a space refused; an amd64 image is not x86_64). Imported into unikorn_image
// with a configuration that mirrors it, the plan is empty and nothing is written; a removed
// block hands it back, and it stays as Unikorn made it.
func TestAccImageUnikornShape_madeByUnikorn(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	name := acctest.RandomName()
	org := "org-" + name
	src := acctest.ImageServer(t) + "/1mib/made-by-unikorn"

	made := unikornImage(t, name+"-1-unikorn", name, org, src)

	public := func(suffix string, extra map[string]string) images.Image {
		return acctest.CreateImage(t, acctest.ImageSpec{Name: name + suffix, Properties: baseProperties(name, extra)})
	}

	emptyOS := public("-2-empty-os", map[string]string{"unikorn:os:family": "", "unikorn:os:distro": "", "unikorn:os:version": ""})
	legacy := public("-3-legacy", map[string]string{"unikorn:kubernetes_version": "1.28.5"})
	amd64 := public("-4-amd64", map[string]string{"architecture": "amd64"})
	hyphen := public("-5-hyphen", map[string]string{
		"unikorn:gpu_vendor": "NVIDIA", "unikorn:gpu_models": "H100-SXM5", "unikorn:gpu_driver_version": "550",
	})
	spaced := public("-6-spaced", map[string]string{
		"unikorn:gpu_vendor": "NVIDIA", "unikorn:gpu_models": "A100, H100", "unikorn:gpu_driver_version": "550",
	})

	modelsReason := func(models string) string {
		return fmt.Sprintf(`schema: property "unikorn:gpu_models" is %q, must be GPU model names of letters, digits and underscores `+
			`joined by commas, without spaces (e.g. H100,A100)`, models)
	}

	unikornValue := wantImage{
		img: made, name: made.Name, architecture: "x86_64", virtualization: "virtualized", organizationID: org,
		family: "debian", distro: "ubuntu", version: "24.04", codename: "noble",
		packages: map[string]string{"kubernetes": "v1.31.2"},
		tags: map[string]string{
			"acctest": name, "team": "ml", "images.unikorn-cloud.org:source": "import", "images.unikorn-cloud.org:organization-id": org,
		},
		gpuVendor: "NVIDIA", gpuDriver: "550.54.15", gpuModels: []string{"H100", "A100"},
		sizeGiB: sizeGiB(made),
	}.check()

	locals := fmt.Sprintf("locals {\n  mine = { acctest = %q }\n}\n", name)
	lookups, checks := acctest.Lookups("images", []acctest.Lookup{
		mine("org", fmt.Sprintf("organization_id = %q", org), "images", list(
			unikornValue,
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id": knownvalue.StringExact(emptyOS.ID),
				"os": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"family": knownvalue.StringExact(""), "distro": knownvalue.StringExact(""), "version": knownvalue.StringExact(""),
				}),
			}),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id":       knownvalue.StringExact(legacy.ID),
				"packages": stringMap(map[string]string{"kubernetes": "1.28.5"}),
			}),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id": knownvalue.StringExact(amd64.ID), "architecture": knownvalue.StringExact("amd64"),
			}),
		)),
		mine("org", "", "rejected", list(rejected(hyphen, modelsReason("H100-SXM5")), rejected(spaced, modelsReason("A100, H100")))),
		mine("public", "", "images", list(idOnly(emptyOS), idOnly(legacy), idOnly(amd64))),
		mine("x86", fmt.Sprintf("organization_id = %q\narchitecture = \"x86_64\"", org), "images",
			list(idOnly(made), idOnly(emptyOS), idOnly(legacy))),
		mine("old_kubernetes", `package = "kubernetes ~1.28"`, "images", list(idOnly(legacy))),
	})

	// What Unikorn wrote, as unikorn_image shows it: every user property but the organization
	// and the provenance tags.
	props := image.UserProperties(&made)
	delete(props, image.PropertyOrganizationID)
	delete(props, image.PropertyOrganizationTag)
	delete(props, image.PropertySourceTag)

	mirror := imageConfig(made.Name, src, fmt.Sprintf("  visibility = \"public\"\n  organization_id = %q\n  properties = %s", org, hclMap(props)))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: locals + lookups, ConfigStateChecks: checks},
			{
				Config: mirror, ResourceName: imageAddress, ImportState: true, ImportStateId: made.ID, ImportStatePersist: true,
			},
			{
				Config: mirror,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: unchangedInGlance(t, made),
			},
			// Handed back: Terraform forgets the image, which stays as Unikorn made it.
			{
				Config: fmt.Sprintf("removed {\n  from = %s\n\n  lifecycle {\n    destroy = false\n  }\n}\n", imageAddress),
				Check:  unchangedInGlance(t, made),
			},
		},
	})
}

// hclMap is m as an HCL map expression, keys in order.
func hclMap(m map[string]string) string {
	out := "{\n"
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out += fmt.Sprintf("    %q = %q\n", k, m[k])
	}

	return out + "  }"
}

// unchangedInGlance checks that Glance still has the image as it was made: same name,
// visibility, protection, minimums, tags and properties, and no ownership mark. (Not
// updated_at: Glance's own import may still touch the image a moment after it is active.)
func unchangedInGlance(t *testing.T, made images.Image) resource.TestCheckFunc {
	return func(*terraform.State) error {
		img, err := acctest.Image(t, "", made.ID)
		if err != nil {
			return err
		}

		var problems acctest.Mismatches

		problems.Expect("name", img.Name, made.Name)
		problems.Expect("visibility", img.Visibility, made.Visibility)
		problems.Expect("protected", img.Protected, made.Protected)
		problems.Expect("min_disk", img.MinDiskGigabytes, made.MinDiskGigabytes)
		problems.Expect("min_ram", img.MinRAMMegabytes, made.MinRAMMegabytes)
		problems.Expect("tags", fmt.Sprint(sorted(img.Tags)), fmt.Sprint(sorted(made.Tags)))
		problems.Expect("properties", fmt.Sprint(image.UserProperties(img)), fmt.Sprint(image.UserProperties(&made)))
		problems.Expect("ownership marks", naming.MarkOf(img.Properties).Marked(), false)

		return problems.Err("Unikorn's image " + made.Name)
	}
}
