package flavor_test

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// testFlavors are the flavors one test creates: three in the default region (a plain one,
// one described as an aarch64 machine, one described as a bare-metal GPU machine) and one
// in the second region.
type testFlavors struct {
	prefix                     string
	plain, arm, gpu, otherZone string
	gpuModel                   string
	region, otherRegion        string
}

func createTestFlavors(t *testing.T) testFlavors {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return testFlavors{}
	}

	acctest.PreCheck(t)

	regions := acctest.Regions()
	if len(regions) < 2 {
		t.Fatalf("the flavor tests need two regions, UNIKORN_REGIONS has %v", regions)
	}

	prefix := acctest.RandomName()
	f := testFlavors{prefix: prefix, gpuModel: "X" + prefix, region: regions[0], otherRegion: regions[1]}

	f.plain = acctest.CreateFlavor(t, acctest.FlavorSpec{
		Name: prefix + "-a-plain", VCPUs: 1, RAMMiB: 1536, DiskGB: 1,
	})
	f.arm = acctest.CreateFlavor(t, acctest.FlavorSpec{
		Name: prefix + "-b-arm", VCPUs: 2, RAMMiB: 2048, DiskGB: 10,
		ExtraSpecs: map[string]string{"hw:cpu_policy": "dedicated", "unikorn:test": prefix},
	})
	f.gpu = acctest.CreateFlavor(t, acctest.FlavorSpec{
		Name: prefix + "-c-gpu", VCPUs: 4, RAMMiB: 8192, DiskGB: 20,
		ExtraSpecs: map[string]string{"resources:VGPU": "1"},
	})
	f.otherZone = acctest.CreateFlavor(t, acctest.FlavorSpec{
		Region: f.otherRegion, Name: prefix + "-d-other", VCPUs: 2, RAMMiB: 4096, DiskGB: 5,
	})

	return f
}

// providerConfig describes the arm and GPU flavors and allows only the test's own flavors,
// so that flavors of tests running at the same time never show up.
func (f testFlavors) providerConfig() string {
	return fmt.Sprintf(`
provider "unikorn" {
  flavor_ids = [%[1]q, %[2]q, %[3]q, %[4]q]

  flavors = [
    {
      id          = %[2]q
      cpu         = { architecture = "aarch64", count = 8, family = "Neoverse V2" }
      memory_gib  = 16
      pinned_only = true
    },
    {
      id        = %[3]q
      baremetal = true
      gpu       = { vendor = "NVIDIA", model = %[5]q, memory_gib = 80, physical_count = 2 }
    },
  ]
}
`, f.plain, f.arm, f.gpu, f.otherZone, f.gpuModel)
}

func (f testFlavors) plainValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact("x86_64"),
		"baremetal":    knownvalue.Bool(false),
		"cpu_family":   knownvalue.Null(),
		"cpus":         knownvalue.Int64Exact(1),
		"disk_gb":      knownvalue.Int64Exact(1),
		"extra_specs":  knownvalue.MapExact(map[string]knownvalue.Check{}),
		"gpu":          knownvalue.Null(),
		"id":           knownvalue.StringExact(f.plain),
		"memory_gib":   knownvalue.Float64Exact(1.5),
		"name":         knownvalue.StringExact(f.prefix + "-a-plain"),
		"pinned_only":  knownvalue.Bool(false),
	})
}

func (f testFlavors) armValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact("aarch64"),
		"baremetal":    knownvalue.Bool(false),
		"cpu_family":   knownvalue.StringExact("Neoverse V2"),
		"cpus":         knownvalue.Int64Exact(8),
		"disk_gb":      knownvalue.Int64Exact(10),
		"extra_specs": knownvalue.MapExact(map[string]knownvalue.Check{
			"hw:cpu_policy": knownvalue.StringExact("dedicated"),
			"unikorn:test":  knownvalue.StringExact(f.prefix),
		}),
		"gpu":         knownvalue.Null(),
		"id":          knownvalue.StringExact(f.arm),
		"memory_gib":  knownvalue.Float64Exact(16),
		"name":        knownvalue.StringExact(f.prefix + "-b-arm"),
		"pinned_only": knownvalue.Bool(true),
	})
}

func (f testFlavors) gpuValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact("x86_64"),
		"baremetal":    knownvalue.Bool(true),
		"cpu_family":   knownvalue.Null(),
		"cpus":         knownvalue.Int64Exact(4),
		"disk_gb":      knownvalue.Int64Exact(20),
		"extra_specs":  knownvalue.MapExact(map[string]knownvalue.Check{"resources:VGPU": knownvalue.StringExact("1")}),
		"gpu": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"logical_count":  knownvalue.Int64Exact(2),
			"memory_gib":     knownvalue.Int64Exact(80),
			"model":          knownvalue.StringExact(f.gpuModel),
			"physical_count": knownvalue.Int64Exact(2),
			"vendor":         knownvalue.StringExact("NVIDIA"),
		}),
		"id":          knownvalue.StringExact(f.gpu),
		"memory_gib":  knownvalue.Float64Exact(8),
		"name":        knownvalue.StringExact(f.prefix + "-c-gpu"),
		"pinned_only": knownvalue.Bool(false),
	})
}

