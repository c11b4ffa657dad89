package network

import (
	"context"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// networkFound is what a create or an update of a network finds before it writes anything.
type networkFound struct {
	net       neutronNetwork
	hasNet    bool
	sub       subnets.Subnet
	hasSub    bool
	router    routers.Router
	hasRouter bool
}

// findNetwork looks up every part of network spec.Name before anything is written: the network
// (by its recorded ID, else by name), its subnet, and the router (whose name is project-wide).
// What is found by name passes the ownership rule (ownership.go) or refuses the whole ensure
// with a *cloud.ExistsError, leaving nothing written: the network must be an unfinished create
// of a unikorn_network, its subnet and the router must carry a unikorn_network's creation mark.
// A part of the network this state holds (found by its recorded ID) that the state never
// recorded is taken as it is: an imported network's parts are the user's choice. A subnet with
// another CIDR is refused too (a subnet's CIDR cannot change).
func (s *Service) findNetwork(ctx context.Context, spec Spec, known Ref, refound *[]Refound) (networkFound, error) {
	var f networkFound

	nl, err := s.networks(ctx)
	if err != nil {
		return f, err
	}

	f.net, f.hasNet, err = nl.owning(s.tenant, TypeNetwork, "").ensureFind(ctx, naming.Network(spec.Name), known.NetworkID, refound)
	if err != nil {
		return f, err
	}

	held := f.hasNet && f.net.ID == known.NetworkID
	part := networkPart(spec.Name)

	if f.hasNet {
		sl := s.subnetIn(f.net.ID).owning(s.tenant, TypeNetwork, part)
		if held && known.SubnetID == "" {
			sl.adopt = nil
		}

		if f.sub, f.hasSub, err = sl.ensureFind(ctx, naming.Subnet(spec.Name), known.SubnetID, nil); err != nil {
			return f, err
		}

		if f.hasSub && f.sub.CIDR != spec.Addressing.CIDR.String() {
			return f, fmt.Errorf("subnet %s (%s) of network %s has the CIDR %s, not %s: a subnet's CIDR cannot change; "+
				"delete the network or set cidr = %q", f.sub.Name, f.sub.ID, f.net.ID, f.sub.CIDR, spec.Addressing.CIDR, f.sub.CIDR)
		}
	}

	rl := s.routerIn().owning(s.tenant, TypeNetwork, part)
	if held && known.RouterID == "" {
		rl.adopt = nil
	}

	f.router, f.hasRouter, err = rl.ensureFind(ctx, naming.Router(spec.Name), known.RouterID, nil)

	return f, err
}

// EnsureNetwork makes network spec.Name exist as specified. Every part is looked up first (by
// the known ID, then by exact name; findNetwork): what a create finds by name is adopted only
// when an interrupted create of a unikorn_network left it, and anything else is refused with a
// *cloud.ExistsError before any write. Then each part is created (with the creation mark) or
// converged in place, and the network of a create gets the completion mark as the last step.
// Before anything is made it checks that the prefix does not overlap the router's external
// network (an *OverlapError). It returns what exists even when it fails part way, so that the
// caller can record it.
func (s *Service) EnsureNetwork(ctx context.Context, spec Spec, known Ref) (*Network, error) {
	if err := s.cfg.CheckExternalOverlap(ctx, s.sc, s.Region(), spec.Addressing.CIDR, spec.ExternalNetworkID); err != nil {
		return nil, err
	}

	out := &Network{}

	found, err := s.findNetwork(ctx, spec, known, &out.Refound)
	if err != nil {
		return nil, err
	}

	nl, err := s.networks(ctx)
	if err != nil {
		return nil, err
	}

	nl = nl.owning(s.tenant, TypeNetwork, "")
	net, mark := found.net, nl.mark(found.net)

	if !found.hasNet {
		net, err = s.createNetwork(ctx, nl, spec)
		if err != nil {
			if net.ID == "" {
				return nil, err
			}

			out.setNetwork(net) // made, then failed (or a twin that could not be removed): recorded, never orphaned

			return out, err
		}

		mark = naming.MadeFor(TypeNetwork)
	} else if net, err = s.convergeNetwork(ctx, nl, net, spec); err != nil {
		out.setNetwork(net)

		return out, err
	}

	out.setNetwork(net)

	sub, err := s.ensureSubnet(ctx, spec, net.ID, found.sub, found.hasSub)
	if sub.ID != "" {
		out.Subnet = toSubnet(sub)
	}

	if err != nil {
		return out, err
	}

	r, err := s.ensureRouter(ctx, spec, found.router, found.hasRouter)
	if r.ID != "" {
		out.Router = toRouter(r)
	}

	if err != nil {
		return out, err
	}

	// A port can only exist on a subnet or router that existed before.
	if found.hasNet && found.hasRouter {
		if out.InterfacePortID, err = s.interfacePort(ctx, r.ID, net.ID, sub.ID); err != nil {
			return out, err
		}
	}

	if out.InterfacePortID == "" {
		if out.InterfacePortID, err = s.attach(ctx, r.ID, net.ID, sub.ID); err != nil {
			return out, fmt.Errorf("attaching router %s to subnet %s: %w", r.ID, sub.ID, err)
		}
	}

	sc, err := s.networkClient(ctx)
	if err == nil {
		err = nl.complete(ctx, sc, TagNetworks, TypeNetwork, net.ID, mark)
	}

	return out, err
}

// attach attaches router routerID to subnetID of networkID and returns the interface port.
// add_router_interface goes through cloud.Create: after a lost answer or a 5xx it re-reads
// whether the interface landed (the router's port on the subnet) instead of repeating the call
// into Neutron's refusal of a second interface on one subnet; and a refusal is checked the same
// way, since it may answer our own repeated call (the transport repeats a PUT after a 5xx). A
// second interface cannot be made (Neutron refuses it), so there is no twin to check for.
func (s *Service) attach(ctx context.Context, routerID, networkID, subnetID string) (string, error) {
	find := func(ctx context.Context) ([]string, error) {
		id, err := s.interfacePort(ctx, routerID, networkID, subnetID)
		if err != nil || id == "" {
			return nil, err
		}

		return []string{id}, nil
	}

	// The interface is a port of the router on the network.
	s.tenant.Wrote(PortKind, OnDeviceKey(routerID), OnNetworkKey(networkID))

	return cloud.Create(ctx, cloud.CreateSpec[string]{
		Kind: "router interface",
		Name: fmt.Sprintf("router %s on subnet %s", routerID, subnetID),
		Create: func(ctx context.Context) (string, error) {
			attached, err := routers.AddInterface(ctx, s.sc, routerID, routers.AddInterfaceOpts{SubnetID: subnetID}).Extract()
			if err == nil {
				return attached.PortID, nil
			}

			err = apiError(err)
			if cloud.Definite(err) {
				if found, ferr := find(ctx); ferr == nil && len(found) == 1 {
					tflog.Debug(ctx, "The router interface a refused attach asked for exists", map[string]any{
						"router_id": routerID, "subnet_id": subnetID, "port_id": found[0], "refusal": err.Error(),
					})

					return found[0], nil
				}
			}

			return "", err
		},
		Find: find,
		ID:   func(portID string) string { return portID },
	})
}

// updateNetworkDescription sets the description of network id, through networkClient: its
// answer then shows a VLAN provider network's segmentation ID, which only admin may see.
func (s *Service) updateNetworkDescription(ctx context.Context, id, description string) (neutronNetwork, error) {
	var out neutronNetwork

	sc, err := s.networkClient(ctx)
	if err != nil {
		return out, err
	}

	s.tenant.Wrote(kindNetwork, id)

	err = networks.Update(ctx, sc, id, networks.UpdateOpts{Description: &description}).ExtractInto(&out)

	return out, apiError(err)
}

// convergeNetwork converges the existing network net to spec: it tags a network that carries its
// creation mark only as its description (an interrupted create's), then writes its description
// (describeTo: only a configured one, or "" in place of a creation mark).
func (s *Service) convergeNetwork(ctx context.Context, nl lookup[neutronNetwork], net neutronNetwork, spec Spec) (neutronNetwork, error) {
	sc, err := s.networkClient(ctx)
	if err != nil {
		return net, err
	}

	if err := nl.markPosted(ctx, sc, TagNetworks, net); err != nil {
		return net, err
	}

	description := describeTo(net.Description, spec.Description)
	if description == nil {
		return net, nil
	}

	updated, err := s.updateNetworkDescription(ctx, net.ID, *description)
	if err != nil {
		return net, fmt.Errorf("updating the description of network %s: %w", net.ID, err)
	}

	return updated, nil
}

// createNetwork creates the Neutron network of spec through l (cloud.Create: a lost answer is
// found again by name and recovered when it is this create's, a concurrent twin removed), with
// its creation mark (createMarked); as a VLAN provider network when the provider configures
// one: made in the admin scope then (stock policy reserves provider attributes, and the listing
// of other projects' VLAN networks, for admin), owned by the identity's project.
func (s *Service) createNetwork(ctx context.Context, l lookup[neutronNetwork], spec Spec) (neutronNetwork, error) {
	name := naming.Network(spec.Name)
	up := true

	sc, err := s.networkClient(ctx)
	if err != nil {
		return neutronNetwork{}, err
	}

	describe := func(ctx context.Context, net neutronNetwork) (neutronNetwork, error) {
		return s.updateNetworkDescription(ctx, net.ID, descriptionOf(spec.Description))
	}

	post := func(ctx context.Context, opts networks.CreateOptsBuilder) (neutronNetwork, error) {
		var out neutronNetwork
		err := networks.Create(ctx, sc, opts).ExtractInto(&out)

		return out, apiError(err)
	}

	pn := s.cfg.ProviderNetwork
	if pn == nil {
		out, err := l.createMarked(ctx, sc, TagNetworks, TypeNetwork, name, func(ctx context.Context, description string) (neutronNetwork, error) {
			return post(ctx, networks.CreateOpts{Name: name, Description: description, AdminStateUp: &up})
		}, describe)
		if err != nil {
			return out, fmt.Errorf("creating network %s: %w", name, err)
		}

		return out, nil
	}

	// The VLAN provider network: one segment of the provider extension on pn's physical network.
	out, err := CreateOnFreeVLAN(ctx, sc, pn.PhysicalNetwork, pn.VLANRanges, func(ctx context.Context, id int) (neutronNetwork, error) {
		return l.createMarked(ctx, sc, TagNetworks, TypeNetwork, name, func(ctx context.Context, description string) (neutronNetwork, error) {
			return post(ctx, provider.CreateOptsExt{
				CreateOptsBuilder: networks.CreateOpts{
					Name: name, Description: description, AdminStateUp: &up, ProjectID: s.ProjectID(),
				},
				Segments: []provider.Segment{{NetworkType: "vlan", PhysicalNetwork: pn.PhysicalNetwork, SegmentationID: id}},
			})
		}, describe)
	})

	return out, s.tenant.AdminRefusal("Neutron", "creating a VLAN provider network", err)
}

// subnetFields are the mutable fields of the subnet of spec, as an update that sets them all
// (the description of a subnet to be made: "" when spec leaves it).
func subnetFields(spec Spec) subnets.UpdateOpts {
	a := spec.Addressing

	dns := slices.Clone(spec.DNSNameservers)
	if dns == nil {
		dns = []string{}
	}

	routes := HostRoutes(spec.Routes)
	description, gateway := descriptionOf(spec.Description), a.Gateway.String()

	return subnets.UpdateOpts{
		Description:     &description,
		GatewayIP:       &gateway,
		AllocationPools: []subnets.AllocationPool{{Start: a.Pool.Start.String(), End: a.Pool.End.String()}},
		DNSNameservers:  &dns,
		HostRoutes:      &routes,
	}
}

// subnetDiff is the update of the fields of spec that differ on the existing subnet; false
// when none does. The description is compared as Neutron holds it, so that a creation mark
// left there is replaced (describeTo).
func subnetDiff(sub subnets.Subnet, spec Spec) (subnets.UpdateOpts, bool) {
	want := subnetFields(spec)
	have := toSubnet(sub)

	diff := subnets.UpdateOpts{Description: describeTo(sub.Description, spec.Description)}

	if have.GatewayIP != spec.Addressing.Gateway.String() {
		diff.GatewayIP = want.GatewayIP
	}

	if len(have.AllocationPools) != 1 || have.AllocationPools[0] != spec.Addressing.Pool {
		diff.AllocationPools = want.AllocationPools
	}

	if !slices.Equal(have.DNSNameservers, spec.DNSNameservers) {
		diff.DNSNameservers = want.DNSNameservers
	}

	if !cloud.SameSet(have.Routes, spec.Routes) {
		diff.HostRoutes = want.HostRoutes
	}

	changed := diff.Description != nil || diff.GatewayIP != nil || diff.AllocationPools != nil ||
		diff.DNSNameservers != nil || diff.HostRoutes != nil

	return diff, changed
}

// ensureSubnet converges the subnet sub of spec in networkID, found before (findNetwork), or
// creates it with the creation mark when there is none.
func (s *Service) ensureSubnet(ctx context.Context, spec Spec, networkID string, sub subnets.Subnet, found bool) (subnets.Subnet, error) {
	name := naming.Subnet(spec.Name)

	l := s.subnetIn(networkID).owning(s.tenant, TypeNetwork, networkPart(spec.Name))

	if found {
		if err := l.markPosted(ctx, s.sc, TagSubnets, sub); err != nil {
			return sub, err
		}

		diff, changed := subnetDiff(sub, spec)
		if !changed {
			return sub, nil
		}

		l.wrote(sub.ID)

		updated, err := subnets.Update(ctx, s.sc, sub.ID, diff).Extract()
		if err != nil {
			return sub, fmt.Errorf("updating subnet %s (%s): %w", name, sub.ID, apiError(err))
		}

		return *updated, nil
	}

	fields := subnetFields(spec)
	dhcp := true

	opts := subnets.CreateOpts{
		Name:            name,
		NetworkID:       networkID,
		IPVersion:       4,
		CIDR:            spec.Addressing.CIDR.String(),
		EnableDHCP:      &dhcp,
		GatewayIP:       fields.GatewayIP,
		AllocationPools: fields.AllocationPools,
		DNSNameservers:  *fields.DNSNameservers,
		HostRoutes:      *fields.HostRoutes,
	}

	created, err := l.createMarked(ctx, s.sc, TagSubnets, TypeNetwork, name, func(ctx context.Context, description string) (subnets.Subnet, error) {
		opts.Description = description
		return deref(subnets.Create(ctx, s.sc, opts).Extract())
	}, func(ctx context.Context, sub subnets.Subnet) (subnets.Subnet, error) {
		return deref(subnets.Update(ctx, s.sc, sub.ID, subnets.UpdateOpts{Description: fields.Description}).Extract())
	})
	if err != nil {
		return created, fmt.Errorf("creating subnet %s in network %s: %w", name, networkID, err)
	}

	return created, nil
}

// ensureRouter converges the router r of spec, found before (findNetwork), its gateway and
// description; or creates it with the creation mark when there is none.
func (s *Service) ensureRouter(ctx context.Context, spec Spec, r routers.Router, found bool) (routers.Router, error) {
	name := naming.Router(spec.Name)

	l := s.routerIn().owning(s.tenant, TypeNetwork, networkPart(spec.Name))

	external := spec.ExternalNetworkID
	if external == "" && (!found || r.GatewayInfo.NetworkID == "") {
		var err error
		if external, err = s.cfg.DefaultExternalNetwork(ctx, s.sc, s.Region()); err != nil {
			return r, err
		}
	}

	if !found {
		created, err := l.createMarked(ctx, s.sc, TagRouters, TypeNetwork, name, func(ctx context.Context, description string) (routers.Router, error) {
			opts := routers.CreateOpts{Name: name, Description: description, GatewayInfo: &routers.GatewayInfo{NetworkID: external}}
			return deref(routers.Create(ctx, s.sc, opts).Extract())
		}, func(ctx context.Context, r routers.Router) (routers.Router, error) {
			description := descriptionOf(spec.Description)
			return deref(routers.Update(ctx, s.sc, r.ID, routers.UpdateOpts{Description: &description}).Extract())
		})
		if err != nil {
			return created, fmt.Errorf("creating router %s on external network %s: %w", name, external, err)
		}

		return created, nil
	}

	if err := l.markPosted(ctx, s.sc, TagRouters, r); err != nil {
		return r, err
	}

	diff := routers.UpdateOpts{Description: describeTo(r.Description, spec.Description)}

	if external != "" && r.GatewayInfo.NetworkID != external {
		diff.GatewayInfo = &routers.GatewayInfo{NetworkID: external}
	}

	if diff.Description != nil || diff.GatewayInfo != nil {
		l.wrote(r.ID)

		updated, err := routers.Update(ctx, s.sc, r.ID, diff).Extract()
		if err != nil {
			return r, fmt.Errorf("updating router %s (%s): %w", name, r.ID, apiError(err))
		}

		r = *updated
	}

	return r, nil
}
