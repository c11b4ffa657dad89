package network_test

import (
	"cmp"
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
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

const networkAddress = "unikorn_network.test"

// networkConfig is one unikorn_network "test" in project with name and the extra arguments.
func networkConfig(project, name, extra string) string {
	return accKinds[0].config(project, name, "test", extra)
}

// TestAccNetwork_basic creates a network and checks every part in Neutron, updates DNS,
// routes, description and allocation pool in place (same IDs), replaces it on a new cidr, and
// imports it by REGION/ID and by bare name.
func TestAccNetwork_basic(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

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
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("external_network_id"), knownvalue.StringExact(acctest.PublicNetworkID(t, def))),
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("vlan_id"), knownvalue.Null()),
				},
				Check: checkNeutronNetwork(t, networkAddress),
			},
			acctest.ImportStep(networkAddress, acctest.ImportID(networkAddress, "id")),
			acctest.ImportStep(networkAddress, acctest.ImportedAs(name)),
			{
				Config: networkConfig(project, name, `
  cidr            = "192.168.10.0/24"
  dns_nameservers = ["192.0.2.54", "192.0.2.53"]
  routes          = { "10.30.0.0/16" = "192.168.10.253", "10.40.0.0/16" = "192.168.10.252" }
  description     = "updated"
  allocation_pool = { start = "192.168.10.100", end = "192.168.10.200" }
`),
				ConfigPlanChecks: acctest.Expect(networkAddress, plancheck.ResourceActionUpdate),
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
				ConfigPlanChecks: acctest.Expect(networkAddress, plancheck.ResourceActionReplace),
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
// independent networks, each routed through its own region's external network and found again
// (and imported by ID and by name) in its own region.
func TestAccNetwork_multiRegion(t *testing.T) {
	project := tenant(t)
	def, other := regions(t)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: multiRegionSteps(t, accKinds[0], project, acctest.RandomName(), other,
			[2]string{`cidr = "10.1.0.0/24"`, `cidr = "10.2.0.0/24"`},
			[]statecheck.StateCheck{
				statecheck.ExpectKnownValue("unikorn_network.one", tfjsonpath.New("region"), knownvalue.StringExact(def)),
				statecheck.ExpectKnownValue("unikorn_network.two", tfjsonpath.New("external_network_id"), knownvalue.StringExact(acctest.PublicNetworkID(t, other))),
			},
			resource.ComposeAggregateTestCheckFunc(
				checkNeutronNetwork(t, "unikorn_network.one"),
				checkNeutronNetwork(t, "unikorn_network.two"),
			)),
	})
}

// TestAccNetwork_disappears deletes the whole network out of band (the plan re-creates it),
// then only its router (the plan updates in place and the apply restores the router).
func TestAccNetwork_disappears(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)
	config := networkConfig(project, name, `  cidr = "10.5.0.0/24"`)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: slices.Concat(
			acctest.DriftSteps(config, networkAddress, func(string) { acctest.NeutronDeleteNetwork(t, project, def, name) },
				plancheck.ResourceActionCreate, checkNeutronNetwork(t, networkAddress)),
			acctest.DriftSteps(config, networkAddress, func(string) { acctest.NeutronDeleteRouter(t, project, def, name) },
				plancheck.ResourceActionUpdate, checkNeutronNetwork(t, networkAddress)),
		),
	})
}

