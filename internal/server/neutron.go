package server

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// findPort returns the port of knownID, or (knownID unknown or gone) the port of server srv
// (pairedPort), or, with no server, the project's one port named server-<name>; nil when there is
// none.
func (s *Service) findPort(ctx context.Context, name, knownID string, srv *servers.Server) (*Port, error) {
	if knownID != "" {
		p, exists, ok, err := network.PortListing.FindOne(ctx, s.tenant, knownID)

		switch {
		case err != nil:
			return nil, err
		case ok && exists:
			return toPort(&p), nil
		case ok:
			err = cloud.NotFoundError(network.PortKind, knownID)
		default:
			var got *ports.Port
			if got, err = ports.Get(ctx, s.network, knownID).Extract(); err == nil {
				return toPort(got), nil
			}
		}

		switch {
		case !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			return nil, fmt.Errorf("reading port %s: %w", knownID, err)
		}

		tflog.Debug(ctx, "The recorded port is gone; looking it up by name", map[string]any{"port_id": knownID})
	}

	if srv != nil && !madeHere(srv) {
		return s.pairedPort(ctx, srv, portNameOf(name, srv))
	}

	return s.findPortByName(ctx, naming.ServerPort(name))
}

// linkedServerID is the server ID the linkage metadata of srv carries when it is not Nova's ID
// of srv: the Unikorn server ID of a server that Unikorn's region service made (its serverID,
// and region:server_id from Unikorn v1.16), whose port Unikorn named server-<that ID>
// (uni-region network.go:CreateServerPort), while Nova's name is the user's display name. ""
// for a server of this provider (its linkage carries Nova's ID) or one without linkage.
func linkedServerID(srv *servers.Server) string {
	if srv == nil {
		return ""
	}

	for _, key := range []string{naming.MetadataServerID, naming.MetadataLegacyServerID} {
		if id := srv.Metadata[key]; id != "" && id != srv.ID {
			return id
		}
	}

	return ""
}

// portNameOf is the name of the port of server srv called name: server-<Unikorn server ID> for
// a server Unikorn made (linkedServerID), server-<name> for any other (this provider's contract).
// A server Unikorn made is never paired by its display name.
func portNameOf(name string, srv *servers.Server) string {
	if id := linkedServerID(srv); id != "" {
		return naming.ServerPort(id)
	}

	return naming.ServerPort(name)
}

// pairedPort finds the port of srv, a server this provider did not make (Unikorn's, or another
// imported one), by the server itself: of the ports attached to it (Neutron's device_id), the one
// named portName, else its only one; when none is attached (a server still building), the
// project's one port named portName.
func (s *Service) pairedPort(ctx context.Context, srv *servers.Server, portName string) (*Port, error) {
	on, err := s.portsOn(ctx, srv.ID)
	if err != nil {
		return nil, err
	}

	switch named := naming.Exact(on, portName, func(p ports.Port) string { return p.Name }); {
	case len(named) > 0:
		p, _, err := naming.One("port", portName, named, func(p ports.Port) string { return p.Name }, func(p ports.Port) string { return p.ID })
		if err != nil {
			return nil, err
		}

		return toPort(&p), nil
	case len(on) == 1:
		return toPort(&on[0]), nil
	case len(on) > 1:
		ids := make([]string, 0, len(on))
		for _, p := range on {
			ids = append(ids, p.ID+" ("+p.Name+")")
		}

		slices.Sort(ids)

		return nil, fmt.Errorf("server %q (%s) is attached to %d ports (%s) and none is named %s: the provider cannot tell "+
			"which is the server's own", srv.Name, srv.ID, len(on), strings.Join(ids, ", "), portName)
	}

	return s.findPortByName(ctx, portName)
}

