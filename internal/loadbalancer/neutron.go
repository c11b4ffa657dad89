package loadbalancer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// routerInterfaceOwners are the device owners of a router's port on a subnet.
var routerInterfaceOwners = []string{
	"network:router_interface",
	"network:ha_router_replicated_interface",
	"network:router_interface_distributed",
}

// vipSubnet is the subnet of network networkID that the VIP goes on: the network's only
// subnet; with several, the IPv4 one named like the network (unikorn_network makes one
// subnet named network-<name>), else the only IPv4 one.
func (s *Service) vipSubnet(ctx context.Context, networkID string) (string, error) {
	n, err := networks.Get(ctx, s.Neutron, networkID).Extract()

	switch {
	case isNotFound(err):
		return "", fmt.Errorf("network %s not found in the identity's project", networkID)
	case err != nil:
		return "", fmt.Errorf("reading network %s: %w", networkID, err)
	case len(n.Subnets) == 0:
		return "", fmt.Errorf("network %s (%s) has no subnet for the VIP", n.Name, networkID)
	case len(n.Subnets) == 1:
		return n.Subnets[0], nil
	}

	pages, err := subnets.List(s.Neutron, subnets.ListOpts{NetworkID: networkID, IPVersion: 4}).AllPages(ctx)
	if err != nil {
		return "", fmt.Errorf("listing the subnets of network %s: %w", networkID, err)
	}

	all, err := subnets.ExtractSubnets(pages)
	if err != nil {
		return "", fmt.Errorf("reading the subnets of network %s: %w", networkID, err)
	}

	if named := naming.Exact(all, n.Name, func(sn subnets.Subnet) string { return sn.Name }); len(named) == 1 {
		return named[0].ID, nil
	}

	if len(all) == 1 {
		return all[0].ID, nil
	}

	ids := make([]string, len(all))
	for i, sn := range all {
		ids[i] = sn.ID
	}

	return "", fmt.Errorf("network %s (%s) has %d IPv4 subnets (%s) and none is named %q: cannot choose the VIP subnet",
		n.Name, networkID, len(all), strings.Join(ids, ", "), n.Name)
}

// externalNetwork is the external network a floating IP for an address on subnetID must come
// from: the gateway network of the router with an interface on that subnet (Neutron refuses
// a floating IP from an external network the subnet has no router to).
func (s *Service) externalNetwork(ctx context.Context, networkID, subnetID string) (string, error) {
	for _, owner := range routerInterfaceOwners {
		pages, err := ports.List(s.Neutron, ports.ListOpts{NetworkID: networkID, DeviceOwner: owner}).AllPages(ctx)
		if err != nil {
			return "", fmt.Errorf("listing the router interfaces of network %s: %w", networkID, err)
		}

		all, err := ports.ExtractPorts(pages)
		if err != nil {
			return "", fmt.Errorf("reading the router interfaces of network %s: %w", networkID, err)
		}

		for _, p := range all {
			if !slices.ContainsFunc(p.FixedIPs, func(ip ports.IP) bool { return ip.SubnetID == subnetID }) {
				continue
			}

			r, err := routers.Get(ctx, s.Neutron, p.DeviceID).Extract()
			if err != nil {
				return "", fmt.Errorf("reading router %s of subnet %s: %w", p.DeviceID, subnetID, err)
			}

			if r.GatewayInfo.NetworkID == "" {
				return "", fmt.Errorf("router %s (%s) of subnet %s has no external gateway: a public IP needs one", r.Name, r.ID, subnetID)
			}

			return r.GatewayInfo.NetworkID, nil
		}
	}

	return "", fmt.Errorf("subnet %s of network %s has no router: a public IP needs the network's router with an external gateway",
		subnetID, networkID)
}

