package network_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_network", nil, sweepRouters, sweepNetworks, sweepSecurityGroups)
}

// The sweeper deletes, in every region and project, the routers (with their interfaces),
// networks and security groups whose names carry the test prefix. Run with
// `go test ./internal/network/ -sweep=all`.
var (
	sweepRouters = acctest.PagedSweep(acctest.Neutron, "router", naming.NetworkPrefix+acctest.NamePrefix,
		func(sc *gophercloud.ServiceClient) pagination.Pager { return routers.List(sc, routers.ListOpts{}) }, routers.ExtractRouters,
		func(r routers.Router) (string, string) { return r.Name, r.ID }, acctest.DeleteRouter)
	sweepNetworks = acctest.PagedSweep(acctest.Neutron, "network", naming.NetworkPrefix+acctest.NamePrefix,
		func(sc *gophercloud.ServiceClient) pagination.Pager { return networks.List(sc, networks.ListOpts{}) }, networks.ExtractNetworks,
		func(n networks.Network) (string, string) { return n.Name, n.ID },
		acctest.Deleted(networks.Delete))
	sweepSecurityGroups = acctest.PagedSweep(acctest.Neutron, "security group", naming.SecurityGroupPrefix+acctest.NamePrefix,
		func(sc *gophercloud.ServiceClient) pagination.Pager { return groups.List(sc, groups.ListOpts{}) }, groups.ExtractGroups,
		func(g groups.SecGroup) (string, string) { return g.Name, g.ID },
		acctest.Deleted(groups.Delete))
)

// tenant returns, for an acceptance test, a fresh project in the managed domain (deleted with
// everything in it when the test ends).
func tenant(t *testing.T) string {
	t.Helper()

	acctest.PreCheck(t)

	return acctest.NetworkTenant(t)
}

// defaultRegion returns the provider's default region.
func defaultRegion(t *testing.T) string {
	t.Helper()

	return acctest.Client(t).DefaultRegion()
}

// regions returns the default region and another served one: without one, the test skips on
// an external cloud and fails on the local one (acctest.SecondRegion).
func regions(t *testing.T) (def, other string) {
	t.Helper()

	def = defaultRegion(t)

	for _, r := range acctest.Regions() {
		if r != def {
			return def, r
		}
	}

	return def, acctest.SecondRegion(t)
}

// checkNeutronNetwork asks Neutron, for the unikorn_network at address, that exactly one
// network-<name> exists in the project and is the one in state, and that its subnet,
// router, interface, addressing, options, description and VLAN are what the state says.
func checkNeutronNetwork(t *testing.T, address string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ctx := context.Background()

		p, err := acctest.Primary(s, address)
		if err != nil {
			return err
		}

		a := p.Attributes
		project, region, name := a["identity_id"], a["region"], naming.Network(a["name"])
		sc := acctest.TenantNeutron(t, project, region)

		if ids := acctest.NeutronNetworkIDs(t, project, region, name); !slices.Equal(ids, []string{p.ID}) {
			return fmt.Errorf("networks %s in %s: %v, want exactly %s", name, region, ids, p.ID)
		}

		net, err := networks.Get(ctx, sc, p.ID).Extract()
		if err != nil {
			return err
		}

		sub, err := subnets.Get(ctx, sc, a["subnet_id"]).Extract()
		if err != nil {
			return fmt.Errorf("subnet %s: %w", a["subnet_id"], err)
		}

		r, err := routers.Get(ctx, sc, a["router_id"]).Extract()
		if err != nil {
			return fmt.Errorf("router %s: %w", a["router_id"], err)
		}

		var problems []string

		expect := func(what string, got, want any) {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				problems = append(problems, fmt.Sprintf("%s is %v, state says %v", what, got, want))
			}
		}

		expect("subnet name", sub.Name, name)
		expect("router name", r.Name, name)
		expect("subnet network", sub.NetworkID, net.ID)
		expect("cidr", sub.CIDR, a["cidr"])
		expect("gateway", sub.GatewayIP, a["gateway_ip"])
		expect("allocation pools", fmt.Sprint(sub.AllocationPools),
			fmt.Sprint([]subnets.AllocationPool{{Start: a["allocation_pool.start"], End: a["allocation_pool.end"]}}))
		expect("router gateway", r.GatewayInfo.NetworkID, a["external_network_id"])

		for _, d := range []struct{ what, got string }{{"network", net.Description}, {"subnet", sub.Description}, {"router", r.Description}} {
			expect(d.what+" description", d.got, a["description"])
		}

		var dns []string
		for i := 0; i < atoi(a["dns_nameservers.#"]); i++ {
			dns = append(dns, a[fmt.Sprintf("dns_nameservers.%d", i)])
		}

		expect("dns nameservers", strings.Join(sub.DNSNameservers, ","), strings.Join(dns, ","))

		routes := map[string]string{}
		for _, hr := range sub.HostRoutes {
			routes[hr.DestinationCIDR] = hr.NextHop
		}

		expect("host route count", len(routes), atoi(a["routes.%"]))

		for dest, hop := range routes {
			expect("route to "+dest, hop, a["routes."+dest])
		}

		attached, err := acctest.AllPages(ctx, ports.List(sc, ports.ListOpts{DeviceID: r.ID, NetworkID: net.ID}), ports.ExtractPorts)
		if err != nil {
			return err
		}

		expect("router interfaces on the network", len(attached), 1)

		physnet, vlan := acctest.NeutronNetworkVLAN(t, region, net.ID)
		if a["vlan_id"] == "" {
			expect("VLAN", vlan, 0)
		} else {
			expect("VLAN", vlan, a["vlan_id"])
			expect("physical network", physnet, acctest.Physnet)
		}

		if len(problems) > 0 {
			return fmt.Errorf("%s in %s: %s", name, region, strings.Join(problems, "; "))
		}

		return nil
	}
}

func atoi(s string) int {
	n := 0
	_, _ = fmt.Sscan(s, &n)

	return n
}
