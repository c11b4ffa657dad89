package acctest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
)

// UnikornNetwork is a network as Unikorn's region service makes it: the Neutron
// network, subnet and router all named network-<ID>.
type UnikornNetwork struct {
	// ID is Unikorn's network ID (the name after network-); the Neutron objects' IDs follow.
	ID, Region, CIDR             string
	NetworkID, SubnetID          string
	RouterID, PoolStart, PoolEnd string

	gateway, externalNetworkID string
}

// unikornNetworkDescription is the network's description, the only one on the network side
// (P/network.go:CreateNetwork@v1.10.0,v1.16.7,v1.19.0).
const unikornNetworkDescription = "unikorn managed provider network"

// unikornNetworkName is the name of the network, subnet and router of Unikorn's network id
// (P/network.go:networkName@v1.10.0,v1.16.7; networkNameForID@v1.19.0).
func unikornNetworkName(id string) string { return "network-" + id }

// CreateNetwork makes a network of prefix cidr in region as Unikorn's P/provider.go:CreateNetwork
// does (@v1.19.0; the same steps at v1.10.0 and v1.16.7), in the privileged scope: network,
// subnet with the generation's pool, router with its gateway on the first selected external
// network, router interface by subnet. Its cleanup deletes them in Unikorn's order.
func (u UnikornIdentity) CreateNetwork(t *testing.T, region, cidr string) UnikornNetwork {
	t.Helper()

	ctx := context.Background()
	n := UnikornNetwork{ID: unikornResourceID(t), Region: region, CIDR: cidr}

	gateway, start, end, err := u.Gen.addressing(cidr)
	if err != nil {
		t.Fatal(err)
	}

	n.gateway, n.PoolStart, n.PoolEnd = gateway, start, end
	name := unikornNetworkName(n.ID)

	t.Cleanup(func() { n.delete(t) })

	// Privileged: "a privileged network client as it needs permissions from the manager policy"
	// (P/provider.go:CreateNetwork, privilegedNetworkFromServicePrincipal@v1.19.0).
	neutron := clientOf(t, "Neutron", region, u.privileged(t).Network)

	// The network: name and description, no tags, MTU or flags; the VLAN segment only with the
	// region's providerNetworks, not configured here (P/provider.go:reconcileNetwork,
	// P/network.go:CreateNetwork@v1.19.0).
	nw, err := networks.Create(ctx, neutron, networks.CreateOpts{Name: name, Description: unikornNetworkDescription}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn network %s: %v", name, err)
	}

	n.NetworkID = nw.ID

	// The subnet: IPv4, the prefix, gateway base+1 (P/provider.go:gatewayIP), one pool
	// (P/provider.go:dhcpRange per generation), no DNS servers or host routes asked, no
	// description (P/provider.go:reconcileSubnet, P/network.go:CreateSubnet@v1.19.0;
	// P10/network.go:CreateSubnet@v1.10.0 has no host routes).
	sub, err := subnets.Create(ctx, neutron, subnets.CreateOpts{
		Name: name, NetworkID: nw.ID, IPVersion: gophercloud.IPv4, CIDR: cidr, GatewayIP: &gateway,
		AllocationPools: []subnets.AllocationPool{{Start: start, End: end}},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn subnet %s: %v", name, err)
	}

	n.SubnetID = sub.ID

	// The router: its gateway on the first external network that the region's selector keeps
	// (P/network.go:CreateRouter, ExternalNetworks, filterExternalNetwork@v1.19.0). The local
	// cloud's region is taken as configured with externalNetworks.selector.ids = its public
	// network: other tests make external networks of their own while this one runs.
	n.externalNetworkID = unikornExternalNetwork(t, neutron, region)

	r, err := routers.Create(ctx, neutron, routers.CreateOpts{Name: name, GatewayInfo: &routers.GatewayInfo{NetworkID: n.externalNetworkID}}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn router %s: %v", name, err)
	}

	n.RouterID = r.ID

	// The interface, by subnet (P/provider.go:reconcileRouterInterface, P/network.go:AddRouterInterface@v1.19.0).
	if err := routers.AddInterface(ctx, neutron, r.ID, routers.AddInterfaceOpts{SubnetID: sub.ID}).Err; err != nil {
		t.Fatalf("adding the Unikorn router's interface on %s: %v", name, err)
	}

	return n
}

// unikornExternalNetwork is the first external network neutron lists that the region's selector
// (ids: the local cloud's public network) keeps (P/network.go:externalNetworks, ExternalNetworks@v1.19.0).
func unikornExternalNetwork(t *testing.T, neutron *gophercloud.ServiceClient, region string) string {
	t.Helper()

	yes, selector := true, []string{PublicNetworkID(t, region)}

	all, err := AllPages(context.Background(), networks.List(neutron, external.ListOptsExt{ListOptsBuilder: networks.ListOpts{}, External: &yes}),
		networks.ExtractNetworks)
	if err != nil {
		t.Fatalf("listing the external networks of %s: %v", region, err)
	}

	all = slices.DeleteFunc(all, func(n networks.Network) bool { return !slices.Contains(selector, n.ID) })
	if len(all) == 0 {
		t.Fatalf("no external network of %s is selected (%v)", region, selector)
	}

	return all[0].ID
}

// addressing is the gateway and the allocation pool that the generation's code gives the IPv4
// prefix cidr, computed as that code does: offsets added to the prefix's base.
func (g UnikornGeneration) addressing(cidr string) (gateway, start, end string, err error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil || !prefix.Addr().Is4() || prefix.Masked() != prefix {
		return "", "", "", fmt.Errorf("%q is not an IPv4 prefix as Unikorn takes it (base address and length): %v", cidr, err)
	}

	base4 := prefix.Addr().As4()
	base := uint64(base4[0])<<24 | uint64(base4[1])<<16 | uint64(base4[2])<<8 | uint64(base4[3])
	size := uint64(1) << (32 - prefix.Bits())
	at := func(offset uint64) string {
		a := base + offset

		return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}).String()
	}

	var first, last uint64

	switch g.Tag {
	case UnikornV110.Tag:
		// P10/provider.go:dhcpRange@v1.10.0: base+2 … base+size−128−1 (the top /25 reserved).
		first, last = 2, size-(1<<7)-1
	case UnikornV116.Tag:
		// P/provider.go:dhcpRange@v1.16.7 (v1.11.0 … v1.16.x): base+128 … base+size−2.
		first, last = 128, size-2
	case UnikornV117.Tag:
		// P/provider.go:dhcpRange(prefix, reservations)@v1.19.0 with the network's effective
		// reservations, by default prefixLength 25 (pkg/apis/unikorn/v1alpha1/helpers.go:
		// EffectiveReservations, pkg/constants: DefaultNetworkReservationPrefixLength):
		// base+2^(32−25) … base+size−2. The API wants prefixLength > the network's
		// (pkg/handler/network/client_v2.go:generateReservations@v1.19.0).
		const reservation = 25
		if prefix.Bits() >= reservation {
			return "", "", "", fmt.Errorf("the Unikorn API of %s refuses %s: its default /%d reservation must be longer than the prefix", g.Tag, cidr, reservation)
		}

		first, last = 1<<(32-reservation), size-2
	default:
		return "", "", "", fmt.Errorf("unknown Unikorn generation %+v", g)
	}

	if size < 4 || first > last || last >= size {
		return "", "", "", fmt.Errorf("the code of Unikorn %s gives %s the pool +%d … +%d, which Neutron would refuse", g.Tag, cidr, first, int64(last))
	}

	// P/provider.go:gatewayIP@v1.10.0,v1.16.7,v1.19.0: base+1.
	return at(1), at(first), at(last), nil
}

