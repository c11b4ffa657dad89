package providernetwork_test

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/providernetwork"
)

// The tests make their networks on the physical network acctest.Physnet; a cloud that names
// none skips them (needPhysnet), except the plan-time ones. The local cloud's ML2 allows flat
// networks on every physical network and VLANs 100-199 on physnet1. Neutron allows one flat
// network per physical network: the one test that makes a flat network on it is
// TestAccProviderNetwork_lifecycle (its steps run in order), and VLAN IDs are allocated, never
// fixed, since other packages' tests use the same range.

// physnet is the physical network of the configurations: acctest.Physnet, or any name for the
// plan-time tests on a cloud that names none (they ask Neutron nothing).
func physnet() string {
	return cmp.Or(acctest.Physnet, "tf-acc-physnet")
}

// preCheck is acctest.PreCheck for a test that makes networks on the physical network.
func preCheck(t *testing.T) {
	t.Helper()

	acctest.PreCheck(t)
	acctest.NeedPhysnet(t)
}

// vlanRange is the range of the VLAN IDs that Neutron allocates on the physical network: the
// local cloud's 100-199, or any valid ID on another cloud, whose ranges are its own.
func vlanRange() (lo, hi int) {
	if acctest.External() {
		return 1, 4094
	}

	return 100, 199
}

const address = "unikorn_provider_network.test"

// neutron is the admin Neutron client of the default region.
func neutron(t *testing.T) *gophercloud.ServiceClient {
	t.Helper()

	return acctest.AdminNeutron(t, acctest.Client(t).DefaultRegion())
}

type fullNetwork struct {
	networks.Network
	external.NetworkExternalExt
	provider.NetworkProviderExt
}

// checkCloud asks Neutron that the network in the state has the type, VLAN range, external
// flag and subnets (name → CIDR) given.
func checkCloud(t *testing.T, netType string, isExternal bool, wantSubnets map[string]string) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		sc := neutron(t)

		var n fullNetwork
		if err := networks.Get(context.Background(), sc, a["id"]).ExtractInto(&n); err != nil {
			return err
		}

		lo, hi := vlanRange()

		switch seg, _ := strconv.Atoi(n.SegmentationID); {
		case n.NetworkType != netType || n.PhysicalNetwork != physnet():
			return fmt.Errorf("network %s is %s on %q, want %s on %q", n.ID, n.NetworkType, n.PhysicalNetwork, netType, physnet())
		case netType == "vlan" && (seg < lo || seg > hi || a["segmentation_id"] != n.SegmentationID):
			return fmt.Errorf("network %s has VLAN %s (state %s), want one of %d-%d", n.ID, n.SegmentationID,
				a["segmentation_id"], lo, hi)
		case n.External != isExternal:
			return fmt.Errorf("network %s: router:external %v, want %v", n.ID, n.External, isExternal)
		}

		subs, err := acctest.AllPages(context.Background(), subnets.List(sc, subnets.ListOpts{NetworkID: n.ID}), subnets.ExtractSubnets)
		if err != nil {
			return err
		}

		got := map[string]string{}
		for _, sub := range subs {
			got[sub.Name] = sub.CIDR
		}

		if fmt.Sprint(got) != fmt.Sprint(wantSubnets) {
			return fmt.Errorf("subnets of %s: %v, want %v", n.ID, got, wantSubnets)
		}

		return nil
	})
}

// checkDestroy asks Neutron that no network of the state is left.
func checkDestroy(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckGone(map[string]acctest.Getter{"unikorn_provider_network": func(ctx context.Context, a map[string]string) error {
		return networks.Get(ctx, neutron(t), a["id"]).Err
	}})
}

// subnetA and subnetB are the configurations of the test's subnets.
func subnetA(name, extra string) string {
	return fmt.Sprintf(`{
      name             = "%s-a"
      cidr             = "192.0.2.0/24"
      allocation_pools = [{ start = "192.0.2.10", end = "192.0.2.99" }]
      %s
    }`, name, extra)
}

func subnetB(name, cidr string) string {
	return fmt.Sprintf(`{
      name        = "%s-b"
      cidr        = %q
      host_routes = [{ destination = "10.99.0.0/16", next_hop = "198.51.100.5" }]
    }`, name, cidr)
}

func config(name, body string, subnetConfigs ...string) string {
	subs := ""
	if len(subnetConfigs) > 0 {
		subs = "subnets = [" + fmt.Sprint(joinComma(subnetConfigs)) + "]"
	}

	return fmt.Sprintf(`
resource "unikorn_provider_network" "test" {
  name             = %q
  physical_network = %q
  %s
  %s
}
`, name, physnet(), body, subs)
}

func joinComma(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}

		out += p
	}

	return out
}

