package network

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Kinds of Neutron objects, as messages and duplicate errors name them.
const (
	kindNetwork       = "network"
	kindSubnet        = "subnet"
	kindRouter        = "router"
	kindSecurityGroup = "security group"
)

// Route is a host route of a subnet.
type Route struct {
	Destination string // CIDR
	NextHop     string // IP address
}

// Spec is what a unikorn_network asks for.
type Spec struct {
	// Name is the user-given name; the network, subnet and router are network-<name>.
	Name           string
	Addressing     Addressing
	DNSNameservers []string
	Routes         []Route
	// Description is written on the network, its subnet and its router; nil leaves the
	// descriptions they have as they are ("" on what is made), so that an imported network
	// (Unikorn's says "unikorn managed provider network") keeps its own (describeTo).
	Description *string
	// ExternalNetworkID is the router's external network; "" picks the first one that the
	// provider's selector admits.
	ExternalNetworkID string
}

// Ref holds the IDs already known (from state) of a network's objects; any may be "".
type Ref struct {
	NetworkID string
	SubnetID  string
	RouterID  string
}

// Network is what Neutron holds of one unikorn_network. Subnet and Router are nil when they
// are missing; InterfacePortID is "" when the router is not attached to the subnet.
type Network struct {
	ID          string
	Name        string
	Description string
	ProjectID   string
	// VLANID is the segmentation ID of a VLAN provider network; nil otherwise.
	VLANID *int

	Subnet *Subnet
	Router *Router

	InterfacePortID string

	// Refound lists the parts that were gone by their recorded IDs and found again by name.
	Refound []Refound
}

// Complete tells whether every part of the network exists.
func (n *Network) Complete() bool {
	return n != nil && n.ID != "" && n.Subnet != nil && n.Router != nil && n.InterfacePortID != ""
}

// Ref is the IDs of what exists.
func (n *Network) Ref() Ref {
	ref := Ref{NetworkID: n.ID}
	if n.Subnet != nil {
		ref.SubnetID = n.Subnet.ID
	}

	if n.Router != nil {
		ref.RouterID = n.Router.ID
	}

	return ref
}

// Subnet is the IPv4 subnet of a network.
type Subnet struct {
	ID              string
	Description     string
	CIDR            string
	GatewayIP       string
	AllocationPools []AddressRange
	DNSNameservers  []string
	Routes          []Route
}

// Router is the router of a network.
type Router struct {
	ID                string
	Description       string
	ExternalNetworkID string
}

func (n *Network) setNetwork(net neutronNetwork) {
	n.ID = net.ID
	n.Name = net.Name
	n.Description = userDescription(net.Description)
	n.ProjectID = net.ProjectID
	n.VLANID = nil

	if id, ok := net.vlanID(); ok {
		n.VLANID = &id
	}
}

func toSubnet(s subnets.Subnet) *Subnet {
	out := &Subnet{
		ID:             s.ID,
		Description:    userDescription(s.Description),
		CIDR:           s.CIDR,
		GatewayIP:      s.GatewayIP,
		DNSNameservers: slices.Clone(s.DNSNameservers),
	}

	for _, p := range s.AllocationPools {
		r, err := ParseRange(p.Start, p.End)
		if err == nil {
			out.AllocationPools = append(out.AllocationPools, r)
		}
	}

	out.Routes = RoutesOf(s.HostRoutes)

	return out
}

// RoutesOf is Neutron's host routes of a subnet as Routes; nil for none.
func RoutesOf(hs []subnets.HostRoute) []Route {
	var out []Route
	for _, h := range hs {
		out = append(out, Route{Destination: h.DestinationCIDR, NextHop: h.NextHop})
	}

	return out
}

// HostRoutes is routes as Neutron takes them; empty, never nil, for none (an update that
// clears them).
func HostRoutes(rs []Route) []subnets.HostRoute {
	out := make([]subnets.HostRoute, 0, len(rs))
	for _, r := range rs {
		out = append(out, subnets.HostRoute{DestinationCIDR: r.Destination, NextHop: r.NextHop})
	}

	return out
}

func toRouter(r routers.Router) *Router {
	return &Router{ID: r.ID, Description: userDescription(r.Description), ExternalNetworkID: r.GatewayInfo.NetworkID}
}

// networkClient is the Neutron client networks are read and made through: the admin scope's
// when the provider configures a VLAN provider network (stock policy shows a network's provider
// attributes, its VLAN ID, to admin only, and reserves making them for admin), else the tenant's.
func (s *Service) networkClient(ctx context.Context) (*gophercloud.ServiceClient, error) {
	if s.cfg.ProviderNetwork == nil {
		return s.sc, nil
	}

	return s.adminNetwork(ctx)
}