// delete removes, as an admin, the network's objects in the order of Unikorn's deleteNetwork
// (P/provider.go:deleteNetwork@v1.19.0): router interface, router, subnet, network; 404s are
// done, and an object still in use (a test's port) is left to the identity's cleanup.
func (n UnikornNetwork) delete(t *testing.T) {
	t.Helper()

	ctx := context.Background()
	neutron := AdminNeutron(t, n.Region)

	steps := []struct {
		what, id string
		do       func() error
	}{
		{"router interface", n.RouterID, func() error {
			return routers.RemoveInterface(ctx, neutron, n.RouterID, routers.RemoveInterfaceOpts{SubnetID: n.SubnetID}).Err
		}},
		{"router", n.RouterID, func() error { return routers.Delete(ctx, neutron, n.RouterID).ExtractErr() }},
		{"subnet", n.SubnetID, func() error { return subnets.Delete(ctx, neutron, n.SubnetID).ExtractErr() }},
		{"network", n.NetworkID, func() error { return networks.Delete(ctx, neutron, n.NetworkID).ExtractErr() }},
	}

	for _, s := range steps {
		if s.id == "" {
			continue
		}

		switch err := s.do(); {
		case err == nil, gophercloud.ResponseCodeIs(err, 404):
		case gophercloud.ResponseCodeIs(err, 409):
			t.Logf("the Unikorn %s %s is in use; the identity's cleanup removes it: %v", s.what, s.id, err)
		default:
			t.Errorf("deleting the Unikorn %s %s: %v", s.what, s.id, err)
		}
	}
}

