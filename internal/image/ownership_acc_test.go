package image_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccImageResource_existingRefused: an image of the name made by hand in the service
// user's project is refused by a unikorn_image of that name, and left untouched: nothing is
// imported into it, it carries no mark (issue 26, item 2; the old code adopted it).
func TestAccImageResource_existingRefused(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	img := acctest.CreateImage(t, acctest.ImageSpec{Name: name, Visibility: images.ImageVisibilityPrivate, NoData: true,
		Properties: map[string]string{"by": "hand"}})

	untouched := func(*terraform.State) error {
		got, err := acctest.Image(t, "", img.ID)
		if err != nil || got.Status != images.ImageStatusQueued || naming.MarkOf(got.Properties).Marked() || got.Properties["by"] != "hand" {
			return fmt.Errorf("image %s: %+v (%v), want it untouched", img.ID, got, err)
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckImagesDestroyed(t, "unikorn_image"), untouched),
		Steps: []resource.TestStep{{
			Config:      imageConfig(name, unfetchedSource, ""), // refused before any import
			ExpectError: regexp.MustCompile(`(?s)Image exists already.*` + img.ID + `.*did\s+not\s+make\s+it.*terraform\s+import\s+unikorn_image`),
		}},
	})
}

// TestAccImageResource_interruptedCreateAdopted: an image made directly with the creation mark
// of unikorn_image and no completion mark (a create killed after its POST, before its import)
// is adopted by the unikorn_image of its name: same ID, imported, marked finished; the marks are
// not among its properties.
func TestAccImageResource_interruptedCreateAdopted(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, webDownload)

	name := acctest.RandomName()
	img := acctest.CreateImage(t, acctest.ImageSpec{Name: name, Visibility: images.ImageVisibilityPrivate, NoData: true,
		Properties: naming.MadeFor(image.TypeName).Properties()})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckImagesDestroyed(t, "unikorn_image"),
		Steps: []resource.TestStep{{
			Config: imageConfig(name, acctest.ImageServer(t)+"/1mib/"+name, ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("id"), knownvalue.StringExact(img.ID)),
				statecheck.ExpectKnownValue(imageAddress, tfjsonpath.New("properties"), knownvalue.Null()),
			},
			Check: resource.ComposeAggregateTestCheckFunc(checkGlanceImage(t), func(*terraform.State) error {
				got, err := acctest.Image(t, "", img.ID)
				if err != nil || naming.MarkOf(got.Properties) != naming.MadeFor(image.TypeName).Done() {
					return fmt.Errorf("image %s: %+v (%v), want it marked finished", img.ID, got, err)
				}

				return nil
			}),
		}},
	})
}