// findFloatingIP returns the floating IP on the VIP port, or nil.
func (s *Service) findFloatingIP(ctx context.Context, name, portID string) (*FloatingIP, error) {
	if portID == "" {
		return nil, nil
	}

	fips, err := s.listFloatingIPs(ctx, floatingips.ListOpts{PortID: portID})
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

// orphanFloatingIPs are the floating IPs this provider made for load balancer name
// (description lb-<name>) that are on no port anymore: the VIP port of a load balancer that
// was deleted out of band.
func (s *Service) orphanFloatingIPs(ctx context.Context, name string) ([]FloatingIP, error) {
	want := naming.LoadBalancer(name)

	fips, err := s.listFloatingIPs(ctx, floatingips.ListOpts{Description: want})
	if err != nil {
		return nil, err
	}

	return slices.DeleteFunc(fips, func(f FloatingIP) bool { return f.Description != want || f.PortID != "" }), nil
}

// listFloatingIPs lists the floating IPs of the scope's project that match opts.
func (s *Service) listFloatingIPs(ctx context.Context, opts floatingips.ListOpts) ([]FloatingIP, error) {
	pages, err := floatingips.List(s.Neutron, opts).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing floating IPs: %w", err)
	}

	all, err := floatingips.ExtractFloatingIPs(pages)
	if err != nil {
		return nil, fmt.Errorf("reading floating IPs: %w", err)
	}

	out := make([]FloatingIP, 0, len(all))
	for _, f := range all {
		out = append(out, FloatingIP{ID: f.ID, Address: f.FloatingIP, PortID: f.PortID, Description: f.Description})
	}

	return out, nil
}

// ensureFloatingIP puts a floating IP on the VIP port of t: the one already there, or one
// left over for this load balancer (re-associated), or a new one from the external network
// of the VIP subnet's router, described lb-<name> so that it can be found again.
func (s *Service) ensureFloatingIP(ctx context.Context, name string, t *Topology) error {
	if t.FloatingIP != nil {
		return nil
	}

	if t.VIPPortID == "" {
		return fmt.Errorf("load balancer %s (%s) has no VIP port to put a public IP on", t.Name, t.ID)
	}

	orphans, err := s.orphanFloatingIPs(ctx, name)
	if err != nil {
		return err
	}

	if len(orphans) > 0 {
		port := t.VIPPortID

		f, err := floatingips.Update(ctx, s.Neutron, orphans[0].ID, floatingips.UpdateOpts{PortID: &port}).Extract()
		if err != nil {
			return fmt.Errorf("attaching floating IP %s (%s) to the VIP port %s: %w", orphans[0].Address, orphans[0].ID, port, err)
		}

		t.FloatingIP = &FloatingIP{ID: f.ID, Address: f.FloatingIP, PortID: f.PortID, Description: f.Description}

		return nil
	}

	external, err := s.externalNetwork(ctx, t.VIPNetworkID, t.VIPSubnetID)
	if err != nil {
		return err
	}

	f, err := floatingips.Create(ctx, s.Neutron, floatingips.CreateOpts{
		FloatingNetworkID: external,
		PortID:            t.VIPPortID,
		Description:       naming.LoadBalancer(name),
	}).Extract()
	if err != nil {
		return fmt.Errorf("creating a floating IP on network %s for the VIP port %s: %w", external, t.VIPPortID, err)
	}

	t.FloatingIP = &FloatingIP{ID: f.ID, Address: f.FloatingIP, PortID: f.PortID, Description: f.Description}

	return nil
}

// removeFloatingIPs deletes the floating IP on the VIP port portID (if any) and the ones left
// over for load balancer name.
func (s *Service) removeFloatingIPs(ctx context.Context, name, portID string) error {
	var doomed []FloatingIP

	if portID != "" {
		fips, err := s.listFloatingIPs(ctx, floatingips.ListOpts{PortID: portID})
		if err != nil {
			return err
		}

		doomed = append(doomed, fips...)
	}

	orphans, err := s.orphanFloatingIPs(ctx, name)
	if err != nil {
		return err
	}

	doomed = append(doomed, orphans...)

	for _, f := range doomed {
		if err := floatingips.Delete(ctx, s.Neutron, f.ID).ExtractErr(); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting floating IP %s (%s): %w", f.Address, f.ID, err)
		}
	}

	return nil
}
