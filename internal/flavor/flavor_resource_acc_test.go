package flavor_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
)

const flavorAddress = "unikorn_flavor.test"

// flavorConfig is one unikorn_flavor "test" called name with the extra arguments.
func flavorConfig(name, extra string) string {
	return fmt.Sprintf("resource \"unikorn_flavor\" \"test\" {\n  name = %q\n%s\n}\n", name, extra)
}

// publicSizes are the sizes of the public test flavor, with vcpus CPUs.
func publicSizes(vcpus int) string {
	return fmt.Sprintf("  vcpus        = %d\n  ram_mib      = 1536\n  disk_gb      = 2\n  ephemeral_gb = 1\n  swap_mib     = 256\n", vcpus)
}

// seenBy is a unikorn_flavor data source that looks the flavor up by name once it is made.
const seenBy = `
data "unikorn_flavor" "seen" {
  name       = unikorn_flavor.test.name
  depends_on = [unikorn_flavor.test]
}
`

// TestAccFlavorResource_public creates a public flavor with extra specs, which the flavor data
// source sees; imports it by REGION/ID and REGION/name; changes its extra specs in place; and
// replaces it on a new vcpus.
func TestAccFlavorResource_public(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	def := acctest.Client(t).DefaultRegion()

	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkFlavorDestroy(t),
		Steps: append(append([]resource.TestStep{
			{
				Config: flavorConfig(name, publicSizes(3)+`  extra_specs  = { "hw:cpu_policy" = "dedicated", "unikorn:acctest" = "one" }`) + seenBy,
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					newID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					statecheck.CompareValuePairs(flavorAddress, tfjsonpath.New("id"), flavorAddress, tfjsonpath.New("flavor_id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("region"), knownvalue.StringExact(def)),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("is_public"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("access_project_ids"), knownvalue.Null()),
					// The data sources see the flavor, enriched like any other.
					statecheck.CompareValuePairs("data.unikorn_flavor.seen", tfjsonpath.New("id"), flavorAddress, tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.unikorn_flavor.seen", tfjsonpath.New("flavor").AtMapKey("cpus"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue("data.unikorn_flavor.seen", tfjsonpath.New("flavor").AtMapKey("memory_gib"), knownvalue.Float64Exact(1.5)),
					statecheck.ExpectKnownValue("data.unikorn_flavor.seen", tfjsonpath.New("flavor").AtMapKey("disk_gb"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("data.unikorn_flavor.seen", tfjsonpath.New("flavor").AtMapKey("extra_specs"), knownvalue.MapExact(map[string]knownvalue.Check{
						"hw:cpu_policy": knownvalue.StringExact("dedicated"), "unikorn:acctest": knownvalue.StringExact("one"),
					})),
				},
				Check: checkNovaFlavor(t),
			},
		}, acctest.ImportSteps(flavorAddress)...), []resource.TestStep{
			{
				Config: flavorConfig(name, publicSizes(3)+`  extra_specs  = { "unikorn:acctest" = "two", "unikorn:added" = "yes" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(flavorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(flavorAddress, tfjsonpath.New("id"))},
				Check:             checkNovaFlavor(t),
			},
			{
				Config: flavorConfig(name, publicSizes(4)) + seenBy,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(flavorAddress, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("extra_specs"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.unikorn_flavor.seen", tfjsonpath.New("flavor").AtMapKey("cpus"), knownvalue.Int64Exact(4)),
				},
				Check: checkNovaFlavor(t),
			},
		}...),
	})
}

// TestAccFlavorResource_private creates a private flavor with a given ID in the second region,
// given to one project; the flavor data source does not see it; it is imported; it is given
// to a second project and then taken from both, in place.
func TestAccFlavorResource_private(t *testing.T) {
	acctest.PreCheck(t)

	other := acctest.SecondRegion(t)
	name := acctest.RandomName()
	p1, p2 := bareProject(t), bareProject(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())

	config := func(access string) string {
		return flavorConfig(name, fmt.Sprintf(`
  region    = %q
  flavor_id = "%s-id"
  vcpus     = 1
  ram_mib   = 512
  is_public = false
%s`, other, name, access))
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkFlavorDestroy(t),
		Steps: append(append([]resource.TestStep{
			{
				Config: config(fmt.Sprintf("  access_project_ids = [%q]", p1)),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("id"), knownvalue.StringExact(name+"-id")),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("region"), knownvalue.StringExact(other)),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("access_project_ids"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(p1)})),
				},
				Check: checkNovaFlavor(t),
			},
			{
				Config: config(fmt.Sprintf("  access_project_ids = [%q]", p1)) + fmt.Sprintf(`
data "unikorn_flavor" "hidden" {
  region = %q
  name   = unikorn_flavor.test.name
}
`, other),
				ExpectError: regexp.MustCompile(`No flavor found`),
			},
			{
				// The import steps run with this configuration, without the failing look-up.
				Config:   config(fmt.Sprintf("  access_project_ids = [%q]", p1)),
				PlanOnly: true,
			},
		}, acctest.ImportSteps(flavorAddress)...), []resource.TestStep{
			{
				Config: config(fmt.Sprintf("  access_project_ids = [%q, %q]", p1, p2)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(flavorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("access_project_ids"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(p1), knownvalue.StringExact(p2)})),
				},
				Check: checkNovaFlavor(t),
			},
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(flavorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(flavorAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(flavorAddress, tfjsonpath.New("access_project_ids"), knownvalue.Null()),
				},
				Check: checkNovaFlavor(t),
			},
		}...),
	})
}

// TestAccFlavorResource_drift changes the flavor's extra specs out of band (the plan updates
// it in place and the apply restores them), then deletes it out of band (the plan creates it
// again).
func TestAccFlavorResource_drift(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	def := acctest.Client(t).DefaultRegion()
	config := flavorConfig(name, `
  vcpus       = 1
  ram_mib     = 640
  extra_specs = { "unikorn:acctest" = "kept" }
`)

	drift := func(change func(id string), action plancheck.ResourceActionType) []resource.TestStep {
		return acctest.DriftSteps(config, flavorAddress, change, action, checkNovaFlavor(t))
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkFlavorDestroy(t),
		Steps: append(
			drift(func(id string) {
				changeOutOfBand(t, def, id, map[string]string{"unikorn:acctest": "changed", "unikorn:foreign": "x"})
			}, plancheck.ResourceActionUpdate),
			drift(func(id string) { deleteOutOfBand(t, def, id) }, plancheck.ResourceActionCreate)...),
	})
}

// TestAccFlavorResource_existing pre-creates flavors by hand: a flavor carries no mark of who
// made it, so a create adopts none. One of the name with the same sizes is refused ("exists:
// import it") like one with other sizes (which also says how they differ), both left untouched.
func TestAccFlavorResource_existing(t *testing.T) {
	acctest.PreCheck(t)

	name, other := acctest.RandomName(), acctest.RandomName()
	same := acctest.CreateFlavor(t, acctest.FlavorSpec{Name: name, VCPUs: 1, RAMMiB: 768, DiskGB: 1,
		ExtraSpecs: map[string]string{"unikorn:stale": "x"}})
	different := acctest.CreateFlavor(t, acctest.FlavorSpec{Name: other, VCPUs: 2, RAMMiB: 768, DiskGB: 1})
	def := acctest.Client(t).DefaultRegion()

	untouched := func(*terraform.State) error {
		for n, id := range map[string]string{name: same, other: different} {
			named, err := novaFlavorsNamed(t, def, n)
			if err != nil || len(named) != 1 || named[0].ID != id {
				return fmt.Errorf("flavor %s: %+v (%v), want %s untouched", n, named, err, id)
			}
		}

		specs, err := flavors.ListExtraSpecs(context.Background(), acctest.AdminCompute(t, def), same).Extract()
		if err != nil || !maps.Equal(specs, map[string]string{"unikorn:stale": "x"}) {
			return fmt.Errorf("the extra specs of %s: %v (%v), want them untouched", same, specs, err)
		}

		return nil
	}

	sizes := "  vcpus   = 1\n  ram_mib = 768\n  disk_gb = 1\n"

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkFlavorDestroy(t), untouched),
		Steps: []resource.TestStep{
			{
				Config:      flavorConfig(name, sizes+`  extra_specs = { "unikorn:acctest" = "adopted" }`),
				ExpectError: regexp.MustCompile(`(?s)Flavor exists already.*` + same + `.*terraform\s+import\s+unikorn_flavor`),
			},
			{
				Config:      flavorConfig(other, sizes),
				ExpectError: regexp.MustCompile(`(?s)already\s+exists.*` + different + `.*vcpus\s+2\s+\(wanted\s+1\)`),
			},
		},
	})
}

// TestAccFlavorResource_validation: mistakes are plan-time errors at their attribute.
func TestAccFlavorResource_validation(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	sizes := "  vcpus   = 1\n  ram_mib = 512\n"

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: acctest.PlanErrors([]acctest.PlanError{
			{Config: flavorConfig(name, "  vcpus   = 1\n  ram_mib = 0\n"), Error: `(?s)ram_mib.*at least 1, got: 0`},
			{Config: flavorConfig(name, "  vcpus   = 0\n  ram_mib = 512\n"), Error: `(?s)vcpus.*at least 1, got: 0`},
			{Config: flavorConfig(name, sizes+"  disk_gb = -1\n"), Error: `(?s)disk_gb.*at least 0`},
			{Config: flavorConfig(name, sizes+`  access_project_ids = ["p1"]`), Error: `(?s)Access list on a public flavor.*access_project_ids`},
			{Config: flavorConfig(name, sizes+"  is_public = true\n  access_project_ids = [\"p1\"]"), Error: `Access list on a public flavor`},
			{Config: flavorConfig(name, sizes+`  flavor_id = "a/b"`), Error: `(?s)Invalid flavor ID.*flavor_id = "a/b"`},
			{Config: flavorConfig(" "+name, sizes), Error: `(?s)Invalid name.*starts or ends with white space`},
			{Config: flavorConfig(name, sizes+"  extra_specs = {}"), Error: `(?s)extra_specs.*at least 1`},
			{Config: flavorConfig(name, sizes+`  region = "Nowhere"`), Error: `Region not served`},
		}),
		CheckDestroy: func(*terraform.State) error {
			if named, err := novaFlavorsNamed(t, acctest.Client(t).DefaultRegion(), name); err != nil || len(named) > 0 {
				return fmt.Errorf("flavors %s were created: %v (%v)", name, named, err)
			}

			return nil
		},
	})
}

// TestAccFlavorResource_requestCount measures the HTTP requests of one create and one refresh
// of a public and of a private flavor with extra specs, each from a cold client.
func TestAccFlavorResource_requestCount(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	project := bareProject(t)

	for _, public := range []bool{true, false} {
		t.Run(fmt.Sprintf("public=%v", public), func(t *testing.T) {
			ctx := context.Background()
			spec := flavor.ManagedSpec{
				Name: acctest.RandomName(), VCPUs: 1, RAMMiB: 512, Public: public,
				ExtraSpecs: map[string]string{"unikorn:acctest": "count"},
			}

			if !public {
				spec.Access = []string{project}
			}

			a, count := coldAdmin(t)
			before := count()

			out, err := a.Ensure(ctx, spec)
			if out != nil {
				t.Cleanup(func() {
					if err := a.Delete(context.Background(), out.ID); err != nil {
						t.Errorf("deleting %s: %v", out.ID, err)
					}
				})
			}

			if err != nil {
				t.Fatal(err)
			}

			t.Logf("create: %d requests", count()-before)

			a2, count2 := coldAdmin(t)
			before = count2()

			if got, err := a2.Observe(ctx, out.ID); err != nil || got == nil {
				t.Fatalf("refresh: %+v, %v", got, err)
			}

			t.Logf("refresh: %d requests", count2()-before)
		})
	}
}

// coldAdmin is the flavor core of the default region on a fresh client (its Nova client
// already built, as the provider's Configure leaves it), and its request counter.
func coldAdmin(t *testing.T) (*flavor.Admin, func() int64) {
	t.Helper()

	c := acctest.FreshClient(t)
	region := c.DefaultRegion()

	compute, err := c.Base().Compute(region)
	if err != nil {
		t.Fatal(err)
	}

	return flavor.NewAdmin(compute, region, c.AdminRefusal), c.RequestCount
}
