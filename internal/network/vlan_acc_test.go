package network_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Each VLAN test has its own slice of the local cloud's physnet1:100:199, so that tests
// running in parallel do not compete (except where competing is the point).
const physnet = "physnet1"

func vlanProvider(ranges string) string {
	return fmt.Sprintf(`
provider "unikorn" {
  provider_network = {
    physical_network = %[1]q
    vlan_ranges      = %[2]s
  }
}
`, physnet, ranges)
}

// vlanIDs collects the vlan_id of every unikorn_network in the state, checks each against
// Neutron and the allowed range, and fails on any ID used twice.
func vlanIDs(t *testing.T, want int, lo, hi int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		var ids []int

		for _, rs := range s.RootModule().Resources {
			if rs.Type != "unikorn_network" {
				continue
			}

			a := rs.Primary.Attributes

			id, err := strconv.Atoi(a["vlan_id"])
			if err != nil {
				return fmt.Errorf("%s: vlan_id %q", rs.Primary.ID, a["vlan_id"])
			}

			gotPhysnet, neutronID := acctest.NeutronNetworkVLAN(t, a["region"], rs.Primary.ID)
			if neutronID != id || gotPhysnet != physnet {
				return fmt.Errorf("network %s: state says VLAN %d, Neutron says %s/%d", rs.Primary.ID, id, gotPhysnet, neutronID)
			}

			if id < lo || id > hi {
				return fmt.Errorf("network %s: VLAN %d outside %d-%d", rs.Primary.ID, id, lo, hi)
			}

			ids = append(ids, id)
		}

		slices.Sort(ids)

		if len(ids) != want || len(slices.Compact(slices.Clone(ids))) != want {
			return fmt.Errorf("VLAN IDs %v: want %d distinct ones", ids, want)
		}

		return nil
	}
}

// TestAccNetwork_vlan makes two VLAN provider networks from ranges where the lowest ID is
// taken by a network made out of band: they get the next free IDs, in order, across ranges.
func TestAccNetwork_vlan(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, _ := regions(t)

	// VLAN 110 is in use already (another project's network, as far as we know).
	createVLANNetwork(t, acctest.NetworkTenant(t), def, 110)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: vlanProvider(`[{ start = 110, end = 111 }, { start = 115, end = 115 }]`) + fmt.Sprintf(`
resource "unikorn_network" "test" {
  identity_id = %[1]q
  name        = %[2]q
  cidr        = "10.11.0.0/24"
}
`, project, name),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(networkAddress, "vlan_id", "111"),
					checkNeutronNetwork(t, networkAddress),
				),
			},
			{
				Config: vlanProvider(`[{ start = 110, end = 111 }, { start = 115, end = 115 }]`) + fmt.Sprintf(`
resource "unikorn_network" "test" {
  identity_id = %[1]q
  name        = %[2]q
  cidr        = "10.11.0.0/24"
}

resource "unikorn_network" "second" {
  identity_id = %[1]q
  name        = "%[2]s-second"
  cidr        = "10.12.0.0/24"
}
`, project, name),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(networkAddress, "vlan_id", "111"),
					resource.TestCheckResourceAttr("unikorn_network.second", "vlan_id", "115"),
					checkNeutronNetwork(t, "unikorn_network.second"),
				),
			},
			{
				// The ranges are full now: a third network fails and says why.
				Config: vlanProvider(`[{ start = 110, end = 111 }, { start = 115, end = 115 }]`) + fmt.Sprintf(`
resource "unikorn_network" "test" {
  identity_id = %[1]q
  name        = %[2]q
  cidr        = "10.11.0.0/24"
}

resource "unikorn_network" "second" {
  identity_id = %[1]q
  name        = "%[2]s-second"
  cidr        = "10.12.0.0/24"
}

resource "unikorn_network" "third" {
  identity_id = %[1]q
  name        = "%[2]s-third"
  cidr        = "10.13.0.0/24"
}
`, project, name),
				ExpectError: regexpMust(`no free VLAN ID on physical network "physnet1" in the ranges 110-111, 115 (3 in use)`),
			},
		},
	})
}