// networks is the lookup of the project's networks, through networkClient.
func (s *Service) networks(ctx context.Context) (lookup[neutronNetwork], error) {
	sc, err := s.networkClient(ctx)
	if err != nil {
		return lookup[neutronNetwork]{}, err
	}

	return networkLookup(sc, s.ProjectID()).inRun(s.tenant, func(ctx context.Context) ([]neutronNetwork, error) {
		return listNetworks(ctx, sc, networks.ListOpts{ProjectID: s.ProjectID()})
	}), nil
}

// ObserveNetwork reads what exists of network name, starting from the known IDs and
// re-finding by name what is gone by ID (said in Network.Refound). What is re-found by name is
// taken only under the ownership rule (ownership.go): the network must be an unfinished create
// of a unikorn_network, a subnet or router must carry a unikorn_network's creation mark;
// anything else is taken as gone. It returns nil when the Neutron network itself is gone.
func (s *Service) ObserveNetwork(ctx context.Context, name string, known Ref) (*Network, error) {
	nl, err := s.networks(ctx)
	if err != nil {
		return nil, err
	}

	out := &Network{}
	part := networkPart(name)

	net, found, err := nl.owning(s.tenant, TypeNetwork, "").observe(ctx, naming.Network(name), known.NetworkID, &out.Refound)
	if err != nil || !found {
		return nil, err
	}

	out.setNetwork(net)

	sl := s.subnetIn(net.ID).owning(s.tenant, TypeNetwork, part)
	if sub, found, err := sl.observe(ctx, naming.Subnet(name), known.SubnetID, &out.Refound); err != nil {
		return out, err
	} else if found {
		out.Subnet = toSubnet(sub)
	}

	rl := s.routerIn().owning(s.tenant, TypeNetwork, part)
	if r, found, err := rl.observe(ctx, naming.Router(name), known.RouterID, &out.Refound); err != nil {
		return out, err
	} else if found {
		out.Router = toRouter(r)
	}

	if out.Subnet != nil && out.Router != nil {
		out.InterfacePortID, err = s.interfacePort(ctx, out.Router.ID, out.ID, out.Subnet.ID)
		if err != nil {
			return out, err
		}
	}

	return out, nil
}

// InUseError says that a network part cannot be deleted because ports still use it.
type InUseError struct {
	What  string // "network network-a (id)"
	Ports []string
	Err   error
}

func (e *InUseError) Error() string {
	if len(e.Ports) == 0 {
		return fmt.Sprintf("%s is still in use: %v", e.What, e.Err)
	}

	return fmt.Sprintf("%s is still in use by %d port(s): %s", e.What, len(e.Ports), strings.Join(e.Ports, "; "))
}

func (e *InUseError) Unwrap() error { return e.Err }

// DescribePort names a port for a human: name (or ID), ID, project, owner and device.
func DescribePort(p ports.Port) string {
	name := cmp.Or(p.Name, "(unnamed)")

	device := ""
	if p.DeviceID != "" {
		device = ", device " + p.DeviceID
	}

	return fmt.Sprintf("port %s (%s, project %s, owner %s%s)",
		name, p.ID, cmp.Or(p.ProjectID, "none"), cmp.Or(p.DeviceOwner, "none"), device)
}

// PortsInUse is the error of a 409 (cause) on deleting what: an *InUseError naming the ports of
// all that hold it (Neutron's own DHCP ports, which it removes itself, left out), or saying
// that listing them failed too (listErr).
func PortsInUse(what string, all []ports.Port, listErr, cause error) error {
	if listErr != nil {
		return &InUseError{What: what, Err: errors.Join(cause, listErr)}
	}

	var described []string

	for _, p := range all {
		if p.DeviceOwner != "network:dhcp" {
			described = append(described, DescribePort(p))
		}
	}

	return &InUseError{What: what, Ports: described, Err: cause}
}

// deleteOrInUse deletes what with del: 404 is success, a 409 an *InUseError naming the ports
// that the listing inUse finds (PortsInUse).
func (s *Service) deleteOrInUse(ctx context.Context, what string, del func() error, inUse ports.ListOpts) error {
	err := apiError(del())

	switch {
	case err == nil, isNotFound(err):
		return nil
	case isConflict(err):
		all, listErr := s.listPorts(ctx, inUse)
		return PortsInUse(what, all, listErr, err)
	}

	return fmt.Errorf("deleting %s: %w", what, err)
}

