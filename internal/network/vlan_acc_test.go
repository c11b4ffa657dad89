package network_test

import (
	"context"
	"fmt"
	"net/netip"
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

// Each VLAN test has its own slice of VLAN IDs on the physical network acctest.Physnet (the
// local cloud's physnet1:100:199), so that tests running in parallel do not compete (except
// where competing is the point). A cloud that names no physical network skips them
// (acctest.NeedPhysnet).

// vlanProvider is the provider block that makes every network a VLAN network on physnet, with
// the VLAN IDs of ranges (HCL).
func vlanProvider(physnet, ranges string) string {
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

		err := acctest.EachOf(s, "unikorn_network", func(a map[string]string) error {
			id, err := strconv.Atoi(a["vlan_id"])
			if err != nil {
				return fmt.Errorf("%s: vlan_id %q", a["id"], a["vlan_id"])
			}

			gotPhysnet, neutronID := acctest.NeutronNetworkVLAN(t, a["region"], a["id"])
			if neutronID != id || gotPhysnet != acctest.Physnet {
				return fmt.Errorf("network %s: state says VLAN %d, Neutron says %s/%d", a["id"], id, gotPhysnet, neutronID)
			}

			if id < lo || id > hi {
				return fmt.Errorf("network %s: VLAN %d outside %d-%d", a["id"], id, lo, hi)
			}

			ids = append(ids, id)

			return nil
		})
		if err != nil {
			return err
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
	physnet := acctest.NeedPhysnet(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

	// VLAN 110 is in use already (another project's network, as far as we know).
	acctest.NeutronCreateVLANNetwork(t, acctest.NetworkTenant(t), def, physnet, 110)

	// config is the provider and the first n of the networks "test", "second" and "third".
	config := func(n int) string {
		out := vlanProvider(physnet, `[{ start = 110, end = 111 }, { start = 115, end = 115 }]`)
		for i, label := range []string{"test", "second", "third"}[:n] {
			suffix := ""
			if i > 0 {
				suffix = "-" + label
			}

			out += accKinds[0].config(project, name+suffix, label, fmt.Sprintf(`cidr = "10.1%d.0.0/24"`, i+1))
		}

		return out
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: config(1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(networkAddress, "vlan_id", "111"),
					checkNeutronNetwork(t, networkAddress),
				),
			},
			{
				Config: config(2),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(networkAddress, "vlan_id", "111"),
					resource.TestCheckResourceAttr("unikorn_network.second", "vlan_id", "115"),
					checkNeutronNetwork(t, "unikorn_network.second"),
				),
			},
			{
				// The ranges are full now: a third network fails and says why.
				Config:      config(3),
				ExpectError: regexpMust(fmt.Sprintf(`no free VLAN ID on physical network %q in the ranges 110-111, 115 (3 in use)`, physnet)),
			},
		},
	})
}

// TestAccNetwork_vlanConcurrentApply creates five VLAN networks in one apply (Terraform
// creates them concurrently) from a range of exactly five IDs: none may share an ID.
func TestAccNetwork_vlanConcurrentApply(t *testing.T) {
	project := tenant(t)
	physnet := acctest.NeedPhysnet(t)
	name := acctest.RandomName()

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{{
			Config: vlanProvider(physnet, `[{ start = 120, end = 124 }]`) + fmt.Sprintf(`
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
	physnet := acctest.NeedPhysnet(t)
	t.Parallel()

	def := defaultRegion(t)
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
		c, err := acctest.NewClient(ctx, fmt.Sprintf("terraform-provider-unikorn-acctest-apply-%d", apply))
		if err != nil {
			t.Fatal(err)
		}

		svc := privilegedService(t, c, cfg, project, def)

		for i := range 3 {
			wg.Add(1)

			go func() {
				defer wg.Done()

				a, _ := network.PlanAddressing(mustPrefix(fmt.Sprintf("10.30.%d.0/24", apply*3+i)), nil)
				spec := network.Spec{Name: fmt.Sprintf("%s-%d-%d", name, apply, i), Addressing: a}

				out, err := svc.EnsureNetwork(ctx, spec, network.Ref{})

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

// privilegedService is the network core of project in region, bound as the resources bind it.
func privilegedService(t *testing.T, c *cloud.Client, cfg *network.Config, project, region string) *network.Service {
	t.Helper()

	tenant, err := c.Tenant(context.Background(), project, region, cloud.Privileged)
	if err != nil {
		t.Fatal(err)
	}

	svc, err := network.NewService(tenant, cfg)
	if err != nil {
		t.Fatal(err)
	}

	return svc
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
