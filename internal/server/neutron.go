package server

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// routerInterfaceOwners are the device owners of a router's interface ports.
var routerInterfaceOwners = []string{
	"network:router_interface",
	"network:router_interface_distributed",
	"network:ha_router_replicated_interface",
}

// findPort returns the port of knownID, or (knownID unknown or gone) the project's one port
// named server-<name>; nil when there is none.
func (s *Service) findPort(ctx context.Context, name, knownID string) (*Port, error) {
	if knownID != "" {
		p, err := ports.Get(ctx, s.network, knownID).Extract()

		switch {
		case err == nil:
			return toPort(p), nil
		case !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			return nil, fmt.Errorf("reading port %s: %w", knownID, err)
		}

		tflog.Debug(ctx, "The recorded port is gone; looking it up by name", map[string]any{"port_id": knownID})
	}

	return s.findPortByName(ctx, name)
}

// findPortByName returns the project's one port named server-<name>, nil if none.
func (s *Service) findPortByName(ctx context.Context, name string) (*Port, error) {
	portName := naming.ServerPort(name)

	pages, err := ports.List(s.network, ports.ListOpts{Name: portName, ProjectID: s.projectID}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("looking up port %s: %w", portName, err)
	}

	all, err := ports.ExtractPorts(pages)
	if err != nil {
		return nil, fmt.Errorf("reading ports: %w", err)
	}

	p, ok, err := naming.One("port", portName, all, func(p ports.Port) string { return p.Name }, func(p ports.Port) string { return p.ID })
	if err != nil || !ok {
		return nil, err
	}

	return toPort(&p), nil
}

// createPort makes the port server-<name> on the spec's network.
func (s *Service) createPort(ctx context.Context, spec Spec) (*Port, error) {
	groups := slices.Clone(spec.SecurityGroupIDs)
	if groups == nil {
		groups = []string{} // none, rather than the project's default group
	}

	p, err := ports.Create(ctx, s.network, ports.CreateOpts{
		Name:                naming.ServerPort(spec.Name),
		NetworkID:           spec.NetworkID,
		SecurityGroups:      &groups,
		AllowedAddressPairs: toNeutronPairs(spec.AllowedAddressPairs),
	}).Extract()
	if err != nil {
		return nil, fmt.Errorf("creating port %s on network %s: %w", naming.ServerPort(spec.Name), spec.NetworkID, err)
	}

	tflog.Info(ctx, "Created the server's port", map[string]any{"port_id": p.ID})

	return toPort(p), nil
}

// convergePort updates the security groups and allowed address pairs of an existing port when
// they differ from spec (one request), after checking that it is on the spec's network.
func (s *Service) convergePort(ctx context.Context, port *Port, spec Spec) (*Port, error) {
	if port.NetworkID != spec.NetworkID {
		return port, fmt.Errorf("port %s (%s) is on network %s, not %s: delete it, or set network_id to its network",
			naming.ServerPort(spec.Name), port.ID, port.NetworkID, spec.NetworkID)
	}

	var opts ports.UpdateOpts

	if !sameSet(port.SecurityGroupIDs, spec.SecurityGroupIDs) {
		groups := slices.Clone(spec.SecurityGroupIDs)
		if groups == nil {
			groups = []string{}
		}

		opts.SecurityGroups = &groups
	}

	if !samePairs(port.AllowedAddressPairs, spec.AllowedAddressPairs, port.MACAddress) {
		pairs := toNeutronPairs(spec.AllowedAddressPairs)
		if pairs == nil {
			pairs = []ports.AddressPair{}
		}

		opts.AllowedAddressPairs = &pairs
	}

	if opts.SecurityGroups == nil && opts.AllowedAddressPairs == nil {
		return port, nil
	}

	p, err := ports.Update(ctx, s.network, port.ID, opts).Extract()
	if err != nil {
		return port, fmt.Errorf("updating port %s: %w", port.ID, err)
	}

	tflog.Info(ctx, "Updated the server's port", map[string]any{"port_id": p.ID})

	return toPort(p), nil
}

