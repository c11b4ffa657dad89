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

// createTestFlavors makes the test's flavors. It is the first thing a test does: without
// TF_ACC it makes nothing (the test's steps are validated, then its PreCheck skips it); with
// it, a cloud of one region skips the test (acctest.SecondRegion).
func createTestFlavors(t *testing.T) testFlavors {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return testFlavors{}
	}

	acctest.PreCheck(t)

	region, otherRegion := acctest.FirstRegion(), acctest.SecondRegion(t)

	prefix := acctest.RandomName()
	f := testFlavors{prefix: prefix, gpuModel: "X" + prefix, region: region, otherRegion: otherRegion}

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

// wantFlavor is what a flavor data source reports for one flavor.
type wantFlavor struct {
	id, name, architecture, cpuFamily string
	cpus, diskGB                      int64
	memoryGiB                         float64
	baremetal, pinnedOnly             bool
	extraSpecs                        map[string]string
	gpu                               map[string]knownvalue.Check // nil: no GPU
}

func (w wantFlavor) check() knownvalue.Check {
	var cpuFamily, gpu knownvalue.Check = knownvalue.Null(), knownvalue.Null()
	if w.cpuFamily != "" {
		cpuFamily = knownvalue.StringExact(w.cpuFamily)
	}

	if w.gpu != nil {
		gpu = knownvalue.ObjectExact(w.gpu)
	}

	specs := map[string]knownvalue.Check{}
	for k, v := range w.extraSpecs {
		specs[k] = knownvalue.StringExact(v)
	}

	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact(w.architecture),
		"baremetal":    knownvalue.Bool(w.baremetal),
		"cpu_family":   cpuFamily,
		"cpus":         knownvalue.Int64Exact(w.cpus),
		"disk_gb":      knownvalue.Int64Exact(w.diskGB),
		"extra_specs":  knownvalue.MapExact(specs),
		"gpu":          gpu,
		"id":           knownvalue.StringExact(w.id),
		"memory_gib":   knownvalue.Float64Exact(w.memoryGiB),
		"name":         knownvalue.StringExact(w.name),
		"pinned_only":  knownvalue.Bool(w.pinnedOnly),
	})
}

func (f testFlavors) plainValue() knownvalue.Check {
	return wantFlavor{id: f.plain, name: f.prefix + "-a-plain", architecture: "x86_64", cpus: 1, diskGB: 1, memoryGiB: 1.5}.check()
}

func (f testFlavors) armSpecs() map[string]string {
	return map[string]string{"hw:cpu_policy": "dedicated", "unikorn:test": f.prefix}
}

func (f testFlavors) armValue() knownvalue.Check {
	return wantFlavor{
		id: f.arm, name: f.prefix + "-b-arm", architecture: "aarch64", cpuFamily: "Neoverse V2",
		cpus: 8, diskGB: 10, memoryGiB: 16, pinnedOnly: true, extraSpecs: f.armSpecs(),
	}.check()
}

func (f testFlavors) gpuValue() knownvalue.Check {
	return wantFlavor{
		id: f.gpu, name: f.prefix + "-c-gpu", architecture: "x86_64", cpus: 4, diskGB: 20, memoryGiB: 8, baremetal: true,
		extraSpecs: map[string]string{"resources:VGPU": "1"},
		gpu: map[string]knownvalue.Check{
			"logical_count":  knownvalue.Int64Exact(2),
			"memory_gib":     knownvalue.Int64Exact(80),
			"model":          knownvalue.StringExact(f.gpuModel),
			"physical_count": knownvalue.Int64Exact(2),
			"vendor":         knownvalue.StringExact("NVIDIA"),
		},
	}.check()
}

func (f testFlavors) otherValue() knownvalue.Check {
	return wantFlavor{id: f.otherZone, name: f.prefix + "-d-other", architecture: "x86_64", cpus: 2, diskGB: 5, memoryGiB: 4}.check()
}