// TestAccProviderNetwork_lifecycle makes a VLAN network with an allocated ID and a subnet,
// imports it, converges it in place (options, a subnet changed, one added, one replaced),
// replaces it by a flat external network that unikorn_external_networks lists, and deletes it
// out of band.
func TestAccProviderNetwork_lifecycle(t *testing.T) {
	name := acctest.RandomName()
	vlan := `network_type = "vlan"`

	external := config(name, `network_type = "flat"
  external     = true`, subnetA(name, "")) + `
# Every external network: the tests pin the provider's default selector to the cloud's
# public networks (acctest.PreCheck), and this block's selector replaces that.
provider "unikorn" {
  external_networks = {}
}

data "unikorn_external_networks" "all" {
  depends_on = [unikorn_provider_network.test]
}
`

	// The network keeps its ID through the in-place steps; subnet b gets a new one when its
	// CIDR changes.
	sameNetwork := statecheck.CompareValue(compare.ValuesSame())
	replacedSubnet := statecheck.CompareValue(compare.ValuesDiffer())
	networkID := func() statecheck.StateCheck { return sameNetwork.AddStateValue(address, tfjsonpath.New("id")) }
	subnetBID := func() statecheck.StateCheck {
		return replacedSubnet.AddStateValue(address, tfjsonpath.New("subnets").AtSliceIndex(1).AtMapKey("id"))
	}

	steps := []resource.TestStep{
		{
			Config: config(name, vlan, subnetA(name, `dns_nameservers = ["192.0.2.53"]`)),
			Check:  checkCloud(t, "vlan", false, map[string]string{name + "-a": "192.0.2.0/24"}),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("subnets").AtSliceIndex(0).AtMapKey("gateway_ip"), knownvalue.StringExact("192.0.2.1")),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("external"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("mtu"), knownvalue.NotNull()),
				networkID(),
			},
		},
	}

	steps = append(steps, acctest.ImportSteps(address)...)

	steps = append(steps,
		resource.TestStep{ // in place: options, a subnet changed and one added
			Config: config(name, vlan+"\n  shared = true\n  mtu = 1400",
				subnetA(name, `enable_dhcp = false
      dns_nameservers = ["192.0.2.54", "192.0.2.53"]`), subnetB(name, "198.51.100.0/24")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)}},
			Check:            checkCloud(t, "vlan", false, map[string]string{name + "-a": "192.0.2.0/24", name + "-b": "198.51.100.0/24"}),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("shared"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("mtu"), knownvalue.Int64Exact(1400)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("subnets").AtSliceIndex(0).AtMapKey("enable_dhcp"), knownvalue.Bool(false)),
				networkID(), subnetBID(),
			},
		},
		resource.TestStep{ // drift: changed out of band, the plan shows the change back
			PreConfig: func() { unshareOutOfBand(t, name) },
			Config: config(name, vlan+"\n  shared = true\n  mtu = 1400",
				subnetA(name, `enable_dhcp = false
      dns_nameservers = ["192.0.2.54", "192.0.2.53"]`), subnetB(name, "198.51.100.0/24")),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{ // a subnet's CIDR changes: that subnet is replaced, the network updated in place
			Config: config(name, vlan+"\n  shared = true\n  mtu = 1400",
				subnetA(name, `enable_dhcp = false
      dns_nameservers = ["192.0.2.54", "192.0.2.53"]`), subnetB(name, "198.51.100.0/25")),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)}},
			Check:             checkCloud(t, "vlan", false, map[string]string{name + "-a": "192.0.2.0/24", name + "-b": "198.51.100.0/25"}),
			ConfigStateChecks: []statecheck.StateCheck{networkID(), subnetBID()},
		},
		resource.TestStep{ // replaced: a flat external network, which unikorn_external_networks lists
			Config:           external,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionDestroyBeforeCreate)}},
			Check: resource.ComposeAggregateTestCheckFunc(
				checkCloud(t, "flat", true, map[string]string{name + "-a": "192.0.2.0/24"}),
				checkListed("data.unikorn_external_networks.all"),
			),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("segmentation_id"), knownvalue.Null()),
			},
		},
		resource.TestStep{ // drift: deleted out of band, the plan makes it again
			PreConfig:          func() { deleteOutOfBand(t, name) },
			Config:             external,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
	)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps:                    steps,
	})
}

// checkListed checks that the external networks data source at ds lists the network in state.
func checkListed(ds string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id := s.RootModule().Resources[address].Primary.ID

		d, ok := s.RootModule().Resources[ds]
		if !ok {
			return fmt.Errorf("%s is not in the state", ds)
		}

		var ids []string

		for i := 0; ; i++ {
			v, ok := d.Primary.Attributes[fmt.Sprintf("external_networks.%d.id", i)]
			if !ok {
				break
			}

			ids = append(ids, v)
		}

		if !slices.Contains(ids, id) {
			return fmt.Errorf("%s lists %v, not the provider network %s", ds, ids, id)
		}

		return nil
	}
}

