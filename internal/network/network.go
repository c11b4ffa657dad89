package network

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
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

// NetworkSpec is what a unikorn_network asks for.
type NetworkSpec struct {
	// Name is the user-given name; the network, subnet and router are network-<name>.
	Name           string
	Addressing     Addressing
	DNSNameservers []string
	Routes         []Route
	Description    string
	// ExternalNetworkID is the router's external network; "" picks the first one that the
	// provider's selector admits.
	ExternalNetworkID string
}

// NetworkRef holds the IDs already known (from state) of a network's objects; any may be "".
type NetworkRef struct {
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
}

// Complete tells whether every part of the network exists.
func (n *Network) Complete() bool {
	return n != nil && n.ID != "" && n.Subnet != nil && n.Router != nil && n.InterfacePortID != ""
}

// Ref is the IDs of what exists.
func (n *Network) Ref() NetworkRef {
	ref := NetworkRef{NetworkID: n.ID}
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
	n.Description = net.Description
	n.ProjectID = net.ProjectID
	n.VLANID = nil

	if strings.EqualFold(net.NetworkType, "vlan") && net.SegmentationID.Valid {
		id := net.SegmentationID.Value
		n.VLANID = &id
	}
}

func toSubnet(s neutronSubnet) *Subnet {
	out := &Subnet{
		ID:             s.ID,
		Description:    s.Description,
		CIDR:           s.CIDR,
		DNSNameservers: slices.Clone(s.DNSNameservers),
	}

	if s.GatewayIP != nil {
		out.GatewayIP = *s.GatewayIP
	}

	for _, p := range s.AllocationPools {
		r, err := ParseRange(p.Start, p.End)
		if err == nil {
			out.AllocationPools = append(out.AllocationPools, r)
		}
	}

	for _, r := range s.HostRoutes {
		out.Routes = append(out.Routes, Route(r))
	}

	return out
}

func toRouter(r neutronRouter) *Router {
	return &Router{ID: r.ID, Description: r.Description, ExternalNetworkID: r.gatewayNetworkID()}
}

// findNetwork finds network-<name> of the project: by knownID first, then by exact name.
func (s *Service) findNetwork(ctx context.Context, name, knownID string) (neutronNetwork, bool, error) {
	if knownID != "" {
		var net neutronNetwork

		err := s.neutron.get(ctx, collNetworks, knownID, &net)
		if err == nil {
			return net, true, nil
		}

		if !isNotFound(err) {
			return net, false, fmt.Errorf("reading network %s: %w", knownID, err)
		}

		tflog.Debug(ctx, "The network is gone by ID; looking it up by name", map[string]any{"network_id": knownID})
	}

	return findOne(ctx, s.neutron, collNetworks, kindNetwork, naming.Network(name), url.Values{"project_id": {s.projectID}},
		func(n neutronNetwork) string { return n.Name }, func(n neutronNetwork) string { return n.ID })
}

// findSubnet finds the subnet network-<name> of networkID: by knownID first, then by exact name.
func (s *Service) findSubnet(ctx context.Context, name, networkID, knownID string) (neutronSubnet, bool, error) {
	if knownID != "" {
		var sub neutronSubnet

		err := s.neutron.get(ctx, collSubnets, knownID, &sub)
		if err == nil && sub.NetworkID == networkID {
			return sub, true, nil
		}

		if err != nil && !isNotFound(err) {
			return sub, false, fmt.Errorf("reading subnet %s: %w", knownID, err)
		}
	}

	return findOne(ctx, s.neutron, collSubnets, kindSubnet, naming.Subnet(name), url.Values{"network_id": {networkID}},
		func(n neutronSubnet) string { return n.Name }, func(n neutronSubnet) string { return n.ID })
}

// findRouter finds the router network-<name> of the project: by knownID first, then by exact name.
func (s *Service) findRouter(ctx context.Context, name, knownID string) (neutronRouter, bool, error) {
	if knownID != "" {
		var r neutronRouter

		err := s.neutron.get(ctx, collRouters, knownID, &r)
		if err == nil {
			return r, true, nil
		}

		if !isNotFound(err) {
			return r, false, fmt.Errorf("reading router %s: %w", knownID, err)
		}
	}

	return findOne(ctx, s.neutron, collRouters, kindRouter, naming.Router(name), url.Values{"project_id": {s.projectID}},
		func(n neutronRouter) string { return n.Name }, func(n neutronRouter) string { return n.ID })
}