// TestAccFlavorsDataSource_enriched lists Nova's flavors through the allow-list, enriched by
// the provider's descriptions, and filters them on every field.
func TestAccFlavorsDataSource_enriched(t *testing.T) {
	f := createTestFlavors(t)

	list := func(name, body string, want ...knownvalue.Check) acctest.Lookup {
		return acctest.Lookup{Name: name, Body: body, Attribute: "flavors", Want: knownvalue.ListExact(want)}
	}

	config, checks := acctest.Lookups("flavors", []acctest.Lookup{
		list("all", "", f.plainValue(), f.armValue(), f.gpuValue()),
		{Name: "all", Attribute: "region", Want: knownvalue.StringExact(f.region)},
		list("aarch64", `architecture = "aarch64"`, f.armValue()),
		list("x86_64", `architecture = "x86_64"`, f.plainValue(), f.gpuValue()),
		list("baremetal", `baremetal = true`, f.gpuValue()),
		list("virtual", `baremetal = false`, f.plainValue(), f.armValue()),
		list("nvidia", `gpu_vendor = "NVIDIA"`, f.gpuValue()),
		list("amd", `gpu_vendor = "AMD"`),
		list("model", fmt.Sprintf(`gpu_model = %q`, f.gpuModel), f.gpuValue()),
		list("min_cpus", `min_cpus = 4`, f.armValue(), f.gpuValue()),
		list("min_memory", `min_memory_gib = 1.75`, f.armValue(), f.gpuValue()),
		list("min_gpus", `min_gpus = 2`, f.gpuValue()),
		list("too_many_gpus", `min_gpus = 3`),
		list("combined", "architecture = \"x86_64\"\nmin_cpus = 2\nbaremetal = false\n"),
		list("other_region", fmt.Sprintf(`region = %q`, f.otherRegion), f.otherValue()),
		{Name: "other_region", Attribute: "region", Want: knownvalue.StringExact(f.otherRegion)},
	})

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: f.providerConfig() + config, ConfigStateChecks: checks}},
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
				Config: fmt.Sprintf("provider \"unikorn\" {\n  flavor_ids = [%[1]q]\n}\n\ndata \"unikorn_flavors\" \"all\" {}\n", f.arm),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_flavors.all", tfjsonpath.New("flavors"), knownvalue.ListExact([]knownvalue.Check{wantFlavor{
						id: f.arm, name: f.prefix + "-b-arm", architecture: "x86_64", cpus: 2, diskGB: 10, memoryGiB: 2,
						extraSpecs: f.armSpecs(),
					}.check()})),
				},
			},
		},
	})
}

// TestAccFlavorDataSource_exactlyOne finds one flavor by name or as the smallest that fits,
// and fails with the list of matches when the filters are ambiguous.
func TestAccFlavorDataSource_exactlyOne(t *testing.T) {
	f := createTestFlavors(t)

	config, checks := acctest.Lookups("flavor", []acctest.Lookup{
		{Name: "by_name", Body: fmt.Sprintf(`name = %q`, f.prefix+"-a-plain"), Attribute: "id", Want: knownvalue.StringExact(f.plain)},
		{Name: "by_name", Attribute: "flavor", Want: f.plainValue()},
		{Name: "by_name", Attribute: "region", Want: knownvalue.StringExact(f.region)},
		// 8 CPUs but no GPU beat 4 CPUs with two GPUs.
		{Name: "smallest_two_cpus", Body: "min_cpus = 2\nsmallest = true\n", Attribute: "flavor", Want: f.armValue()},
		{Name: "smallest_gpu", Body: "min_gpus = 1\nsmallest = true\n", Attribute: "id", Want: knownvalue.StringExact(f.gpu)},
		{Name: "only_arm", Body: `architecture = "aarch64"`, Attribute: "flavor", Want: f.armValue()},
		{Name: "other_region", Body: fmt.Sprintf(`region = %q`, f.otherRegion), Attribute: "flavor", Want: f.otherValue()},
	})

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: f.providerConfig() + config, ConfigStateChecks: checks},
			{
				Config: f.providerConfig() + `data "unikorn_flavor" "ambiguous" { architecture = "x86_64" }`,
				ExpectError: regexp.MustCompile(`(?s)Several flavors found.*but 2 match the filters:.*` +
					regexp.QuoteMeta(f.prefix+"-a-plain ("+f.plain+")") + `.*` + regexp.QuoteMeta(f.prefix+"-c-gpu ("+f.gpu+")") +
					`.*smallest = true`),
			},
			{
				Config:      f.providerConfig() + `data "unikorn_flavor" "none" { gpu_vendor = "AMD" }`,
				ExpectError: regexp.MustCompile(`No flavor found`),
			},
		},
	})
}

// TestAccFlavorsProvider_invalidDescriptions: mistakes in the provider's flavor descriptions
// are plan-time errors that point at the attribute.
func TestAccFlavorsProvider_invalidDescriptions(t *testing.T) {
	config := func(provider, dataSource string) string {
		return fmt.Sprintf("provider \"unikorn\" {\n  %s\n}\n\ndata \"unikorn_flavors\" \"all\" %s\n", provider, dataSource)
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: acctest.PlanErrors([]acctest.PlanError{
			{
				Config: config(`flavors = [{ id = "f-1", memory_gib = 4 }, { id = "f-2" }, { id = "f-1", baremetal = true }]`, `{}`),
				Error:  `(?s)Duplicate flavor ID.*"f-1" is already described by\s+flavors\[0\]`,
			},
			{
				Config: config(`flavors = [{ id = "f-1", gpu = { vendor = "Intel", model = "Max", physical_count = 1 } }]`, `{}`),
				Error:  `(?s)flavors\[0\]\.gpu\.vendor.*value must be one of`,
			},
			{
				Config: config(`flavors = [{ id = "f-1", cpu = { architecture = "arm64", count = 0 } }]`, `{}`),
				Error:  `(?s)flavors\[0\]\.cpu\.(architecture|count)`,
			},
			{Config: config(`flavor_ids = []`, `{}`), Error: `(?s)flavor_ids.*at least 1`},
			{Config: config(``, `{ min_memory_gib = -1 }`), Error: `(?s)min_memory_gib.*at least 0`},
		}),
	})
}