// TestAccNetwork_nearMissNames pre-creates network-<name>2 and network-x<name> in the
// project: the apply creates its own network and leaves both untouched, also on destroy.
func TestAccNetwork_nearMissNames(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

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

// TestAccNetwork_adopt pre-creates network-<name> by hand: the apply refuses it (it says how to
// import it) and writes nothing. Marked as an interrupted create leaves it (the creation mark,
// no completion mark), the next apply adopts and completes it, and exactly one exists afterwards.
func TestAccNetwork_adopt(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

	existing := acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(name))
	config := networkConfig(project, name, `  cidr = "10.7.0.0/24"`)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)` + existsPattern("network", naming.Network(name), "this provider did not make it", "unikorn_network")),
			},
			{
				PreConfig: func() {
					if s := snapshot(t, project, def, name); len(s.SubnetCIDRs) != 0 || len(s.RouterIDs) != 0 || s.NetworkDescription != "" ||
						neutronMarkOf(t, project, def, network.TagNetworks, existing).Marked() {
						t.Fatalf("the refused create wrote: %+v", s)
					}

					markAsInterrupted(t, project, def, network.TagNetworks, network.TypeNetwork, existing)
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("id"), knownvalue.StringExact(existing)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkNeutronNetwork(t, networkAddress),
					checkMark(t, networkAddress, "id", network.TagNetworks, naming.MadeFor(network.TypeNetwork).Done()),
				),
			},
		},
	})
}

// TestAccNetwork_cidrOverlapsExternalNetwork plans a network whose cidr overlaps the subnet
// of its external network, the default one and the one named explicitly: both plans fail and
// say so, and nothing is created.
func TestAccNetwork_cidrOverlapsExternalNetwork(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)
	public := acctest.PublicNetworkID(t, def)
	overlapping := acctest.ExternalSubnetCIDR(t, def, public)

	want := regexpMust(fmt.Sprintf("cidr %s overlaps", overlapping))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      networkConfig(project, name, fmt.Sprintf("  cidr = %q", overlapping)),
				PlanOnly:    true,
				ExpectError: want,
			},
			{
				Config:      networkConfig(project, name, fmt.Sprintf("  cidr = %q\n  external_network_id = %q", overlapping, public)),
				PlanOnly:    true,
				ExpectError: want,
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if ids := acctest.NeutronNetworkIDs(t, project, def, naming.Network(name)); len(ids) != 0 {
				return fmt.Errorf("networks %s were created: %v", naming.Network(name), ids)
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
	def := defaultRegion(t)
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

// The tests that unikorn_network shares with unikorn_security_group, as tables over the two
// kinds.

// accKind describes one resource of the package to the shared tests.
type accKind struct {
	name      string // the test name: "network"
	typ       string // "unikorn_network"
	plural    string // as consistency errors name them: "networks"
	cloudName func(string) string
	// args are the arguments a minimal configuration needs besides identity_id and name.
	args string
	// createBare makes an object called neutronName out of band and returns its ID.
	createBare func(t *testing.T, project, region, neutronName string) string
	// ids lists the IDs of the objects called neutronName.
	ids func(t *testing.T, project, region, neutronName string) []string
	// check asks Neutron that the object at address is what the state says.
	check   func(t *testing.T, address string) resource.TestCheckFunc
	destroy func(t *testing.T) func(*terraform.State) error
}

var accKinds = []accKind{
	{
		name: "network", typ: "unikorn_network", plural: "networks", cloudName: naming.Network,
		args:       `cidr = "10.8.0.0/24"`,
		createBare: acctest.NeutronCreateBareNetwork,
		ids:        acctest.NeutronNetworkIDs,
		check:      checkNeutronNetwork,
		destroy:    acctest.CheckNetworkDestroy,
	},
	{
		name: "security group", typ: "unikorn_security_group", plural: "security groups", cloudName: naming.SecurityGroup,
		args:       `rules = [{ direction = "ingress", protocol = "tcp", port = 22 }]`,
		createBare: acctest.NeutronCreateSecurityGroup,
		ids:        acctest.NeutronSecurityGroupIDs,
		check: func(t *testing.T, address string) resource.TestCheckFunc {
			return checkNeutronRules(t, address, nil, append([]string{"ingress IPv4 tcp 22-22 0.0.0.0/0"}, defaultEgress...)...)
		},
		destroy: acctest.CheckSecurityGroupDestroy,
	},
}

// config is the resource `label` of the kind in project with name and the arguments.
func (k accKind) config(project, name, label, args string) string {
	return fmt.Sprintf(`