// interfacePort finds the port that attaches routerID to subnetID; "" when there is none.
func (s *Service) interfacePort(ctx context.Context, routerID, networkID, subnetID string) (string, error) {
	ports, err := list[neutronPort](ctx, s.neutron, collPorts, url.Values{"device_id": {routerID}, "network_id": {networkID}})
	if err != nil {
		return "", fmt.Errorf("listing the ports of router %s: %w", routerID, err)
	}

	for _, p := range ports {
		if p.DeviceID != routerID {
			continue
		}

		for _, ip := range p.FixedIPs {
			if ip.SubnetID == subnetID {
				return p.ID, nil
			}
		}
	}

	return "", nil
}

// ObserveNetwork reads what exists of network name, starting from the known IDs and
// re-finding by name what is gone by ID. It returns nil when the Neutron network itself is
// gone.
func (s *Service) ObserveNetwork(ctx context.Context, name string, known NetworkRef) (*Network, error) {
	net, found, err := s.findNetwork(ctx, name, known.NetworkID)
	if err != nil {
		return nil, err
	}

	if !found {
		return nil, nil
	}

	out := &Network{}
	out.setNetwork(net)

	sub, found, err := s.findSubnet(ctx, name, net.ID, known.SubnetID)
	if err != nil {
		return out, err
	}

	if found {
		out.Subnet = toSubnet(sub)
	}

	r, found, err := s.findRouter(ctx, name, known.RouterID)
	if err != nil {
		return out, err
	}

	if found {
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

// EnsureNetwork makes network spec.Name exist as specified: each part is looked up (by the
// known ID, then by exact name) and adopted when it exists, created when it does not, and
// converged in place. It returns what exists even when it fails part way, so that the caller
// can record it.
func (s *Service) EnsureNetwork(ctx context.Context, spec NetworkSpec, known NetworkRef) (*Network, error) {
	out := &Network{}

	net, found, err := s.findNetwork(ctx, spec.Name, known.NetworkID)
	if err != nil {
		return nil, err
	}

	createdNetwork := !found

	if createdNetwork {
		if net, err = s.createNetwork(ctx, spec); err != nil {
			return nil, err
		}
	} else if net.Description != spec.Description {
		if err := s.neutron.update(ctx, collNetworks, net.ID, map[string]any{"description": spec.Description}, &net); err != nil {
			out.setNetwork(net)
			return out, fmt.Errorf("updating the description of network %s: %w", net.ID, err)
		}
	}

	out.setNetwork(net)

	sub, err := s.ensureSubnet(ctx, spec, net.ID, known.SubnetID, createdNetwork)
	if sub.ID != "" {
		out.Subnet = toSubnet(sub)
	}

	if err != nil {
		return out, err
	}

	r, createdRouter, err := s.ensureRouter(ctx, spec, known.RouterID)
	if r.ID != "" {
		out.Router = toRouter(r)
	}

	if err != nil {
		return out, err
	}

	// A port can only exist on a subnet or router that existed before.
	if !createdNetwork && !createdRouter {
		if out.InterfacePortID, err = s.interfacePort(ctx, r.ID, net.ID, sub.ID); err != nil {
			return out, err
		}
	}

	if out.InterfacePortID == "" {
		var attached struct {
			PortID string `json:"port_id"`
		}

		err := s.neutron.action(ctx, collRouters, r.ID, "add_router_interface", map[string]any{"subnet_id": sub.ID}, &attached)
		if err != nil {
			return out, fmt.Errorf("attaching router %s to subnet %s: %w", r.ID, sub.ID, err)
		}

		out.InterfacePortID = attached.PortID
	}

	return out, nil
}

// createNetwork creates the Neutron network of spec, as a VLAN provider network when the
// provider configures one.
func (s *Service) createNetwork(ctx context.Context, spec NetworkSpec) (neutronNetwork, error) {
	body := map[string]any{
		"name":           naming.Network(spec.Name),
		"description":    spec.Description,
		"admin_state_up": true,
	}

	if pn := s.cfg.ProviderNetwork; pn != nil {
		return createVLANNetwork(ctx, s.neutron, body, pn)
	}

	var out neutronNetwork
	if err := s.neutron.create(ctx, collNetworks, body, &out); err != nil {
		return out, fmt.Errorf("creating network %s: %w", naming.Network(spec.Name), err)
	}

	return out, nil
}

// subnetFields are the mutable fields of the subnet of spec.
func subnetFields(spec NetworkSpec) map[string]any {
	a := spec.Addressing

	dns := spec.DNSNameservers
	if dns == nil {
		dns = []string{}
	}

	routes := make([]neutronHostRoute, 0, len(spec.Routes))
	for _, r := range spec.Routes {
		routes = append(routes, neutronHostRoute(r))
	}

	return map[string]any{
		"description":      spec.Description,
		"gateway_ip":       a.Gateway.String(),
		"allocation_pools": []allocationPool{{Start: a.Pool.Start.String(), End: a.Pool.End.String()}},
		"dns_nameservers":  dns,
		"host_routes":      routes,
	}
}

// subnetDiff returns the fields of want that differ on the existing subnet.
func subnetDiff(sub neutronSubnet, spec NetworkSpec) map[string]any {
	want := subnetFields(spec)
	have := toSubnet(sub)
	diff := map[string]any{}

	if have.Description != spec.Description {
		diff["description"] = want["description"]
	}

	if have.GatewayIP != spec.Addressing.Gateway.String() {
		diff["gateway_ip"] = want["gateway_ip"]
	}

	if len(have.AllocationPools) != 1 || have.AllocationPools[0] != spec.Addressing.Pool {
		diff["allocation_pools"] = want["allocation_pools"]
	}

	if !slices.Equal(have.DNSNameservers, spec.DNSNameservers) {
		diff["dns_nameservers"] = want["dns_nameservers"]
	}

	if !sameRoutes(have.Routes, spec.Routes) {
		diff["host_routes"] = want["host_routes"]
	}

	return diff
}

// sameRoutes compares host routes as sets.
func sameRoutes(a, b []Route) bool {
	if len(a) != len(b) {
		return false
	}

	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}

	return true
}

// ensureSubnet finds or creates the subnet of spec in networkID and converges it.
func (s *Service) ensureSubnet(ctx context.Context, spec NetworkSpec, networkID, knownID string, fresh bool) (neutronSubnet, error) {
	name := naming.Subnet(spec.Name)

	if !fresh {
		sub, found, err := s.findSubnet(ctx, spec.Name, networkID, knownID)
		if err != nil {
			return neutronSubnet{}, err
		}

		if found {
			if sub.CIDR != spec.Addressing.CIDR.String() {
				return sub, fmt.Errorf("subnet %s (%s) of network %s has the CIDR %s, not %s: a subnet's CIDR cannot change; "+
					"delete the network or set cidr = %q", name, sub.ID, networkID, sub.CIDR, spec.Addressing.CIDR, sub.CIDR)
			}

			diff := subnetDiff(sub, spec)
			if len(diff) == 0 {
				return sub, nil
			}

			if err := s.neutron.update(ctx, collSubnets, sub.ID, diff, &sub); err != nil {
				return sub, fmt.Errorf("updating subnet %s (%s): %w", name, sub.ID, err)
			}

			return sub, nil
		}
	}

	body := subnetFields(spec)
	body["name"] = name
	body["network_id"] = networkID
	body["ip_version"] = 4
	body["cidr"] = spec.Addressing.CIDR.String()
	body["enable_dhcp"] = true

	var sub neutronSubnet
	if err := s.neutron.create(ctx, collSubnets, body, &sub); err != nil {
		return neutronSubnet{}, fmt.Errorf("creating subnet %s in network %s: %w", name, networkID, err)
	}

	return sub, nil
}

// ensureRouter finds or creates the router of spec and converges its gateway and description.
func (s *Service) ensureRouter(ctx context.Context, spec NetworkSpec, knownID string) (neutronRouter, bool, error) {
	name := naming.Router(spec.Name)

	r, found, err := s.findRouter(ctx, spec.Name, knownID)
	if err != nil {
		return neutronRouter{}, false, err
	}

	external := spec.ExternalNetworkID
	if external == "" && (!found || r.gatewayNetworkID() == "") {
		if external, err = s.cfg.DefaultExternalNetwork(ctx, s.neutron.sc, s.region); err != nil {
			return r, false, err
		}
	}

	if !found {
		body := map[string]any{
			"name":                  name,
			"description":           spec.Description,
			"external_gateway_info": map[string]any{"network_id": external},
		}

		if err := s.neutron.create(ctx, collRouters, body, &r); err != nil {
			return neutronRouter{}, false, fmt.Errorf("creating router %s on external network %s: %w", name, external, err)
		}

		return r, true, nil
	}

	diff := map[string]any{}
	if r.Description != spec.Description {
		diff["description"] = spec.Description
	}

	if external != "" && r.gatewayNetworkID() != external {
		diff["external_gateway_info"] = map[string]any{"network_id": external}
	}

	if len(diff) > 0 {
		if err := s.neutron.update(ctx, collRouters, r.ID, diff, &r); err != nil {
			return r, false, fmt.Errorf("updating router %s (%s): %w", name, r.ID, err)
		}
	}

	return r, false, nil
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

// inUse builds the error for a 409 on deleting what, listing the ports that query finds
// (Neutron's own DHCP ports, which it removes itself, left out).
func (s *Service) inUse(ctx context.Context, what string, query url.Values, cause error) error {
	ports, err := list[neutronPort](ctx, s.neutron, collPorts, query)
	if err != nil {
		return &InUseError{What: what, Err: errors.Join(cause, err)}
	}

	var described []string

	for _, p := range ports {
		if p.DeviceOwner == "network:dhcp" {
			continue
		}

		described = append(described, p.describe())
	}

	return &InUseError{What: what, Ports: described, Err: cause}
}

// DeleteNetwork deletes network name: the router interface, the router, the subnet and the
// network, in that order. IDs not known are looked up by name; anything already gone (404)
// counts as deleted. A part still in use fails with an *InUseError that names the ports.
func (s *Service) DeleteNetwork(ctx context.Context, name string, known NetworkRef) error {
	ref := known

	if ref.NetworkID == "" {
		net, found, err := s.findNetwork(ctx, name, "")
		if err != nil {
			return err
		}

		if found {
			ref.NetworkID = net.ID
		}
	}

	if ref.SubnetID == "" && ref.NetworkID != "" {
		sub, found, err := s.findSubnet(ctx, name, ref.NetworkID, "")
		if err != nil {
			return err
		}

		if found {
			ref.SubnetID = sub.ID
		}
	}

	if ref.RouterID == "" {
		r, found, err := s.findRouter(ctx, name, "")
		if err != nil {
			return err
		}

		if found {
			ref.RouterID = r.ID
		}
	}

	if ref.RouterID != "" && ref.SubnetID != "" {
		// 404: the router or its interface on the subnet is gone already.
		err := s.neutron.action(ctx, collRouters, ref.RouterID, "remove_router_interface", map[string]any{"subnet_id": ref.SubnetID}, nil)
		if err != nil && !isNotFound(err) {
			return fmt.Errorf("detaching router %s from subnet %s: %w", ref.RouterID, ref.SubnetID, err)
		}
	}

	if ref.RouterID != "" {
		if err := s.neutron.delete(ctx, collRouters, ref.RouterID); err != nil && !isNotFound(err) {
			if isConflict(err) {
				return s.inUse(ctx, fmt.Sprintf("router %s (%s)", naming.Router(name), ref.RouterID),
					url.Values{"device_id": {ref.RouterID}}, err)
			}

			return fmt.Errorf("deleting router %s: %w", ref.RouterID, err)
		}
	}

	if ref.SubnetID != "" {
		if err := s.neutron.delete(ctx, collSubnets, ref.SubnetID); err != nil && !isNotFound(err) {
			if isConflict(err) {
				return s.inUse(ctx, fmt.Sprintf("subnet %s (%s)", naming.Subnet(name), ref.SubnetID),
					url.Values{"fixed_ips": {"subnet_id=" + ref.SubnetID}}, err)
			}

			return fmt.Errorf("deleting subnet %s: %w", ref.SubnetID, err)
		}
	}

	if ref.NetworkID != "" {
		if err := s.neutron.delete(ctx, collNetworks, ref.NetworkID); err != nil && !isNotFound(err) {
			if isConflict(err) {
				return s.inUse(ctx, fmt.Sprintf("network %s (%s)", naming.Network(name), ref.NetworkID),
					url.Values{"network_id": {ref.NetworkID}}, err)
			}

			return fmt.Errorf("deleting network %s: %w", ref.NetworkID, err)
		}
	}

	return nil
}

// LocateNetwork finds, for an import, the network given by ID or by user-given name in
// region, in whatever project it is (through the provider's configured scope, which must be
// able to see every project's networks, as an admin's can).
func LocateNetwork(ctx context.Context, c *cloud.Client, region, idOrName string) (Located, error) {
	return locate(ctx, c, region, collNetworks, kindNetwork, naming.NetworkPrefix, idOrName,
		func(n neutronNetwork) (string, string, string) { return n.ID, n.Name, n.ProjectID })
}