// TestAccNetwork_vlanConcurrentApply creates five VLAN networks in one apply (Terraform
// creates them concurrently) from a range of exactly five IDs: none may share an ID.
func TestAccNetwork_vlanConcurrentApply(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{{
			Config: vlanProvider(`[{ start = 120, end = 124 }]`) + fmt.Sprintf(`
resource "unikorn_network" "test" {
  count       = 5
  identity_id = %[1]q
  name        = "%[2]s-${count.index}"
  cidr        = "10.20.${count.index}.0/24"
}
`, project, name),
			Check: vlanIDs(t, 5, 120, 124),
		}},
	})
}

// TestAccNetwork_vlanConcurrentApplies plays two applies racing for VLANs: two independent
// provider clients (separate tokens, no shared state), each creating three networks at once
// through the core against the real Neutron, from one range of six IDs. Every network must
// end with its own ID.
func TestAccNetwork_vlanConcurrentApplies(t *testing.T) {
	project := tenant(t)
	t.Parallel()

	def, _ := regions(t)
	name := acctest.RandomName()
	ctx := context.Background()
	cfg := network.NewConfig(network.ExternalNetworkSelector{}, &network.ProviderNetwork{
		PhysicalNetwork: physnet,
		VLANRanges:      []network.VLANRange{{Start: 130, End: 135}},
	})

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results = map[string]int{}
		errs    []error
	)

	for apply := range 2 {
		c, err := cloud.New(ctx, cloud.Config{
			Cloud:      os.Getenv("OS_CLOUD"),
			CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
			Regions:    acctest.Regions(),
			Domain:     os.Getenv("UNIKORN_DOMAIN"),
		})
		if err != nil {
			t.Fatal(err)
		}

		svc, err := network.NewService(ctx, c, cfg, project, def)
		if err != nil {
			t.Fatal(err)
		}

		for i := range 3 {
			wg.Add(1)

			go func() {
				defer wg.Done()

				a, _ := network.PlanAddressing(mustPrefix(fmt.Sprintf("10.30.%d.0/24", apply*3+i)), nil)
				spec := network.NetworkSpec{Name: fmt.Sprintf("%s-%d-%d", name, apply, i), Addressing: a}

				out, err := svc.EnsureNetwork(ctx, spec, network.NetworkRef{})

				mu.Lock()
				defer mu.Unlock()

				if err != nil {
					errs = append(errs, err)
					return
				}

				results[out.ID] = *out.VLANID

				t.Cleanup(func() {
					if err := svc.DeleteNetwork(context.Background(), spec.Name, out.Ref()); err != nil {
						t.Errorf("deleting %s: %v", spec.Name, err)
					}
				})
			}()
		}
	}

	wg.Wait()

	for _, err := range errs {
		t.Error(err)
	}

	seen := map[int]string{}

	for id, vlan := range results {
		if other, dup := seen[vlan]; dup {
			t.Errorf("networks %s and %s share VLAN %d", id, other, vlan)
		}

		seen[vlan] = id

		if _, neutron := acctest.NeutronNetworkVLAN(t, def, id); neutron != vlan {
			t.Errorf("network %s: core says VLAN %d, Neutron %d", id, vlan, neutron)
		}
	}

	if len(results) != 6 {
		t.Errorf("%d networks made, want 6", len(results))
	}

	t.Logf("VLAN IDs: %v", seen)
}

// createVLANNetwork makes, out of band, a VLAN network with segmentation ID vlan on physnet1
// in project (whose privileged scope is an admin one).
func createVLANNetwork(t *testing.T, project, region string, vlan int) string {
	t.Helper()

	sc := acctest.TenantNeutron(t, project, region)
	body := map[string]any{"network": map[string]any{
		"name":                      acctest.RandomName(),
		"provider:network_type":     "vlan",
		"provider:physical_network": physnet,
		"provider:segmentation_id":  vlan,
	}}

	var out struct {
		Network struct {
			ID string `json:"id"`
		} `json:"network"`
	}

	if _, err := sc.Post(context.Background(), sc.ServiceURL("networks"), body, &out, nil); err != nil {
		t.Fatalf("creating a VLAN %d network: %v", vlan, err)
	}

	return out.Network.ID
}

// regexpMust matches s literally, except that any white space matches any white space:
// Terraform wraps long diagnostics.
func regexpMust(s string) *regexp.Regexp {
	return regexp.MustCompile(wrapped(s))
}

// wrapped is the literal pattern of s with white space made to match line breaks.
func wrapped(s string) string {
	parts := strings.Fields(s)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}

	return strings.Join(parts, `\s+`)
}

func mustPrefix(s string) netip.Prefix {
	return netip.MustParsePrefix(s)
}