func (f testFlavors) otherValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact("x86_64"),
		"baremetal":    knownvalue.Bool(false),
		"cpu_family":   knownvalue.Null(),
		"cpus":         knownvalue.Int64Exact(2),
		"disk_gb":      knownvalue.Int64Exact(5),
		"extra_specs":  knownvalue.MapExact(map[string]knownvalue.Check{}),
		"gpu":          knownvalue.Null(),
		"id":           knownvalue.StringExact(f.otherZone),
		"memory_gib":   knownvalue.Float64Exact(4),
		"name":         knownvalue.StringExact(f.prefix + "-d-other"),
		"pinned_only":  knownvalue.Bool(false),
	})
}

func flavorList(checks ...knownvalue.Check) knownvalue.Check {
	return knownvalue.ListExact(checks)
}

func expectFlavors(address string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New("flavors"), want)
}

// TestAccFlavorsDataSource_enriched lists Nova's flavors through the allow-list, enriched by
// the provider's descriptions, and filters them on every field.
func TestAccFlavorsDataSource_enriched(t *testing.T) {
	f := createTestFlavors(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: f.providerConfig() + fmt.Sprintf(`
data "unikorn_flavors" "all" {}

data "unikorn_flavors" "aarch64" {
  architecture = "aarch64"
}

data "unikorn_flavors" "x86_64" {
  architecture = "x86_64"
}

data "unikorn_flavors" "baremetal" {
  baremetal = true
}

data "unikorn_flavors" "virtual" {
  baremetal = false
}

data "unikorn_flavors" "nvidia" {
  gpu_vendor = "NVIDIA"
}

data "unikorn_flavors" "amd" {
  gpu_vendor = "AMD"
}

data "unikorn_flavors" "model" {
  gpu_model = %[1]q
}

data "unikorn_flavors" "min_cpus" {
  min_cpus = 4
}

data "unikorn_flavors" "min_memory" {
  min_memory_gib = 1.75
}

data "unikorn_flavors" "min_gpus" {
  min_gpus = 2
}

data "unikorn_flavors" "too_many_gpus" {
  min_gpus = 3
}

data "unikorn_flavors" "combined" {
  architecture = "x86_64"
  min_cpus     = 2
  baremetal    = false
}

data "unikorn_flavors" "other_region" {
  region = %[2]q
}
`, f.gpuModel, f.otherRegion),
				ConfigStateChecks: []statecheck.StateCheck{
					expectFlavors("data.unikorn_flavors.all", flavorList(f.plainValue(), f.armValue(), f.gpuValue())),
					statecheck.ExpectKnownValue("data.unikorn_flavors.all", tfjsonpath.New("region"), knownvalue.StringExact(f.region)),
					expectFlavors("data.unikorn_flavors.aarch64", flavorList(f.armValue())),
					expectFlavors("data.unikorn_flavors.x86_64", flavorList(f.plainValue(), f.gpuValue())),
					expectFlavors("data.unikorn_flavors.baremetal", flavorList(f.gpuValue())),
					expectFlavors("data.unikorn_flavors.virtual", flavorList(f.plainValue(), f.armValue())),
					expectFlavors("data.unikorn_flavors.nvidia", flavorList(f.gpuValue())),
					expectFlavors("data.unikorn_flavors.amd", flavorList()),
					expectFlavors("data.unikorn_flavors.model", flavorList(f.gpuValue())),
					expectFlavors("data.unikorn_flavors.min_cpus", flavorList(f.armValue(), f.gpuValue())),
					expectFlavors("data.unikorn_flavors.min_memory", flavorList(f.armValue(), f.gpuValue())),
					expectFlavors("data.unikorn_flavors.min_gpus", flavorList(f.gpuValue())),
					expectFlavors("data.unikorn_flavors.too_many_gpus", flavorList()),
					expectFlavors("data.unikorn_flavors.combined", flavorList()),
					expectFlavors("data.unikorn_flavors.other_region", flavorList(f.otherValue())),
					statecheck.ExpectKnownValue("data.unikorn_flavors.other_region", tfjsonpath.New("region"), knownvalue.StringExact(f.otherRegion)),
				},
			},
		},
	})
}

