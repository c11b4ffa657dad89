package loadbalancer

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// This file holds what the load balancer needs from Neutron that is its own: the VIP's
// network and subnet. The floating IP on the VIP is internal/network's (gateway.go), the one
// home of floating IPs and of the external network behind a router.

// VIPNetwork is the network a load balancer's VIP goes on, and its VIP subnet.
type VIPNetwork struct {
	ID, Name, ProjectID string
	SubnetID            string
	// CIDR is the VIP subnet's prefix: the VIP and every member address must be inside it.
	CIDR netip.Prefix
}

// NetworkError is a network_id the load balancer cannot use: not found in the identity's
// project in the region (it belongs to another region or identity, or does not exist), or
// owned by another project.
type NetworkError struct {
	NetworkID, Region, Reason string
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("network %s %s: a load balancer's VIP must be on a network of its identity, in its region",
		e.NetworkID, e.Reason)
}

// VIPNetwork reads network networkID and chooses its VIP subnet: the network's only subnet;
// with several, the IPv4 one named like the network (unikorn_network makes one subnet named
// network-<name>), else the only IPv4 one. A network that is not the identity project's is a
// *NetworkError.
func (s *Service) VIPNetwork(ctx context.Context, networkID string) (*VIPNetwork, error) {
	n, err := networks.Get(ctx, s.Neutron, networkID).Extract()

	switch {
	case isNotFound(err):
		return nil, &NetworkError{NetworkID: networkID, Region: s.Region,
			Reason: fmt.Sprintf("is not in the identity's project %s in region %s (it belongs to another region or identity, or does not exist)",
				orNone(s.ProjectID), orNone(s.Region))}
	case err != nil:
		return nil, fmt.Errorf("reading network %s: %w", networkID, err)
	}

	owner := cmp.Or(n.ProjectID, n.TenantID)
	if s.ProjectID != "" && owner != s.ProjectID {
		return nil, &NetworkError{NetworkID: networkID, Region: s.Region,
			Reason: fmt.Sprintf("(%s) belongs to project %s, not to the identity's project %s", n.Name, owner, s.ProjectID)}
	}

	subnet, err := s.vipSubnet(ctx, n)
	if err != nil {
		return nil, err
	}

	cidr, err := netip.ParsePrefix(subnet.CIDR)
	if err != nil {
		return nil, fmt.Errorf("subnet %s of network %s has no usable CIDR %q: %w", subnet.ID, networkID, subnet.CIDR, err)
	}

	return &VIPNetwork{ID: n.ID, Name: n.Name, ProjectID: owner, SubnetID: subnet.ID, CIDR: cidr.Masked()}, nil
}

// vipSubnet is the subnet of n that the VIP goes on.
func (s *Service) vipSubnet(ctx context.Context, n *networks.Network) (*subnets.Subnet, error) {
	switch len(n.Subnets) {
	case 0:
		return nil, fmt.Errorf("network %s (%s) has no subnet for the VIP", n.Name, n.ID)
	case 1:
		sn, err := subnets.Get(ctx, s.Neutron, n.Subnets[0]).Extract()
		if err != nil {
			return nil, fmt.Errorf("reading subnet %s of network %s: %w", n.Subnets[0], n.ID, err)
		}

		return sn, nil
	}

	all, err := cloud.ListAll(ctx, subnets.List(s.Neutron, subnets.ListOpts{NetworkID: n.ID, IPVersion: 4}), subnets.ExtractSubnets,
		"the subnets of network "+n.ID)
	if err != nil {
		return nil, err
	}

	if named := naming.Exact(all, n.Name, func(sn subnets.Subnet) string { return sn.Name }); len(named) == 1 {
		return &named[0], nil
	}

	if len(all) == 1 {
		return &all[0], nil
	}

	ids := make([]string, len(all))
	for i, sn := range all {
		ids[i] = sn.ID
	}

	return nil, fmt.Errorf("network %s (%s) has %d IPv4 subnets (%s) and none is named %q: cannot choose the VIP subnet",
		n.Name, n.ID, len(all), strings.Join(ids, ", "), n.Name)
}

// findFloatingIP returns the floating IP on the VIP port, or nil; two are a consistency error.
func (s *Service) findFloatingIP(ctx context.Context, name, portID string) (*network.FloatingIP, error) {
	if portID == "" {
		return nil, nil
	}

	fips, err := network.FloatingIPsOn(ctx, s.Neutron, s.Tenant, s.ProjectID, portID)
	if err != nil {
		return nil, err
	}

	switch len(fips) {
	case 0:
		return nil, nil
	case 1:
		return &fips[0], nil
	}

	ids := make([]string, len(fips))
	for i, f := range fips {
		ids[i] = f.ID + " (" + f.Address + ")"
	}

	return nil, fmt.Errorf("consistency error: %d floating IPs on the VIP port %s of %s: %s",
		len(fips), portID, naming.LoadBalancer(name), strings.Join(ids, ", "))
}

// convergeFloatingIP puts a floating IP on the VIP port of t when spec asks for a public IP
// (the one there, one left over for this load balancer, or a new one from the external
// network of the VIP subnet's router, described lb-<name>), and removes it (and any left over
// for this load balancer) otherwise.
func (s *Service) convergeFloatingIP(ctx context.Context, spec Spec, t *Topology) error {
	if spec.PublicIP {
		if t.FloatingIP != nil {
			return nil
		}

		if t.VIPPortID == "" {
			return fmt.Errorf("load balancer %s (%s) has no VIP port to put a public IP on", t.Name, t.ID)
		}

		fip, err := network.EnsureFloatingIP(ctx, s.Neutron, network.PublicAddress{
			ProjectID:   s.ProjectID,
			PortID:      t.VIPPortID,
			NetworkID:   t.VIPNetworkID,
			SubnetID:    t.VIPSubnetID,
			Description: naming.LoadBalancer(spec.Name),
			Tenant:      s.Tenant,
		})
		if err != nil {
			return err
		}

		t.FloatingIP = fip

		return nil
	}

	if t.FloatingIP == nil {
		return nil
	}

	if err := network.RemoveFloatingIPs(ctx, s.Neutron, s.publicAddress(t.VIPPortID, spec.Name)); err != nil {
		return err
	}

	t.FloatingIP = nil

	return nil
}

// publicAddress is where the public IP of load balancer name goes: its VIP port portID.
func (s *Service) publicAddress(portID, name string) network.PublicAddress {
	return network.PublicAddress{ProjectID: s.ProjectID, PortID: portID, Description: naming.LoadBalancer(name), Tenant: s.Tenant}
}
