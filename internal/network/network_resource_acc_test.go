package network_test

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

const networkAddress = "unikorn_network.test"

// networkConfig is one unikorn_network "test" in project with name and the extra arguments.
func networkConfig(project, name, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_network" "test" {
  identity_id = %[1]q
  name        = %[2]q
%[3]s
}
`, project, name, extra)
}

// TestAccNetwork_basic creates a network and checks every part in Neutron, updates DNS,
// routes, description and allocation pool in place (same IDs), replaces it on a new cidr, and
// imports it by REGION/ID and by bare name.
func TestAccNetwork_basic(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)

	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameSubnet := statecheck.CompareValue(compare.ValuesSame())
	sameRouter := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: networkConfig(project, name, `
  cidr            = "192.168.10.0/24"
  dns_nameservers = ["192.0.2.53"]
  routes          = { "10.20.0.0/16" = "192.168.10.254" }
  description     = "acceptance"
`),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(networkAddress, tfjsonpath.New("id")),
					sameSubnet.AddStateValue(networkAddress, tfjsonpath.New("subnet_id")),
					sameRouter.AddStateValue(networkAddress, tfjsonpath.New("router_id")),
					newID.AddStateValue(networkAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("region"), knownvalue.StringExact(def)),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("gateway_ip"), knownvalue.StringExact("192.168.10.1")),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("allocation_pool"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"start": knownvalue.StringExact("192.168.10.128"), "end": knownvalue.StringExact("192.168.10.254"),
					})),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("static_range"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"start": knownvalue.StringExact("192.168.10.2"), "end": knownvalue.StringExact("192.168.10.127"),
					})),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("external_network_id"), knownvalue.StringExact(publicNetworkID(t, def))),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("vlan_id"), knownvalue.Null()),
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
			{
				ResourceName:            networkAddress,
				ImportState:             true,
				ImportStateIdFunc:       importID(networkAddress, "id"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName:            networkAddress,
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				Config: networkConfig(project, name, `
  cidr            = "192.168.10.0/24"
  dns_nameservers = ["192.0.2.54", "192.0.2.53"]
  routes          = { "10.30.0.0/16" = "192.168.10.253", "10.40.0.0/16" = "192.168.10.252" }
  description     = "updated"
  allocation_pool = { start = "192.168.10.100", end = "192.168.10.200" }
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(networkAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(networkAddress, tfjsonpath.New("id")),
					sameSubnet.AddStateValue(networkAddress, tfjsonpath.New("subnet_id")),
					sameRouter.AddStateValue(networkAddress, tfjsonpath.New("router_id")),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("static_range"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"start": knownvalue.StringExact("192.168.10.2"), "end": knownvalue.StringExact("192.168.10.99"),
					})),
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
			{
				Config: networkConfig(project, name, `
  cidr        = "192.168.20.0/24"
  description = "updated"
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(networkAddress, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(networkAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("gateway_ip"), knownvalue.StringExact("192.168.20.1")),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("dns_nameservers"), knownvalue.Null()),
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
		},
	})
}

// TestAccNetwork_multiRegion creates the same name in two regions for one identity: two
// independent networks, each found again (and imported by ID and by name) in its own region.
func TestAccNetwork_multiRegion(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, other := regions(t)

	config := fmt.Sprintf(`
resource "unikorn_network" "one" {
  identity_id = %[1]q
  name        = %[2]q
  cidr        = "10.1.0.0/24"
}

resource "unikorn_network" "two" {
  identity_id = %[1]q
  name        = %[2]q
  region      = %[3]q
  cidr        = "10.2.0.0/24"
}
`, project, name, other)

	steps := []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("unikorn_network.one", tfjsonpath.New("region"), knownvalue.StringExact(def)),
			statecheck.ExpectKnownValue("unikorn_network.two", tfjsonpath.New("region"), knownvalue.StringExact(other)),
			statecheck.CompareValuePairs("unikorn_network.one", tfjsonpath.New("id"), "unikorn_network.two", tfjsonpath.New("id"), compare.ValuesDiffer()),
			statecheck.ExpectKnownValue("unikorn_network.two", tfjsonpath.New("external_network_id"), knownvalue.StringExact(publicNetworkID(t, other))),
		},
		Check: resource.ComposeAggregateTestCheckFunc(
			checkNeutronNetwork(t, "unikorn_network.one"),
			checkNeutronNetwork(t, "unikorn_network.two"),
		),
	}}

	for _, address := range []string{"unikorn_network.one", "unikorn_network.two"} {
		steps = append(steps,
			resource.TestStep{
				ResourceName: address, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
				ImportStateIdFunc: importID(address, "id"),
			},
			resource.TestStep{
				ResourceName: address, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
				ImportStateIdFunc: importID(address, "name"),
			},
		)
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps:                    steps,
	})
}

// TestAccNetwork_disappears deletes the whole network out of band (the plan re-creates it),
// then only its router (the plan updates in place and the apply restores the router).
func TestAccNetwork_disappears(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)
	config := networkConfig(project, name, `  cidr = "10.5.0.0/24"`)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					acctest.NeutronDeleteNetwork(t, project, def, name)
					return nil
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(networkAddress, plancheck.ResourceActionCreate)},
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
			{
				Config: config,
				Check: func(*terraform.State) error {
					acctest.NeutronDeleteRouter(t, project, def, name)
					return nil
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(networkAddress, plancheck.ResourceActionUpdate)},
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
		},
	})
}

// TestAccNetwork_nearMissNames pre-creates network-<name>2 and network-x<name> in the
// project: the apply creates its own network and leaves both untouched, also on destroy.
func TestAccNetwork_nearMissNames(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)

	suffixed := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(name+"2"))
	prefixed := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network("x"+name))

	untouched := func(*terraform.State) error {
		for id, n := range map[string]string{suffixed: name + "2", prefixed: "x" + name} {
			if ids := acctest.NeutronNetworkIDs(t, project, def, naming.Network(n)); !slices.Equal(ids, []string{id}) {
				return fmt.Errorf("network %s: %v, want exactly %s", naming.Network(n), ids, id)
			}
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckNetworkDestroy(t),
			untouched,
		),
		Steps: []resource.TestStep{{
			Config: networkConfig(project, name, `  cidr = "10.6.0.0/24"`),
			Check: resource.ComposeAggregateTestCheckFunc(
				checkNeutronNetwork(t, networkAddress),
				resource.TestCheckResourceAttrWith(networkAddress, "id", func(id string) error {
					if id == suffixed || id == prefixed {
						return fmt.Errorf("the network aliased a near-miss name: %s", id)
					}

					return nil
				}),
				untouched,
			),
		}},
	})
}

// TestAccNetwork_adopt pre-creates network-<name> (as an interrupted apply would leave it):
// the apply adopts it and completes it, and exactly one exists afterwards.
func TestAccNetwork_adopt(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)

	existing := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(name))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{{
			Config: networkConfig(project, name, `  cidr = "10.7.0.0/24"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("id"), knownvalue.StringExact(existing)),
			},
			Check: checkNeutronNetwork(t, networkAddress),
		}},
	})
}

