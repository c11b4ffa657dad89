package image_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// Paths of the two listings, as the request log has them (suffixes: the endpoints may carry
// a path prefix).
const (
	glanceListPath = "/v2/images"
	novaListPath   = "/flavors/detail"
)

// catalogConfig is twenty catalog data sources, ten per region (three unikorn_images, two
// unikorn_image, three unikorn_flavors, two unikorn_flavor), plus, with organizations, two
// organization-scoped unikorn_images per region (two different organizations).
func catalogConfig(tag string, regions []string, organizations bool) string {
	var b strings.Builder

	for i, region := range regions {
		fmt.Fprintf(&b, `
data "unikorn_images" "all_%[1]d" {
  region = %[2]q
  tags   = { acctest = %[3]q }
}

data "unikorn_images" "ready_%[1]d" {
  region = %[2]q
  tags   = { acctest = %[3]q }
  status = "ready"
}

data "unikorn_images" "ubuntu_%[1]d" {
  region    = %[2]q
  tags      = { acctest = %[3]q }
  os_distro = "ubuntu"
}

data "unikorn_image" "newest_%[1]d" {
  region      = %[2]q
  tags        = { acctest = %[3]q }
  most_recent = true
}

data "unikorn_image" "newest_virtualized_%[1]d" {
  region         = %[2]q
  tags           = { acctest = %[3]q }
  virtualization = "virtualized"
  most_recent    = true
}

data "unikorn_flavors" "all_%[1]d" {
  region = %[2]q
}

data "unikorn_flavors" "two_cpus_%[1]d" {
  region   = %[2]q
  min_cpus = 2
}

data "unikorn_flavors" "x86_%[1]d" {
  region       = %[2]q
  architecture = "x86_64"
}

data "unikorn_flavor" "smallest_%[1]d" {
  region   = %[2]q
  smallest = true
}

data "unikorn_flavor" "smallest_1g_%[1]d" {
  region         = %[2]q
  min_memory_gib = 1
  smallest       = true
}
`, i, region, tag)

		if organizations {
			fmt.Fprintf(&b, `
data "unikorn_images" "org_a_%[1]d" {
  region          = %[2]q
  tags            = { acctest = %[3]q }
  organization_id = "org-a-%[3]s"
}

data "unikorn_images" "org_b_%[1]d" {
  region          = %[2]q
  tags            = { acctest = %[3]q }
  organization_id = "org-b-%[3]s"
}
`, i, region, tag)
		}
	}

	return b.String()
}

// checkListings checks, for every provider run (one per CLI command) that read data sources,
// that it made exactly wantGlance Glance image lists and wantNova Nova flavor lists, and logs
// what each run cost: the measurement quoted for the single-listing rule.
func checkListings(t *testing.T, log *acctest.RequestLog, logged *int, wantReads, wantGlance, wantNova int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		measured := 0
		runs := log.Runs()

		for i, run := range runs[*logged:] {
			i += *logged
			reads := run.DataSourceReads()
			if reads == 0 {
				continue
			}

			requests, err := run.Requests()
			if err != nil {
				return err
			}

			glance, _ := run.Count("GET", glanceListPath)
			nova, _ := run.Count("GET", novaListPath)

			byCall := map[string]int{}
			for _, r := range requests {
				byCall[r.String()]++
			}

			// The request log has no region; the catalog's own "Listed ..." entries have.
			glanceByRegion, err := perRegion(run, "Listed Glance images")
			if err != nil {
				return err
			}

			novaByRegion, err := perRegion(run, "Listed Nova flavors")
			if err != nil {
				return err
			}

			t.Logf("provider run %d: %d data sources read, %d OpenStack requests: %d Glance image lists (GET %s) %v, "+
				"%d Nova flavor lists (GET %s) %v; all requests: %v",
				i+1, reads, len(requests), glance, glanceListPath, glanceByRegion, nova, novaListPath, novaByRegion, byCall)

			if reads != wantReads {
				continue // a run that read only some of the data sources
			}

			measured++

			if glance != wantGlance || nova != wantNova {
				return fmt.Errorf("provider run %d read %d data sources with %d Glance image lists and %d Nova flavor lists, want %d and %d",
					i+1, reads, glance, nova, wantGlance, wantNova)
			}

			for _, region := range acctest.Regions() {
				if glanceByRegion[region] != wantGlance/len(acctest.Regions()) || novaByRegion[region] != 1 {
					return fmt.Errorf("provider run %d: region %s listed Glance %d times and Nova %d times, want %d and 1",
						i+1, region, glanceByRegion[region], novaByRegion[region], wantGlance/len(acctest.Regions()))
				}
			}
		}

		*logged = len(runs)

		if measured == 0 {
			return fmt.Errorf("no provider run read all %d data sources: nothing was measured (is TF_LOG_PROVIDER_UNIKORN_OPENSTACK below DEBUG?)", wantReads)
		}

		return nil
	}
}

// TestAccCatalog_singleListing measures the single-listing rule from the request log: twenty
// image and flavor data sources over two regions in one plan cost one Glance image list and
// one Nova flavor list per region; organization-scoped image data sources add one Glance
// list (visibility=all) per region, shared by every organization.
func TestAccCatalog_singleListing(t *testing.T) {
	if v := os.Getenv("TF_LOG_PROVIDER_UNIKORN_OPENSTACK"); v != "" && !strings.EqualFold(v, "DEBUG") && !strings.EqualFold(v, "TRACE") {
		t.Fatalf("TF_LOG_PROVIDER_UNIKORN_OPENSTACK=%s hides the request log this test measures", v)
	}

	tag := acctest.RandomName()

	regions := acctest.Regions()
	if len(regions) == 0 {
		regions = []string{"unset"} // without TF_ACC the test is skipped, but its steps are validated first
	}

	if os.Getenv("TF_ACC") != "" {
		acctest.PreCheck(t)

		for _, region := range regions {
			for _, virt := range []string{"any", "virtualized"} {
				acctest.CreateImage(t, acctest.ImageSpec{
					Region: region, Name: tag + "-" + virt,
					Properties: baseProperties(tag, map[string]string{"unikorn:virtualization": virt}),
				})
			}
		}
	}

	log := acctest.NewRequestLog()
	logged := 0

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: log.ProviderFactories(),
		Steps: []resource.TestStep{
			{
				Config: catalogConfig(tag, regions, false),
				Check:  checkListings(t, log, &logged, 10*len(regions), len(regions), len(regions)),
			},
			{
				Config: catalogConfig(tag, regions, true),
				Check:  checkListings(t, log, &logged, 12*len(regions), 2*len(regions), len(regions)),
			},
		},
	})
}

// perRegion counts the run's log entries with message by their region field.
func perRegion(run *acctest.ProviderRun, message string) (map[string]int, error) {
	entries, err := run.Entries(message)
	if err != nil {
		return nil, err
	}

	out := map[string]int{}

	for _, e := range entries {
		region, _ := e["region"].(string)
		out[region]++
	}

	return out, nil
}