// deletePort deletes a port; 404 is success.
func (s *Service) deletePort(ctx context.Context, id string) error {
	err := ports.Delete(ctx, s.network, id).ExtractErr()

	switch {
	case err == nil:
		tflog.Info(ctx, "Deleted the server's port", map[string]any{"port_id": id})
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
	default:
		return fmt.Errorf("deleting port %s: %w", id, err)
	}

	return nil
}

// floatingIPsOf lists the floating IPs on port id.
func (s *Service) floatingIPsOf(ctx context.Context, portID string) ([]floatingips.FloatingIP, error) {
	pages, err := floatingips.List(s.network, floatingips.ListOpts{PortID: portID}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the floating IPs of port %s: %w", portID, err)
	}

	all, err := floatingips.ExtractFloatingIPs(pages)
	if err != nil {
		return nil, fmt.Errorf("reading floating IPs: %w", err)
	}

	slices.SortFunc(all, func(a, b floatingips.FloatingIP) int { return cmp.Compare(a.ID, b.ID) })

	return all, nil
}

// convergeFloatingIP gives the port a floating IP or takes it away, then waits for Nova to
// report the change. A port made by this apply cannot hold one yet, so it is not asked. It
// returns the server as last read and the floating address the port has ("" for none);
// novaLags is set when Nova did not report that address within addressWaitBudget.
func (s *Service) convergeFloatingIP(ctx context.Context, srv *servers.Server, spec Spec, port *Port, freshPort bool) (
	next *servers.Server, address string, novaLags bool, err error,
) {
	var existing []floatingips.FloatingIP

	if !freshPort {
		if existing, err = s.floatingIPsOf(ctx, port.ID); err != nil {
			return srv, "", false, err
		}
	}

	switch {
	case spec.PublicIP && len(existing) > 0:
		address = existing[0].FloatingIP
	case spec.PublicIP:
		external, err := s.externalNetworkOf(ctx, port.NetworkID)
		if err != nil {
			return srv, "", false, err
		}

		fip, err := floatingips.Create(ctx, s.network, floatingips.CreateOpts{
			FloatingNetworkID: external,
			PortID:            port.ID,
			Description:       floatingIPDescription(spec.Name),
		}).Extract()
		if err != nil {
			return srv, "", false, fmt.Errorf("creating a floating IP on external network %s for port %s: %w", external, port.ID, err)
		}

		tflog.Info(ctx, "Created the server's floating IP", map[string]any{"floating_ip_id": fip.ID, "address": fip.FloatingIP})

		address = fip.FloatingIP
	case len(existing) > 0:
		if err := s.dropFloatingIPs(ctx, existing, spec.Name); err != nil {
			return srv, "", false, err
		}
	}

	next, seen, err := s.waitAddress(ctx, srv, port.MACAddress, address)
	if err != nil {
		return srv, address, false, err
	}

	return next, address, !seen, nil
}

// floatingIPDescription marks the floating IPs this provider makes for server name, so that
// only those are deleted (a floating IP attached by hand is only detached).
func floatingIPDescription(name string) string {
	return "unikorn_server " + naming.ServerPort(name)
}

// removeFloatingIPs deletes or detaches every floating IP on the port.
func (s *Service) removeFloatingIPs(ctx context.Context, portID, name string) error {
	existing, err := s.floatingIPsOf(ctx, portID)
	if err != nil {
		return err
	}

	return s.dropFloatingIPs(ctx, existing, name)
}

// dropFloatingIPs deletes the floating IPs made for server name and detaches the others; 404
// is success.
func (s *Service) dropFloatingIPs(ctx context.Context, fips []floatingips.FloatingIP, name string) error {
	for _, fip := range fips {
		var err error

		if fip.Description == floatingIPDescription(name) {
			err = floatingips.Delete(ctx, s.network, fip.ID).ExtractErr()
		} else {
			empty := ""
			_, err = floatingips.Update(ctx, s.network, fip.ID, floatingips.UpdateOpts{PortID: &empty}).Extract()
		}

		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return fmt.Errorf("removing floating IP %s (%s): %w", fip.FloatingIP, fip.ID, err)
		}

		tflog.Info(ctx, "Removed a floating IP from the server", map[string]any{"floating_ip_id": fip.ID, "address": fip.FloatingIP})
	}

	return nil
}