// TestAccNetwork_duplicate pre-creates two networks called network-<name>: the apply fails
// with an error that names both IDs, and creates nothing.
func TestAccNetwork_duplicate(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)

	one := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(name))
	two := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(name))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: networkConfig(project, name, `  cidr = "10.8.0.0/24"`),
			ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)%s.*(%s.*%s|%s.*%s)`,
				wrapped(fmt.Sprintf("consistency error: 2 networks named %q:", naming.Network(name))), one, two, two, one)),
		}},
		CheckDestroy: func(*terraform.State) error {
			if ids := acctest.NeutronNetworkIDs(t, project, def, naming.Network(name)); len(ids) != 2 {
				return fmt.Errorf("networks %s: %v, want the two pre-created ones", naming.Network(name), ids)
			}

			return nil
		},
	})
}

// TestAccNetwork_portInUse puts a port on the network out of band: destroy fails and names
// the port and its owner; once the port is gone, destroy succeeds.
func TestAccNetwork_portInUse(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)
	port := ""

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: networkConfig(project, name, `  cidr = "10.9.0.0/24"`),
				Check: resource.TestCheckResourceAttrWith(networkAddress, "id", func(id string) error {
					port = acctest.NeutronCreatePort(t, project, def, id, "server-"+name, "compute:nova")
					return nil
				}),
			},
			{
				Config:      `# the network is removed from the configuration`,
				ExpectError: regexp.MustCompile(`(?s)still\s+in\s+use.*server-` + regexp.QuoteMeta(name) + `.*compute:nova`),
			},
			{
				PreConfig: func() { acctest.NeutronDeletePort(t, project, def, port) },
				Config:    `# the network is removed from the configuration`,
			},
		},
	})
}

// TestAccNetwork_planTimeValidation rejects bad arguments, and bad provider arguments, at
// plan time, before any API call.
func TestAccNetwork_planTimeValidation(t *testing.T) {
	for _, tt := range []struct{ provider, args, want string }{
		{"", `cidr = "10.0.0.1/24"`, `has host bits set: did you mean 10.0.0.0/24?`},
		{"", `cidr = "10.0.0.0/30"`, `the prefix length must be between 1 and 29`},
		{"", `cidr = "2001:db8::/64"`, `is not an IPv4 prefix`},
		{"", "cidr = \"10.0.0.0/24\"\n  allocation_pool = { start = \"10.0.0.1\", end = \"10.0.0.9\" }", `must start after the gateway 10.0.0.1`},
		{"", "cidr = \"10.0.0.0/24\"\n  allocation_pool = { start = \"10.0.1.1\", end = \"10.0.1.9\" }", `is not inside 10.0.0.0/24`},
		{"", "cidr = \"10.0.0.0/24\"\n  dns_nameservers = [\"8.8.8\"]", `is not an IP address`},
		{"", "cidr = \"10.0.0.0/24\"\n  routes = { \"10.1.0.0/16\" = \"2001:db8::1\" }", `is not an IPv4 address`},
		{"", "cidr = \"10.0.0.0/24\"\n  routes = { \"10.1.0.1/16\" = \"10.0.0.1\" }", `not in canonical form: write 10.1.0.0/16`},
		{"", "cidr = \"10.0.0.0/24\"\n  region = \"Atlantis\"", `region "Atlantis" is not served by this provider`},
		{vlanProvider(`[{ start = 100, end = 110 }, { start = 105, end = 120 }]`), `cidr = "10.0.0.0/24"`, `overlaps the range 100-110`},
		{vlanProvider(`[{ start = 20, end = 10 }]`), `cidr = "10.0.0.0/24"`, `starts at 20, after its end 10`},
		{vlanProvider(`[{ start = 0, end = 10 }]`), `cidr = "10.0.0.0/24"`, `must be between 1 and 4094`},
	} {
		t.Run(tt.want, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tt.provider + networkConfig("plan-only", acctest.RandomName(), "  "+tt.args),
					PlanOnly:    true,
					ExpectError: regexpMust(tt.want),
				}},
			})
		})
	}
}