// refByName is the IDs of network name's parts, by exact name: for a state that recorded none.
func (s *Service) refByName(ctx context.Context, name string) (Ref, error) {
	var (
		ref Ref
		err error
	)

	ref.NetworkID, err = networkLookup(s.sc, s.ProjectID()).findID(ctx, naming.Network(name))

	if err == nil && ref.NetworkID != "" {
		ref.SubnetID, err = s.subnetIn(ref.NetworkID).findID(ctx, naming.Subnet(name))
	}

	if err == nil {
		ref.RouterID, err = s.routerIn().findID(ctx, naming.Router(name))
	}

	return ref, err
}

// deleteRef is what DeleteNetwork deletes: the recorded IDs (DESIGN.md §5). A name is used only
// when no ID was recorded at all, or for a part that the recorded network itself binds and the
// state could not record: its subnet (looked up inside the recorded network), and its router
// when that router serves no other network (a create that failed before attaching the router
// records none). A newer network that reuses the name is never touched.
func (s *Service) deleteRef(ctx context.Context, name string, known Ref) (Ref, error) {
	if known == (Ref{}) {
		return s.refByName(ctx, name)
	}

	ref := known
	if ref.NetworkID == "" {
		return ref, nil
	}

	var err error

	if ref.SubnetID == "" {
		ref.SubnetID, err = s.subnetIn(ref.NetworkID).findID(ctx, naming.Subnet(name))
	}

	if err == nil && ref.RouterID == "" {
		ref.RouterID, err = s.boundRouter(ctx, name, ref.NetworkID)
	}

	return ref, err
}

// boundRouter is the router network-<name> whose interfaces are all on networkID (or that
// has none); "" when there is none.
func (s *Service) boundRouter(ctx context.Context, name, networkID string) (string, error) {
	all, err := s.routerIn().exact(ctx, naming.Router(name))
	if err != nil {
		return "", fmt.Errorf("looking up router %s: %w", naming.Router(name), err)
	}

	for _, r := range all {
		ps, err := s.listPorts(ctx, ports.ListOpts{DeviceID: r.ID})
		if err != nil {
			return "", fmt.Errorf("listing the ports of router %s: %w", r.ID, err)
		}

		if !slices.ContainsFunc(ps, func(p ports.Port) bool {
			return slices.Contains(RouterInterfaceOwners, p.DeviceOwner) && p.NetworkID != networkID
		}) {
			return r.ID, nil
		}
	}

	return "", nil
}

// DeleteNetwork deletes network name: the router interface, the router, the subnet and the
// network, in that order. It acts on the recorded IDs (see deleteRef); anything already gone
// (404) counts as deleted. A part still in use fails with an *InUseError that names the ports.
func (s *Service) DeleteNetwork(ctx context.Context, name string, known Ref) error {
	ref, err := s.deleteRef(ctx, name, known)
	if err != nil {
		return err
	}

	s.wroteNetwork(name, ref)

	if ref.RouterID != "" && ref.SubnetID != "" {
		// 404: the router or its interface on the subnet is gone already.
		_, err := routers.RemoveInterface(ctx, s.sc, ref.RouterID, routers.RemoveInterfaceOpts{SubnetID: ref.SubnetID}).Extract()
		if err = apiError(err); err != nil && !isNotFound(err) {
			return fmt.Errorf("detaching router %s from subnet %s: %w", ref.RouterID, ref.SubnetID, err)
		}
	}

	parts := []struct {
		what, id string
		del      func(id string) error
		inUse    ports.ListOpts
	}{
		{"router " + naming.Router(name), ref.RouterID,
			func(id string) error { return routers.Delete(ctx, s.sc, id).ExtractErr() }, ports.ListOpts{DeviceID: ref.RouterID}},
		{"subnet " + naming.Subnet(name), ref.SubnetID,
			func(id string) error { return subnets.Delete(ctx, s.sc, id).ExtractErr() },
			ports.ListOpts{FixedIPs: []ports.FixedIPOpts{{SubnetID: ref.SubnetID}}}},
		{"network " + naming.Network(name), ref.NetworkID,
			func(id string) error { return networks.Delete(ctx, s.sc, id).ExtractErr() }, ports.ListOpts{NetworkID: ref.NetworkID}},
	}

	for _, p := range parts {
		if p.id == "" {
			continue
		}

		if err := s.deleteOrInUse(ctx, fmt.Sprintf("%s (%s)", p.what, p.id), func() error { return p.del(p.id) }, p.inUse); err != nil {
			return err
		}
	}

	return nil
}