// locate is the core of the default region, and the ID of the network called name.
func locate(t *testing.T, name string) (*providernetwork.Service, string) {
	t.Helper()

	svc := &providernetwork.Service{Client: neutron(t), ProjectID: acctest.Client(t).Base().ProjectID()}

	loc, err := svc.Located(context.Background(), name)
	if err != nil || loc.ID == "" {
		t.Fatalf("finding network %s: %v", name, err)
	}

	return svc, loc.ID
}

// deleteOutOfBand deletes the network called name and its subnets behind Terraform's back.
func deleteOutOfBand(t *testing.T, name string) {
	t.Helper()

	svc, id := locate(t, name)

	if err := svc.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// unshareOutOfBand sets shared = false on the network called name behind Terraform's back.
func unshareOutOfBand(t *testing.T, name string) {
	t.Helper()

	svc, id := locate(t, name)

	no := false
	if _, err := networks.Update(context.Background(), svc.Client, id, networks.UpdateOpts{Shared: &no}).Extract(); err != nil {
		t.Fatal(err)
	}
}

// TestAccProviderNetwork_foreignPorts checks that a network that a port of another project
// still uses is not deleted, and that the error lists the port.
func TestAccProviderNetwork_foreignPorts(t *testing.T) {
	name := acctest.RandomName()
	cfg := config(name, "network_type = \"vlan\"\n  shared = true", `{ name = "s", cidr = "192.0.2.0/24" }`)

	var project, portID string

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					project = acctest.NetworkTenant(t)
					_, id := locate(t, name)
					portID = acctest.NeutronCreatePort(t, project, acctest.Client(t).DefaultRegion(), id, acctest.RandomName(), "")
				},
				Config:      cfg,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`is\s+not\s+deleted:\s+1\s+port\(s\)\s+of\s+other\s+projects\s+still\s+use\s+it:\s+port\s+tf-acc-`),
			},
			{
				PreConfig: func() { acctest.NeutronDeletePort(t, project, acctest.Client(t).DefaultRegion(), portID) },
				Config:    cfg,
			},
		},
	})
}

// TestAccProviderNetwork_planErrors checks the plan-time validation, with attribute paths.
func TestAccProviderNetwork_planErrors(t *testing.T) {
	name := acctest.RandomName()
	sub := func(body string) string {
		return config(name, `network_type = "vlan"`, "{\n name = \"s\"\n "+body+"\n }")
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: acctest.PlanErrors([]acctest.PlanError{
			{Config: sub(`cidr = "192.0.2.1/24"`), Error: `not in canonical form: write 192.0.2.0/24`},
			{Config: sub(`cidr = "192.0.2.0/24"
 allocation_pools = [{ start = "192.0.2.200", end = "192.0.3.10" }]`), Error: `(?s)Invalid allocation pool.*not inside the subnet`},
			{Config: sub(`cidr = "192.0.2.0/24"
 allocation_pools = [{ start = "192.0.2.1", end = "192.0.2.50" }]`), Error: `(?s)Invalid allocation pool.*contains the gateway 192\.0\.2\.1`},
			{Config: sub(`cidr = "192.0.2.0/24"
 gateway_ip = "192.0.2.100"
 allocation_pools = [{ start = "192.0.2.50", end = "192.0.2.150" }]`), Error: `contains the gateway 192\.0\.2\.100`},
			{Config: sub(`cidr = "192.0.2.0/24"
 gateway_ip = "198.51.100.1"`), Error: `(?s)Gateway outside the subnet.*not a host address`},
			{Config: config(name, "network_type = \"vlan\"\n segmentation_id = 4095"), Error: `(?s)segmentation_id.*between 1 and 4094`},
			{Config: config(name, "network_type = \"vlan\"\n segmentation_id = 0"), Error: `(?s)segmentation_id.*between 1 and 4094`},
			{Config: config(name, "network_type = \"flat\"\n segmentation_id = 150"), Error: `Segmentation ID on a flat network`},
			{Config: config(name, "network_type = \"gre\""), Error: `(?s)network_type.*value must be one of`},
			{Config: config(name, `network_type = "vlan"`, `{ name = "s", cidr = "192.0.2.0/25" }`, `{ name = "s", cidr = "192.0.2.128/25" }`),
				Error: `(?s)Duplicate subnet name.*subnets\[0\] is also called`},
		}),
	})
}

// TestAccProviderNetwork_vlanRanges allocates the VLAN ID from the provider's
// provider_network ranges (the allocation unikorn_network uses), on the physical network that
// provider_network names; the whole local range, since other packages' tests take IDs too.
func TestAccProviderNetwork_vlanRanges(t *testing.T) {
	name := acctest.RandomName()
	cfg := fmt.Sprintf(`
provider "unikorn" {
  provider_network = {
    physical_network = %q
    vlan_ranges      = [{ start = 100, end = 199 }]
  }
}
`, physnet()) + config(name, `network_type = "vlan"`)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check:  checkCloud(t, "vlan", false, map[string]string{}),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("subnets"), knownvalue.Null()),
			},
		}},
	})
}