// portsOn lists the project's ports attached to device id (from the run's listing when it can
// answer).
func (s *Service) portsOn(ctx context.Context, id string) ([]ports.Port, error) {
	listed, ok, err := network.PortListing.Find(ctx, s.tenant, network.OnDeviceKey(id))
	if err == nil && !ok {
		var pages pagination.Page

		if pages, err = ports.List(s.network, ports.ListOpts{DeviceID: id, ProjectID: s.projectID}).AllPages(ctx); err == nil {
			listed, err = ports.ExtractPorts(pages)
		}
	}

	if err != nil {
		return nil, fmt.Errorf("looking up the ports of server %s: %w", id, err)
	}

	return slices.DeleteFunc(listed, func(p ports.Port) bool { return p.DeviceID != id }), nil
}

// findPortByName returns the project's one port named portName, nil if none.
func (s *Service) findPortByName(ctx context.Context, portName string) (*Port, error) {
	all, err := s.portsNamed(ctx, portName)
	if err != nil {
		return nil, err
	}

	p, ok, err := naming.One("port", portName, all, func(p ports.Port) string { return p.Name }, func(p ports.Port) string { return p.ID })
	if err != nil || !ok {
		return nil, err
	}

	return toPort(&p), nil
}

// portsNamed lists the project's ports named exactly portName.
func (s *Service) portsNamed(ctx context.Context, portName string) ([]ports.Port, error) {
	if listed, ok, err := network.PortListing.Find(ctx, s.tenant, portName); err != nil || ok {
		return naming.Exact(listed, portName, func(p ports.Port) string { return p.Name }), err
	}

	pages, err := ports.List(s.network, ports.ListOpts{Name: portName, ProjectID: s.projectID}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("looking up port %s: %w", portName, err)
	}

	all, err := ports.ExtractPorts(pages)
	if err != nil {
		return nil, fmt.Errorf("reading ports: %w", err)
	}

	return naming.Exact(all, portName, func(p ports.Port) string { return p.Name }), nil
}

// createPort makes the port server-<name> on the spec's network, through cloud.Create: a lost
// answer is followed by a look for the port by its name, and a twin of the name made meanwhile
// by someone else makes this create remove its own port again.
func (s *Service) createPort(ctx context.Context, spec Spec) (*Port, error) {
	portName := naming.ServerPort(spec.Name)

	groups := slices.Clone(spec.SecurityGroupIDs)
	if groups == nil {
		groups = []string{} // none, rather than the project's default group
	}

	// Posted with the creation mark as its description (Neutron takes no tags in a create),
	// tagged with it right after (markPort).
	opts := ports.CreateOpts{
		Name:                portName,
		Description:         made.Description(),
		NetworkID:           spec.NetworkID,
		SecurityGroups:      &groups,
		AllowedAddressPairs: toNeutronPairs(spec.AllowedAddressPairs),
	}

	s.tenant.Wrote(network.PortKind, portName, network.OnNetworkKey(spec.NetworkID))

	p, err := cloud.Create(ctx, cloud.CreateSpec[ports.Port]{
		Kind: "port",
		Name: portName,
		Create: func(ctx context.Context) (ports.Port, error) {
			p, err := ports.Create(ctx, s.network, opts).Extract()
			if err != nil {
				return ports.Port{}, err
			}

			return *p, nil
		},
		Find:   func(ctx context.Context) ([]ports.Port, error) { return s.portsNamed(ctx, portName) },
		ID:     func(p ports.Port) string { return p.ID },
		Delete: s.deletePort,
		// After a lost answer, only a port posted by a unikorn_server's create is this one.
		Adopt: func(p ports.Port) error { return cloud.Adopt(s.portExisting(spec.Name, toPort(&p))) },
	})
	s.tenant.Wrote(network.PortKind, p.ID)

	if err != nil {
		// A twin this create could not remove is left to the message: nothing records a port
		// without its server.
		return nil, fmt.Errorf("creating port %s on network %s: %w", portName, spec.NetworkID, err)
	}

	tflog.Info(ctx, "Created the server's port", map[string]any{"port_id": p.ID})

	// A port left untagged here still says in its description who began it: the next apply
	// adopts it and tags it then.
	port, err := s.markPort(ctx, p.ID)
	if err != nil {
		return nil, fmt.Errorf("marking port %s (%s): %w", portName, p.ID, err)
	}

	return port, nil
}

