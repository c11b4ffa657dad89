package volume_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccVolumeClasses: three public Cinder volume types made for the test in one region, two
// of them offered by the provider's volume_classes (one described as encrypted NVMe of a high
// tier, one as HDD). unikorn_volume_classes lists exactly the offered two with what the
// operator says, filters select among them (an undescribed encryption matches neither true nor
// false), unikorn_volume_class finds exactly one and refuses an ambiguous or empty match, and
// the second region (which has none of those types) lists none. Every provider run that reads
// the data sources lists Cinder's volume types once per region, whatever their number.
func TestAccVolumeClasses(t *testing.T) {
	acctest.PreCheck(t)

	region, other, ok := acctest.TwoRegions(t, "the volume class tests")
	if !ok {
		return
	}

	prefix := acctest.RandomName()
	fast := acctest.CreateVolumeType(t, region, prefix+"-a-fast")
	bulk := acctest.CreateVolumeType(t, region, prefix+"-b-bulk")
	acctest.CreateVolumeType(t, region, prefix+"-c-unoffered")

	provider := fmt.Sprintf(`
provider "unikorn" {
  volume_classes = {
    ids = [%[1]q, %[2]q]
    metadata = [
      { id = %[1]q, media = "nvme", performance = "high", encrypted = true },
      { id = %[2]q, media = "hdd" },
    ]
  }
}
`, fast, bulk)

	lookups := fmt.Sprintf(`
data "unikorn_volume_classes" "all" {
  region = %[1]q
}

data "unikorn_volume_classes" "not_encrypted" {
  region    = %[1]q
  encrypted = false
}

data "unikorn_volume_class" "fast" {
  region = %[1]q
  media  = "nvme"
}

data "unikorn_volume_classes" "other_region" {
  region = %[2]q
}
`, region, other)

	class := func(id, name, media, performance string, encrypted knownvalue.Check) knownvalue.Check {
		orNull := func(s string) knownvalue.Check {
			if s == "" {
				return knownvalue.Null()
			}

			return knownvalue.StringExact(s)
		}

		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"description": knownvalue.Null(), "encrypted": encrypted, "extra_specs": knownvalue.MapExact(map[string]knownvalue.Check{}),
			"id": knownvalue.StringExact(id), "media": orNull(media), "name": knownvalue.StringExact(name),
			"performance": orNull(performance),
		})
	}

	log := acctest.NewRequestLog()
	logged := 0

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		Steps: []resource.TestStep{
			{
				Config: provider + lookups,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_volume_classes.all", tfjsonpath.New("volume_classes"), knownvalue.ListExact([]knownvalue.Check{
						class(fast, prefix+"-a-fast", "nvme", "high", knownvalue.Bool(true)),
						class(bulk, prefix+"-b-bulk", "hdd", "", knownvalue.Null()),
					})),
					statecheck.ExpectKnownValue("data.unikorn_volume_classes.not_encrypted", tfjsonpath.New("volume_classes"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_volume_class.fast", tfjsonpath.New("id"), knownvalue.StringExact(fast)),
					statecheck.ExpectKnownValue("data.unikorn_volume_class.fast", tfjsonpath.New("volume_class").AtMapKey("performance"), knownvalue.StringExact("high")),
					statecheck.ExpectKnownValue("data.unikorn_volume_classes.other_region", tfjsonpath.New("volume_classes"), knownvalue.ListSizeExact(0)),
				},
				Check: oneListingPerRegion(t, log, &logged, 4, []string{region, other}),
			},
			{
				Config:      provider + fmt.Sprintf("data \"unikorn_volume_class\" \"any\" {\n  region = %q\n}\n", region),
				ExpectError: regexp.MustCompile(`(?s)Several volume classes found.*2 match the\s+filters`),
			},
			{
				Config:      provider + fmt.Sprintf("data \"unikorn_volume_class\" \"ssd\" {\n  region = %q\n  media  = \"ssd\"\n}\n", region),
				ExpectError: regexp.MustCompile(`No volume class found`),
			},
		},
	})
}

// oneListingPerRegion checks, for every provider run (one per CLI command) that read all reads
// data sources, that it listed Cinder's volume types exactly once in each of regions, and logs
// what each run cost.
func oneListingPerRegion(t *testing.T, log *acctest.RequestLog, logged *int, reads int, regions []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		measured := 0
		runs := log.Runs()

		for i, run := range runs[*logged:] {
			if run.DataSourceReads() != reads {
				continue
			}

			measured++

			lists, err := run.Count("GET", "/types")
			if err != nil {
				return err
			}

			byRegion, err := run.ByRegion("Listed Cinder volume types")
			if err != nil {
				return err
			}

			requests, _ := run.Requests()
			t.Logf("provider run %d: %d volume class data sources read, %d OpenStack requests, %d Cinder volume type lists %v",
				*logged+i+1, reads, len(requests), lists, byRegion)

			if lists != len(regions) {
				return fmt.Errorf("provider run %d listed Cinder's volume types %d times, want %d", *logged+i+1, lists, len(regions))
			}

			for _, r := range regions {
				if byRegion[r] != 1 {
					return fmt.Errorf("provider run %d listed region %s's volume types %d times, want 1", *logged+i+1, r, byRegion[r])
				}
			}
		}

		*logged = len(runs)

		if measured == 0 {
			return fmt.Errorf("no provider run read all %d data sources: nothing was measured", reads)
		}

		return nil
	}
}