// Unchanged checks, as an admin, that the network is as Unikorn made it: the network's name and
// description, the subnet's name, prefix, gateway and pool (Unikorn never updates the pool), and
// the router's name, gateway network and interface on the subnet.
func (n UnikornNetwork) Unchanged(t *testing.T) error {
	t.Helper()

	ctx := context.Background()
	neutron := AdminNeutron(t, n.Region)
	name := unikornNetworkName(n.ID)

	var errs []error

	expect := func(what string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			errs = append(errs, fmt.Errorf("%s is %v, want %v", what, got, want))
		}
	}

	nw, err := networks.Get(ctx, neutron, n.NetworkID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn network %s: %w", n.NetworkID, err)
	}

	expect("the network's name", nw.Name, name)
	expect("the network's description", nw.Description, unikornNetworkDescription)

	sub, err := subnets.Get(ctx, neutron, n.SubnetID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn subnet %s: %w", n.SubnetID, err)
	}

	expect("the subnet's name", sub.Name, name)
	expect("the subnet's description", sub.Description, "")
	expect("the subnet's network", sub.NetworkID, n.NetworkID)
	expect("the subnet's prefix", sub.CIDR, n.CIDR)
	expect("the subnet's gateway", sub.GatewayIP, n.gateway)
	expect("the subnet's pools", sub.AllocationPools, []subnets.AllocationPool{{Start: n.PoolStart, End: n.PoolEnd}})

	r, err := routers.Get(ctx, neutron, n.RouterID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn router %s: %w", n.RouterID, err)
	}

	expect("the router's name", r.Name, name)
	expect("the router's description", r.Description, "")
	expect("the router's gateway network", r.GatewayInfo.NetworkID, n.externalNetworkID)

	ps, err := AllPages(ctx, ports.List(neutron, ports.ListOpts{DeviceID: n.RouterID, DeviceOwner: "network:router_interface"}), ports.ExtractPorts)
	if err != nil {
		return fmt.Errorf("the Unikorn router's interfaces: %w", err)
	}

	var onSubnet []string

	for _, p := range ps {
		for _, ip := range p.FixedIPs {
			if ip.SubnetID == n.SubnetID {
				onSubnet = append(onSubnet, ip.IPAddress)
			}
		}
	}

	expect("the router's interface addresses on the subnet", onSubnet, []string{n.gateway})

	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the Unikorn network %s changed: %w", name, err)
	}

	return nil
}