// convergePort updates the security groups and allowed address pairs of an existing port when
// they differ from spec (one request), after checking that it is on the spec's network.
func (s *Service) convergePort(ctx context.Context, port *Port, spec Spec) (*Port, error) {
	if port.NetworkID != spec.NetworkID {
		return port, fmt.Errorf("port %s (%s) is on network %s, not %s: delete it, or set network_id to its network",
			naming.ServerPort(spec.Name), port.ID, port.NetworkID, spec.NetworkID)
	}

	if port.untagged {
		// An interrupted create's port, adopted: its create ends here.
		marked, err := s.markPort(ctx, port.ID)
		if err != nil {
			return port, fmt.Errorf("marking port %s (%s): %w", naming.ServerPort(spec.Name), port.ID, err)
		}

		port = marked
	}

	var opts ports.UpdateOpts

	if !cloud.SameSet(port.SecurityGroupIDs, spec.SecurityGroupIDs) {
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

	s.tenant.Wrote(network.PortKind, port.ID)

	p, err := ports.Update(ctx, s.network, port.ID, opts).Extract()
	if err != nil {
		return port, fmt.Errorf("updating port %s: %w", port.ID, err)
	}

	tflog.Info(ctx, "Updated the server's port", map[string]any{"port_id": p.ID})

	return toPort(p), nil
}

// deletePort deletes a port; 404 is success.
func (s *Service) deletePort(ctx context.Context, id string) error {
	s.tenant.Wrote(network.PortKind, id)

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

// floatingIP gives the port a floating IP or takes it away, through the network core (the one
// home of floating IPs), and returns the floating address the port has ("" for none). A port
// made by this apply holds none, so taking one away is not asked.
func (s *Service) floatingIP(ctx context.Context, spec Spec, port *Port, freshPort bool) (string, error) {
	if spec.PublicIP || !freshPort {
		// Nova reports the server's floating addresses: a change is a change of the server.
		s.wrote(port.DeviceID)
	}

	switch {
	case spec.PublicIP:
		fip, err := network.EnsureFloatingIP(ctx, s.network, network.PublicAddress{
			ProjectID:   s.projectID,
			PortID:      port.ID,
			NetworkID:   port.NetworkID,
			Description: floatingIPDescription(spec.Name),
			Tenant:      s.tenant,
		})
		if err != nil {
			return "", err
		}

		return fip.Address, nil
	case !freshPort:
		return "", network.RemoveFloatingIPs(ctx, s.network, network.PublicAddress{
			ProjectID: s.projectID, PortID: port.ID, Description: floatingIPDescription(spec.Name), Tenant: s.tenant,
		})
	}

	return "", nil
}

// floatingIPDescription marks the floating IPs this provider makes for server name, so that
// only those are deleted (a floating IP attached by hand is only detached). Sweepers and
// existing state depend on it: "unikorn_server server-<name>".
func floatingIPDescription(name string) string {
	return "unikorn_server " + naming.ServerPort(name)
}

// toPort reads the fields of a Neutron port.
func toPort(p *ports.Port) *Port {
	out := &Port{
		ID:               p.ID,
		Created:          p.CreatedAt,
		NetworkID:        p.NetworkID,
		DeviceID:         p.DeviceID,
		MACAddress:       p.MACAddress,
		SecurityGroupIDs: slices.Sorted(slices.Values(p.SecurityGroups)),
		Mark:             naming.MarkOfNeutron(p.Tags, p.Description),
	}

	out.untagged = out.Mark.Marked() && !naming.MarkOfTags(p.Tags).Marked()

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