// TestAccFlavorsDataSource_noDescriptions lists the same flavors without the provider's
// descriptions: Nova's values, x86_64, no GPU.
func TestAccFlavorsDataSource_noDescriptions(t *testing.T) {
	f := createTestFlavors(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "unikorn" {
  flavor_ids = [%[1]q]
}

data "unikorn_flavors" "all" {}
`, f.arm),
				ConfigStateChecks: []statecheck.StateCheck{
					expectFlavors("data.unikorn_flavors.all", flavorList(knownvalue.ObjectExact(map[string]knownvalue.Check{
						"architecture": knownvalue.StringExact("x86_64"),
						"baremetal":    knownvalue.Bool(false),
						"cpu_family":   knownvalue.Null(),
						"cpus":         knownvalue.Int64Exact(2),
						"disk_gb":      knownvalue.Int64Exact(10),
						"extra_specs": knownvalue.MapExact(map[string]knownvalue.Check{
							"hw:cpu_policy": knownvalue.StringExact("dedicated"),
							"unikorn:test":  knownvalue.StringExact(f.prefix),
						}),
						"gpu":         knownvalue.Null(),
						"id":          knownvalue.StringExact(f.arm),
						"memory_gib":  knownvalue.Float64Exact(2),
						"name":        knownvalue.StringExact(f.prefix + "-b-arm"),
						"pinned_only": knownvalue.Bool(false),
					}))),
				},
			},
		},
	})
}

// TestAccFlavorDataSource_exactlyOne finds one flavor by name or as the smallest that fits,
// and fails with the list of matches when the filters are ambiguous.
func TestAccFlavorDataSource_exactlyOne(t *testing.T) {
	f := createTestFlavors(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: f.providerConfig() + fmt.Sprintf(`
data "unikorn_flavor" "by_name" {
  name = %[1]q
}

data "unikorn_flavor" "smallest_two_cpus" {
  min_cpus = 2
  smallest = true
}

data "unikorn_flavor" "smallest_gpu" {
  min_gpus = 1
  smallest = true
}

data "unikorn_flavor" "only_arm" {
  architecture = "aarch64"
}

data "unikorn_flavor" "other_region" {
  region = %[2]q
}
`, f.prefix+"-a-plain", f.otherRegion),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_flavor.by_name", tfjsonpath.New("id"), knownvalue.StringExact(f.plain)),
					statecheck.ExpectKnownValue("data.unikorn_flavor.by_name", tfjsonpath.New("flavor"), f.plainValue()),
					statecheck.ExpectKnownValue("data.unikorn_flavor.by_name", tfjsonpath.New("region"), knownvalue.StringExact(f.region)),
					// 8 CPUs but no GPU beat 4 CPUs with two GPUs.
					statecheck.ExpectKnownValue("data.unikorn_flavor.smallest_two_cpus", tfjsonpath.New("flavor"), f.armValue()),
					statecheck.ExpectKnownValue("data.unikorn_flavor.smallest_gpu", tfjsonpath.New("id"), knownvalue.StringExact(f.gpu)),
					statecheck.ExpectKnownValue("data.unikorn_flavor.only_arm", tfjsonpath.New("flavor"), f.armValue()),
					statecheck.ExpectKnownValue("data.unikorn_flavor.other_region", tfjsonpath.New("flavor"), f.otherValue()),
				},
			},
			{
				Config: f.providerConfig() + `
data "unikorn_flavor" "ambiguous" {
  architecture = "x86_64"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Several flavors found.*but 2 match the filters:.*` +
					regexp.QuoteMeta(f.prefix+"-a-plain ("+f.plain+")") + `.*` + regexp.QuoteMeta(f.prefix+"-c-gpu ("+f.gpu+")") +
					`.*smallest = true`),
			},
			{
				Config: f.providerConfig() + `
data "unikorn_flavor" "none" {
  gpu_vendor = "AMD"
}
`,
				ExpectError: regexp.MustCompile(`No flavor found`),
			},
		},
	})
}

// TestAccFlavorsProvider_invalidDescriptions: mistakes in the provider's flavor descriptions
// are plan-time errors that point at the attribute.
func TestAccFlavorsProvider_invalidDescriptions(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
provider "unikorn" {
  flavors = [
    { id = "f-1", memory_gib = 4 },
    { id = "f-2" },
    { id = "f-1", baremetal = true },
  ]
}

data "unikorn_flavors" "all" {}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Duplicate flavor ID.*"f-1" is already described by\s+flavors\[0\]`),
			},
			{
				Config: `
provider "unikorn" {
  flavors = [
    { id = "f-1", gpu = { vendor = "Intel", model = "Max", physical_count = 1 } },
  ]
}

data "unikorn_flavors" "all" {}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)flavors\[0\]\.gpu\.vendor.*value must be one of`),
			},
			{
				Config: `
provider "unikorn" {
  flavors = [
    { id = "f-1", cpu = { architecture = "arm64", count = 0 } },
  ]
}

data "unikorn_flavors" "all" {}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)flavors\[0\]\.cpu\.(architecture|count)`),
			},
			{
				Config: `
provider "unikorn" {
  flavor_ids = []
}

data "unikorn_flavors" "all" {}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)flavor_ids.*at least 1`),
			},
			{
				Config: `
data "unikorn_flavors" "all" {
  min_memory_gib = -1
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)min_memory_gib.*at least 0`),
			},
		},
	})
}