resource %[1]q %[2]q {
  identity_id = %[3]q
  name        = %[4]q
  %[5]s
}
`, k.typ, label, project, name, args)
}

func (k accKind) address(label string) string { return k.typ + "." + label }

// forEachKind runs test for every kind, in parallel subtests.
func forEachKind(t *testing.T, test func(t *testing.T, k accKind)) {
	for _, k := range accKinds {
		t.Run(k.name, func(t *testing.T) { test(t, k) })
	}
}

// TestAccTenant_duplicate pre-creates two objects with the name: the apply fails with an
// error that names both IDs, and creates nothing (the two pre-created ones stay the only ones).
func TestAccTenant_duplicate(t *testing.T) {
	forEachKind(t, func(t *testing.T, k accKind) {
		project := tenant(t)
		name := acctest.RandomName()
		def := defaultRegion(t)

		one := k.createBare(t, project, def, k.cloudName(name))
		two := k.createBare(t, project, def, k.cloudName(name))

		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: k.config(project, name, "test", k.args),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)%s.*(%s.*%s|%s.*%s)`,
					wrapped(fmt.Sprintf("consistency error: 2 %s named %q:", k.plural, k.cloudName(name))), one, two, two, one)),
			}},
			CheckDestroy: func(*terraform.State) error {
				if ids := k.ids(t, project, def, k.cloudName(name)); len(ids) != 2 {
					return fmt.Errorf("%s %s: %v, want the two pre-created ones", k.plural, k.cloudName(name), ids)
				}

				return nil
			},
		})
	})
}

// TestAccTenant_regionRule applies with the provider's default region the first region and
// region unset, then changes only the provider's default to the second: the plan is empty and
// the object stays in the first, in the state and in the cloud. Setting region explicitly then
// replaces the object into that region.
func TestAccTenant_regionRule(t *testing.T) {
	forEachKind(t, func(t *testing.T, k accKind) {
		project := tenant(t)
		first, second := acctest.FirstRegion(), acctest.SecondRegion(t)
		name := acctest.RandomName()
		address := k.address("test")
		config := k.config(project, name, "test", k.args)

		sameID := statecheck.CompareValue(compare.ValuesSame())
		newID := statecheck.CompareValue(compare.ValuesDiffer())

		inRegion := func(region string) resource.TestCheckFunc {
			return resource.TestCheckResourceAttrWith(address, "id", func(id string) error {
				if ids := k.ids(t, project, region, k.cloudName(name)); !slices.Equal(ids, []string{id}) {
					return fmt.Errorf("%s %s in %s: %v, want exactly %s", k.plural, k.cloudName(name), region, ids, id)
				}

				return nil
			})
		}

		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			CheckDestroy:             k.destroy(t),
			Steps: []resource.TestStep{
				{
					Config: acctest.ProviderRegion(first) + config,
					ConfigStateChecks: []statecheck.StateCheck{
						sameID.AddStateValue(address, tfjsonpath.New("id")),
						newID.AddStateValue(address, tfjsonpath.New("id")),
						statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(first)),
					},
					Check: resource.ComposeAggregateTestCheckFunc(k.check(t, address), inRegion(first)),
				},
				{
					Config: acctest.ProviderRegion(second) + config,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						sameID.AddStateValue(address, tfjsonpath.New("id")),
						statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(first)),
					},
					Check: resource.ComposeAggregateTestCheckFunc(k.check(t, address), inRegion(first)),
				},
				{
					Config:           acctest.ProviderRegion(first) + k.config(project, name, "test", k.args+fmt.Sprintf("\n  region = %q", second)),
					ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionReplace),
					ConfigStateChecks: []statecheck.StateCheck{
						newID.AddStateValue(address, tfjsonpath.New("id")),
						statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(second)),
					},
					Check: resource.ComposeAggregateTestCheckFunc(k.check(t, address), inRegion(second),
						func(*terraform.State) error {
							if ids := k.ids(t, project, first, k.cloudName(name)); len(ids) != 0 {
								return fmt.Errorf("%s %s is left in %s: %v", k.plural, k.cloudName(name), first, ids)
							}

							return nil
						}),
				},
			},
		})
	})
}

