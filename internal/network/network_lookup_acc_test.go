package network_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccNetworkLookup_otherRegion: a unikorn_network applied in the second region while the
// provider's default is the first. unikorn_network finds it by name (twice, in one project and
// region: one listing of the project's networks per run) and by bare ID (searched in every
// served region: found in the second), each showing what the resource shows; the resource is then
// imported by its bare ID. A name nobody has and a name two networks have are refused.
func TestAccNetworkLookup_otherRegion(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, other := regions(t)

	network := fmt.Sprintf(`
resource "unikorn_network" "n" {
  identity_id = %[1]q
  name        = %[2]q
  cidr        = "10.31.0.0/24"
  region      = %[3]q
}
`, project, name, other)

	lookups := fmt.Sprintf(`
data "unikorn_network" "by_name" {
  identity_id = %[1]q
  name        = unikorn_network.n.name
  region      = %[2]q
}

data "unikorn_network" "by_name_again" {
  identity_id = %[1]q
  name        = unikorn_network.n.name
  region      = %[2]q
}

data "unikorn_network" "by_id" {
  id = unikorn_network.n.id
}
`, project, other)

	same := func(attr string) []statecheck.StateCheck {
		c := statecheck.CompareValue(compare.ValuesSame())

		return []statecheck.StateCheck{
			c.AddStateValue("unikorn_network.n", tfjsonpath.New(attr)),
			c.AddStateValue("data.unikorn_network.by_name", tfjsonpath.New(attr)),
			c.AddStateValue("data.unikorn_network.by_id", tfjsonpath.New(attr)),
		}
	}

	// checks are a step's (a comparison holds the values of one step).
	checks := func() []statecheck.StateCheck {
		out := []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.unikorn_network.by_id", tfjsonpath.New("region"), knownvalue.StringExact(other)),
			statecheck.ExpectKnownValue("data.unikorn_network.by_id", tfjsonpath.New("name"), knownvalue.StringExact(name)),
			statecheck.ExpectKnownValue("data.unikorn_network.by_id", tfjsonpath.New("identity_id"), knownvalue.StringExact(project)),
			statecheck.ExpectKnownValue("data.unikorn_network.by_name", tfjsonpath.New("cidr"), knownvalue.StringExact("10.31.0.0/24")),
		}
		for _, attr := range []string{"id", "subnet_id", "router_id", "gateway_ip", "external_network_id", "allocation_pool", "dns_nameservers"} {
			out = append(out, same(attr)...)
		}

		return out
	}

	log := acctest.NewRequestLog()
	logged := 0

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{Config: acctest.ProviderRegion(def) + network + lookups, ConfigStateChecks: checks()},
			// A run that only reads: the two look-ups by name and the resource's refresh share one listing.
			{
				Config: acctest.ProviderRegion(def) + network + lookups, ConfigStateChecks: checks(),
				Check: listedForTheRun(log, &logged, "network", 3, map[string]int{other + " " + project: 1}),
			},
			{
				ResourceName: "unikorn_network.n", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources["unikorn_network.n"].Primary.ID, nil
				},
				ImportStateVerifyIgnore: []string{"timeouts"},
				Config:                  acctest.ProviderRegion(def) + network,
			},
			{
				Config: acctest.ProviderRegion(def) + network + fmt.Sprintf(`
data "unikorn_network" "missing" {
  identity_id = %q
  name        = "no-such-%s"
  region      = %q
}
`, project, name, other),
				ExpectError: acctest.Wrapped("No network found", fmt.Sprintf(`No network is called "no-such-%s" in identity_id %s in region %s.`, name, project, other)),
			},
		},
	})
}

// TestAccNetworkLookup_madeByUnikorn: a network made in the cloud as Unikorn's region service
// makes it (network, subnet and router network-<Unikorn ID>, in an identity Unikorn made:
// acctest's fixtures reproduce nscaledev/uni-region pkg/providers/internal/openstack/provider.go
// CreateIdentity and CreateNetwork, see internal/acctest/unikorn.go and unikorn_network.go) is found
// by its Unikorn ID as name and by its Neutron ID, with its subnet and router, and left as it
// was. A second bare network of the same Neutron name makes the name ambiguous: refused, both
// listed.
func TestAccNetworkLookup_madeByUnikorn(t *testing.T) {
	acctest.PreCheck(t)

	def := defaultRegion(t)
	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-"+acctest.RandomName(), "proj-"+acctest.RandomName())
	n := u.CreateNetwork(t, def, "10.32.0.0/24")

	lookups := fmt.Sprintf(`
data "unikorn_network" "by_name" {
  identity_id = %[1]q
  name        = %[2]q
}

data "unikorn_network" "by_id" {
  id = %[3]q
}
`, u.ProjectID, n.ID, n.NetworkID)

	expect := func(address string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(n.NetworkID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("name"), knownvalue.StringExact(n.ID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("subnet_id"), knownvalue.StringExact(n.SubnetID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("router_id"), knownvalue.StringExact(n.RouterID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("cidr"), knownvalue.StringExact(n.CIDR)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("identity_id"), knownvalue.StringExact(u.ProjectID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(def)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("allocation_pool"), knownvalue.ObjectExact(map[string]knownvalue.Check{
				"start": knownvalue.StringExact(n.PoolStart), "end": knownvalue.StringExact(n.PoolEnd),
			})),
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            lookups,
				ConfigStateChecks: append(expect("data.unikorn_network.by_name"), expect("data.unikorn_network.by_id")...),
				Check:             func(*terraform.State) error { return n.Unchanged(t) },
			},
			{
				PreConfig:   func() { acctest.NeutronCreateBareNetwork(t, u.ProjectID, def, naming.Network(n.ID)) },
				Config:      lookups,
				ExpectError: regexp.MustCompile(`(?s)Several networks found.*` + n.NetworkID),
			},
		},
	})
}