// externalNetworkOf is the external network of the router on networkID: the only external
// network from which Neutron can give a port of that network a floating IP. (The provider's
// external_networks selector chose it when the unikorn_network made the router, unless the
// network names another one.)
func (s *Service) externalNetworkOf(ctx context.Context, networkID string) (string, error) {
	pages, err := ports.List(s.network, routerInterfaces{networkID: networkID}).AllPages(ctx)
	if err != nil {
		return "", fmt.Errorf("listing the router interfaces of network %s: %w", networkID, err)
	}

	all, err := ports.ExtractPorts(pages)
	if err != nil {
		return "", fmt.Errorf("reading ports: %w", err)
	}

	var checked []string

	for _, p := range all {
		if slices.Contains(checked, p.DeviceID) {
			continue
		}

		checked = append(checked, p.DeviceID)

		r, err := routers.Get(ctx, s.network, p.DeviceID).Extract()
		if err != nil {
			return "", fmt.Errorf("reading router %s of network %s: %w", p.DeviceID, networkID, err)
		}

		if r.GatewayInfo.NetworkID != "" {
			return r.GatewayInfo.NetworkID, nil
		}
	}

	return "", fmt.Errorf("network %s has no router with an external gateway, so its ports cannot have floating IPs "+
		"(a unikorn_network always has one)", networkID)
}

// routerInterfaces lists the router interface ports of a network (device_owner repeated: any of them).
type routerInterfaces struct {
	networkID string
}

func (o routerInterfaces) ToPortListQuery() (string, error) {
	q := url.Values{"network_id": {o.networkID}, "device_owner": routerInterfaceOwners}

	return "?" + q.Encode(), nil
}

// toPort reads the fields of a Neutron port.
func toPort(p *ports.Port) *Port {
	out := &Port{
		ID:               p.ID,
		NetworkID:        p.NetworkID,
		DeviceID:         p.DeviceID,
		MACAddress:       p.MACAddress,
		SecurityGroupIDs: slices.Sorted(slices.Values(p.SecurityGroups)),
	}

	// The first IPv4 address, else the first address.
	for _, ip := range p.FixedIPs {
		if a, err := netip.ParseAddr(ip.IPAddress); err == nil && a.Is4() {
			out.PrivateIP = ip.IPAddress
			break
		}

		if out.PrivateIP == "" {
			out.PrivateIP = ip.IPAddress
		}
	}

	for _, pair := range p.AllowedAddressPairs {
		out.AllowedAddressPairs = append(out.AllowedAddressPairs, AddressPair{IPAddress: pair.IPAddress, MACAddress: pair.MACAddress})
	}

	sortPairs(out.AllowedAddressPairs)

	return out
}

func toNeutronPairs(pairs []AddressPair) []ports.AddressPair {
	var out []ports.AddressPair

	for _, p := range pairs {
		out = append(out, ports.AddressPair{IPAddress: p.IPAddress, MACAddress: p.MACAddress})
	}

	return out
}

func sortPairs(pairs []AddressPair) {
	slices.SortFunc(pairs, func(a, b AddressPair) int {
		return cmp.Or(cmp.Compare(a.IPAddress, b.IPAddress), cmp.Compare(strings.ToLower(a.MACAddress), strings.ToLower(b.MACAddress)))
	})
}

// samePairs compares the port's pairs with the wanted ones, a wanted pair without a MAC
// standing for the port's own MAC (Neutron's default).
func samePairs(have, want []AddressPair, portMAC string) bool {
	norm := func(pairs []AddressPair) []AddressPair {
		out := make([]AddressPair, 0, len(pairs))

		for _, p := range pairs {
			mac := p.MACAddress
			if mac == "" {
				mac = portMAC
			}

			out = append(out, AddressPair{IPAddress: p.IPAddress, MACAddress: strings.ToLower(mac)})
		}

		sortPairs(out)

		return slices.Compact(out)
	}

	return slices.Equal(norm(have), norm(want))
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Compact(slices.Sorted(slices.Values(a))), slices.Compact(slices.Sorted(slices.Values(b))))
}