// multiRegionSteps are the steps of a test that makes the same name in two regions for one
// identity, as "one" (default region, args[0]) and "two" (region other, args[1]): two
// independent objects, each found again (and imported by REGION/ID and REGION/name) in its own
// region.
func multiRegionSteps(t *testing.T, k accKind, project, name, other string, args [2]string,
	checks []statecheck.StateCheck, check resource.TestCheckFunc,
) []resource.TestStep {
	t.Helper()

	one, two := k.address("one"), k.address("two")
	config := k.config(project, name, "one", args[0]) + k.config(project, name, "two", args[1]+fmt.Sprintf("\n  region = %q", other))

	steps := []resource.TestStep{{
		Config: config,
		ConfigStateChecks: append([]statecheck.StateCheck{
			statecheck.ExpectKnownValue(two, tfjsonpath.New("region"), knownvalue.StringExact(other)),
			statecheck.CompareValuePairs(one, tfjsonpath.New("id"), two, tfjsonpath.New("id"), compare.ValuesDiffer()),
		}, checks...),
		Check: check,
	}}

	steps = append(steps, acctest.ImportSteps(one)...)

	return append(steps, acctest.ImportSteps(two)...)
}

// TestAccTenant_planTimeValidation rejects bad arguments, and bad provider arguments, at
// plan time, before any API call.
func TestAccTenant_planTimeValidation(t *testing.T) {
	network, group := accKinds[0], accKinds[1]
	// Plan-time checks of the ranges ask Neutron nothing: any physical network name does.
	physnet := cmp.Or(acctest.Physnet, "tf-acc-physnet")

	for _, tt := range []struct {
		kind                 accKind
		provider, args, want string
	}{
		{network, "", `cidr = "10.0.0.1/24"`, `has host bits set: did you mean 10.0.0.0/24?`},
		{network, "", `cidr = "10.0.0.0/30"`, `the prefix length must be between 1 and 29`},
		{network, "", `cidr = "2001:db8::/64"`, `is not an IPv4 prefix`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  allocation_pool = { start = \"10.0.0.1\", end = \"10.0.0.9\" }", `must start after the gateway 10.0.0.1`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  allocation_pool = { start = \"10.0.1.1\", end = \"10.0.1.9\" }", `is not inside 10.0.0.0/24`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  dns_nameservers = [\"8.8.8\"]", `is not an IP address`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  routes = { \"10.1.0.0/16\" = \"2001:db8::1\" }", `is not an IPv4 address`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  routes = { \"10.1.0.1/16\" = \"10.0.0.1\" }", `not in canonical form: write 10.1.0.0/16`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  routes = { \"10.1.0.0/16\" = \"10.9.0.1\" }", `goes through 10.9.0.1, which is not inside cidr 10.0.0.0/24`},
		{network, "", "cidr = \"10.0.0.0/24\"\n  region = \"Atlantis\"", `region "Atlantis" is not served by this provider`},
		{network, vlanProvider(physnet, `[{ start = 100, end = 110 }, { start = 105, end = 120 }]`), `cidr = "10.0.0.0/24"`, `overlaps the range 100-110`},
		{network, vlanProvider(physnet, `[{ start = 20, end = 10 }]`), `cidr = "10.0.0.0/24"`, `starts at 20, after its end 10`},
		{network, vlanProvider(physnet, `[{ start = 0, end = 10 }]`), `cidr = "10.0.0.0/24"`, `must be between 1 and 4094`},
		{group, "", `rules = [{ direction = "ingress", protocol = "icmp", port = 22 }]`, `Ports need tcp or udp`},
		{group, "", `rules = [{ direction = "ingress", protocol = "tcp", port = 0 }]`, `must be between 1 and 65535`},
		{group, "", `rules = [{ direction = "ingress", protocol = "tcp", port_range = { min = 90, max = 80 } }]`, `Invalid port range`},
		{group, "", `rules = [{ direction = "ingress", protocol = "tcp", port = 80, port_range = { min = 80, max = 90 } }]`, `Conflicting ports`},
		{group, "", `rules = [{ direction = "ingress", protocol = "tcp", remote_ip_prefix = "10.0.0.1/8" }]`, `not in canonical form`},
		{group, "", `rules = [{ direction = "ingress", protocol = "gre" }]`, `value must be one of`},
		{group, "", `rules = [{ direction = "ingress", protocol = "tcp", port = 80 }, { direction = "ingress", protocol = "tcp", port_range = { min = 80, max = 80 } }]`, `Duplicate security group rules`},
	} {
		t.Run(tt.kind.name+": "+tt.want, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tt.provider + tt.kind.config("plan-only", acctest.RandomName(), "test", tt.args),
					PlanOnly:    true,
					ExpectError: regexpMust(tt.want),
				}},
			})
		})
	}
}
