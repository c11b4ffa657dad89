package image_test

import (
	"fmt"
	"os"
	"slices"
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

// catalogLookups are the ten catalog data sources of a region in catalogConfig, by kind,
// name and arguments beyond region and tags ({tag} stands for the test's tag); orgLookups
// the two organization-scoped ones.
var (
	catalogLookups = []struct{ kind, name, body string }{
		{"images", "all", ""},
		{"images", "ready", `status = "ready"`},
		{"images", "ubuntu", `os_distro = "ubuntu"`},
		{"image", "newest", "most_recent = true"},
		{"image", "newest_virtualized", "virtualization = \"virtualized\"\nmost_recent = true"},
		{"flavors", "all", ""},
		{"flavors", "two_cpus", "min_cpus = 2"},
		{"flavors", "x86", `architecture = "x86_64"`},
		{"flavor", "smallest", "smallest = true"},
		{"flavor", "smallest_1g", "min_memory_gib = 1\nsmallest = true"},
	}
	orgLookups = []struct{ kind, name, body string }{
		{"images", "org_a", `organization_id = "org-a-{tag}"`},
		{"images", "org_b", `organization_id = "org-b-{tag}"`},
	}
)

// catalogConfig is twenty catalog data sources, ten per region (three unikorn_images, two
// unikorn_image, three unikorn_flavors, two unikorn_flavor), plus, with organizations, two
// organization-scoped unikorn_images per region (two different organizations). The image
// data sources see only the images tagged with tag.
func catalogConfig(tag string, regions []string, organizations bool) string {
	lookups := catalogLookups
	if organizations {
		lookups = append(slices.Clone(lookups), orgLookups...)
	}

	var b strings.Builder

	for i, region := range regions {
		for _, l := range lookups {
			body := strings.ReplaceAll(l.body, "{tag}", tag)
			if strings.HasPrefix(l.kind, "image") {
				body = fmt.Sprintf("tags = { acctest = %q }\n", tag) + body
			}

			fmt.Fprintf(&b, "\ndata \"unikorn_%s\" \"%s_%d\" {\n  region = %q\n%s\n}\n", l.kind, l.name, i, region, body)
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
			glanceByRegion, err := run.ByRegion("Listed Glance images")
			if err != nil {
				return err
			}

			novaByRegion, err := run.ByRegion("Listed Nova flavors")
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
