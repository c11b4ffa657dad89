// Package providernetwork is unikorn_provider_network: a regional Neutron provider network
// (flat or VLAN on a physical network) with its subnets, an admin object of the region made in
// the service user's own project. The core (this file, subnets.go, neutron.go,
// addressing.go) is pure gophercloud; resource.go, schema.go and model.go adapt it.
package providernetwork

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Network types.
const (
	TypeFlat = "flat"
	TypeVLAN = "vlan"
)

const kindNetwork = "provider network"

// TypeName is the resource type of a provider network's ownership marks (on the network and its
// subnets: network.Tag).
const TypeName = "unikorn_provider_network"

// Spec is what a unikorn_provider_network asks for.
type Spec struct {
	Name            string
	NetworkType     string
	PhysicalNetwork string
	// SegmentationID is the VLAN ID; 0 allocates one (vlan) or means none (flat).
	SegmentationID int
	External       bool
	Shared         bool
	// MTU is 0 for Neutron's default.
	MTU     int
	Subnets []SubnetSpec
}

// Network is what Neutron holds of one provider network.
type Network struct {
	ID, Name, ProjectID          string
	NetworkType, PhysicalNetwork string
	SegmentationID               int
	External, Shared             bool
	MTU                          int
	Subnets                      []Subnet
	// RefoundFrom is the recorded ID when the network was gone by it and found again by name.
	RefoundFrom string
	// Adopted says that a create took over the network an interrupted create left unfinished.
	Adopted bool
}

// Service is the core, bound to one region in the service user's admin scope.
type Service struct {
	// Client is the region's Neutron client of the service user's own project.
	Client *gophercloud.ServiceClient
	// ProjectID is the project the networks belong to (the service user's own).
	ProjectID string
	// Region is the region Client serves.
	Region string
	// VLAN is the provider's provider_network: allocations on its physical network come from
	// its ranges. nil: Neutron allocates.
	VLAN *network.ProviderNetwork
	// Refusal wraps a 403 into the error that names the missing grant (cloud.Client.AdminRefusal).
	Refusal func(service, call string, err error) error
}

func (s *Service) refused(call string, err error) error {
	if s.Refusal == nil {
		return err
	}

	return s.Refusal("Neutron", call, err)
}

func toNetwork(n neutronNetwork) *Network {
	return &Network{
		ID: n.ID, Name: n.Name, ProjectID: n.ProjectID, NetworkType: n.NetworkType, PhysicalNetwork: n.PhysicalNetwork,
		SegmentationID: n.segmentationID(), External: n.External, Shared: n.Shared, MTU: n.MTU,
	}
}

// byName lists the networks of the service project called exactly name.
func (s *Service) byName(ctx context.Context, name string) ([]neutronNetwork, error) {
	all, err := listNetworks(ctx, s.Client, networks.ListOpts{Name: name, ProjectID: s.ProjectID}, "the networks named "+strconv.Quote(name))
	if err != nil {
		return nil, err
	}

	return naming.Exact(all, name, func(n neutronNetwork) string { return n.Name }), nil
}

// find reads the network by its recorded ID, then by its exact name; false when neither finds it.
func (s *Service) find(ctx context.Context, id, name string) (neutronNetwork, bool, error) {
	if id != "" {
		n, found, err := s.byID(ctx, id)
		if found || err != nil {
			return n, found, err
		}

		tflog.Debug(ctx, "Gone by ID; looking it up by name", map[string]any{"id": id, "name": name})
	}

	all, err := s.byName(ctx, name)
	if err != nil {
		return neutronNetwork{}, false, s.refused("listing provider networks", err)
	}

	return naming.One(kindNetwork, name, all, func(n neutronNetwork) string { return n.Name }, func(n neutronNetwork) string { return n.ID })
}

// byID reads network id; false when it is gone.
func (s *Service) byID(ctx context.Context, id string) (neutronNetwork, bool, error) {
	n, err := getNetwork(ctx, s.Client, id)

	switch {
	case err == nil:
		return n, true, nil
	case isNotFound(err):
		return n, false, nil
	}

	return n, false, fmt.Errorf("reading network %s: %w", id, s.refused("reading a provider network", err))
}

// existing describes n for the ownership rule (cloud.Adopt) of a create of unikorn_provider_network.
func (s *Service) existing(n neutronNetwork) cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: kindNetwork, Name: n.Name, ID: n.ID,
		Where: fmt.Sprintf("in project %s, region %s", n.ProjectID, s.Region), ImportID: s.Region + "/" + n.ID,
		Mark: naming.MarkOfNeutron(n.Tags, n.Description)}
}

// Observe reads the network recorded as id (found again by name when that ID is gone, said in
// RefoundFrom, if a create of unikorn_provider_network may take it: an interrupted create,
// cloud.Owns; a finished or foreign network is not this resource's) with its subnets; nil when
// it is gone.
func (s *Service) Observe(ctx context.Context, id, name string) (*Network, error) {
	n, found, err := s.find(ctx, id, name)
	if err != nil || !found {
		return nil, err
	}

	if n.ID != id && !cloud.Owns(TypeName, naming.MarkOfNeutron(n.Tags, n.Description)) {
		return nil, nil
	}

	out := toNetwork(n)
	if id != "" && n.ID != id {
		out.RefoundFrom = id
	}

	if out.Subnets, err = s.subnetsOf(ctx, n.ID); err != nil {
		return out, err
	}

	return out, nil
}

// Located finds a provider network for import: by ID (any project: an admin may import a
// network another tool made), else by exact name in the service project. A region's own
// object: the result names no project (the import sets no identity_id).
func (s *Service) Located(ctx context.Context, idOrName string) (cloud.Located, error) {
	if cloud.LooksLikeID(idOrName) {
		n, err := getNetwork(ctx, s.Client, idOrName)
		if err == nil {
			return cloud.Located{ID: n.ID, Name: n.Name}, nil
		}

		if !isNotFound(err) {
			return cloud.Located{}, err
		}
	}

	n, found, err := s.find(ctx, "", idOrName)
	if err != nil || !found {
		return cloud.Located{}, err
	}

	return cloud.Located{ID: n.ID, Name: n.Name}, nil
}

// SegmentError says that an existing network differs in what cannot change in place.
type SegmentError struct {
	Name, ID, Field, Have, Want string
}

func (e *SegmentError) Error() string {
	return fmt.Sprintf("network %s (%s) has %s %s, not %s: it cannot change in place; delete the network or set %s = %s",
		e.Name, e.ID, e.Field, e.Have, e.Want, e.Field, e.Have)
}

// checkSegment compares what cannot change in place (a network adopted by name, or changed out
// of band).
func checkSegment(n neutronNetwork, spec Spec) error {
	fail := func(field, have, want string) error {
		return &SegmentError{Name: n.Name, ID: n.ID, Field: field, Have: have, Want: want}
	}

	switch {
	case !strings.EqualFold(n.NetworkType, spec.NetworkType):
		return fail("network_type", n.NetworkType, spec.NetworkType)
	case n.PhysicalNetwork != spec.PhysicalNetwork:
		return fail("physical_network", n.PhysicalNetwork, spec.PhysicalNetwork)
	case spec.SegmentationID != 0 && n.segmentationID() != spec.SegmentationID:
		return fail("segmentation_id", strconv.Itoa(n.segmentationID()), strconv.Itoa(spec.SegmentationID))
	}

	return nil
}

// create makes the network of spec through cloud.Create (a lost answer is found again by
// name when it is this create's own, a concurrent twin removed again), posted with the creation
// mark as its description. A VLAN network without a segmentation ID gets one as
// unikorn_network's VLAN networks do (network.CreateOnFreeVLAN: the lowest free ID of the
// provider's provider_network.vlan_ranges, from Neutron's own view) when provider_network names
// the same physical network; otherwise Neutron allocates one from its own network_vlan_ranges.
func (s *Service) create(ctx context.Context, spec Spec) (neutronNetwork, error) {
	post := func(ctx context.Context, segmentationID int) (neutronNetwork, error) {
		body := networkBody{
			"name": spec.Name, "admin_state_up": true, "shared": spec.Shared, "router:external": spec.External,
			"provider:network_type": spec.NetworkType, "provider:physical_network": spec.PhysicalNetwork,
			// The creation mark until the network is tagged (Neutron takes no tags in a POST).
			"description": naming.MadeFor(TypeName).Description(),
		}

		if segmentationID > 0 {
			body["provider:segmentation_id"] = segmentationID
		}

		if spec.MTU > 0 {
			body["mtu"] = spec.MTU
		}

		return cloud.Create(ctx, cloud.CreateSpec[neutronNetwork]{
			Kind: kindNetwork,
			Name: spec.Name,
			Create: func(ctx context.Context) (neutronNetwork, error) {
				var out neutronNetwork
				err := networks.Create(ctx, s.Client, body).ExtractInto(&out)

				return out, err
			},
			Find:   func(ctx context.Context) ([]neutronNetwork, error) { return s.byName(ctx, spec.Name) },
			ID:     func(n neutronNetwork) string { return n.ID },
			Delete: func(ctx context.Context, id string) error { return networks.Delete(ctx, s.Client, id).ExtractErr() },
			Adopt:  func(n neutronNetwork) error { return cloud.Adopt(s.existing(n)) },
		})
	}

	if spec.NetworkType == TypeVLAN && spec.SegmentationID == 0 && s.VLAN != nil && s.VLAN.PhysicalNetwork == spec.PhysicalNetwork {
		return network.CreateOnFreeVLAN(ctx, s.Client, spec.PhysicalNetwork, s.VLAN.VLANRanges, post)
	}

	return post(ctx, spec.SegmentationID)
}

// update converges what changes in place: name, shared, external, mtu; and clears the
// description that carried the creation mark until the network was tagged (a provider network
// has no description of its own).
func (s *Service) update(ctx context.Context, n neutronNetwork, spec Spec) (neutronNetwork, error) {
	body := networkBody{}

	if n.Description != "" && naming.MarkOfTags(n.Tags).Marked() && naming.MarkOfNeutron(nil, n.Description).Marked() {
		body["description"] = ""
	}

	if n.Name != spec.Name {
		body["name"] = spec.Name
	}

	if n.Shared != spec.Shared {
		body["shared"] = spec.Shared
	}

	if n.External != spec.External {
		body["router:external"] = spec.External
	}

	if spec.MTU > 0 && n.MTU != spec.MTU {
		body["mtu"] = spec.MTU
	}

	if len(body) == 0 {
		return n, nil
	}

	var out neutronNetwork
	if err := networks.Update(ctx, s.Client, n.ID, networkUpdate{body}).ExtractInto(&out); err != nil {
		return n, fmt.Errorf("updating network %s (%s): %w", n.Name, n.ID, s.refused("updating a provider network", err))
	}

	return out, nil
}

// Ensure makes the network of spec exist as specified: the recorded one (knownID), else one of
// the name that an interrupted create of a unikorn_provider_network left unfinished (adopted,
// said in Adopted, when its subnets carry the same creation mark), else a new one carrying the
// creation mark; then converges it in place and its subnets by name, and ends a create with the
// completion mark. A network of the name that may not be adopted is a *cloud.ExistsError, and
// nothing is written. It returns what exists even when it fails part way, so that the caller
// can record it.
func (s *Service) Ensure(ctx context.Context, spec Spec, knownID string) (*Network, error) {
	var (
		n              neutronNetwork
		found, adopted bool
		err            error
	)

	if knownID != "" {
		if n, found, err = s.byID(ctx, knownID); err != nil {
			return nil, err
		}

		if !found {
			// Renamed in this change: the old name is in the state's network, gone by ID.
			tflog.Debug(ctx, "The recorded network is gone; creating it again", map[string]any{"id": knownID})
		}
	}

	creating := !found

	if creating {
		if n, adopted, err = s.claim(ctx, spec.Name); err != nil {
			return nil, err
		}

		found = adopted
	}

	if !found {
		if n, err = s.create(ctx, spec); err != nil {
			err = fmt.Errorf("creating network %s on physical network %q: %w", spec.Name, spec.PhysicalNetwork,
				s.refused("creating a provider network", err))
			if n.ID == "" {
				return nil, err
			}

			return toNetwork(n), err // a twin that could not be removed: recorded, never orphaned
		}
	} else if err := checkSegment(n, spec); err != nil {
		return toNetwork(n), err
	}

	var have naming.Mark // the marks of the network a create made or adopted, once tagged

	if creating {
		if n, err = s.tag(ctx, n); err != nil {
			return toNetwork(n), err
		}

		have = naming.MarkOfTags(n.Tags)
	}

	if n, err = s.update(ctx, n, spec); err != nil {
		return toNetwork(n), err
	}

	out := toNetwork(n)
	out.Adopted = adopted

	if out.Subnets, err = s.convergeSubnets(ctx, n.ID, spec.Subnets); err != nil || !creating {
		return out, err
	}

	if err := network.Complete(ctx, s.Client, network.TagNetworks, n.ID, TypeName, have); err != nil {
		return out, s.refused("marking a provider network as created", err)
	}

	return out, nil
}

// claim looks for the network of name before a create writes anything: one that an interrupted
// create of a unikorn_provider_network left unfinished is adopted (true) when every subnet in it
// carries the same creation mark; anything else is a *cloud.ExistsError.
func (s *Service) claim(ctx context.Context, name string) (neutronNetwork, bool, error) {
	n, found, err := s.find(ctx, "", name)
	if err != nil || !found {
		return n, false, err
	}

	if err := cloud.Adopt(s.existing(n)); err != nil {
		return n, false, err
	}

	subs, err := listSubnets(ctx, s.Client, subnetsOf(n.ID))
	if err != nil {
		return n, false, err
	}

	for _, sub := range subs {
		if sub.NetworkID == n.ID {
			if err := cloud.Adopt(s.existingSubnet(sub, name)); err != nil {
				return n, false, err
			}
		}
	}

	tflog.Warn(ctx, "Adopting the provider network an interrupted create left unfinished", map[string]any{"network_id": n.ID})

	return n, true, nil
}

// tag writes the creation mark as tags on n (made by this create, or adopted with the mark
// still in its description), unless n carries it already.
func (s *Service) tag(ctx context.Context, n neutronNetwork) (neutronNetwork, error) {
	if naming.MarkOfTags(n.Tags).Marked() {
		return n, nil
	}

	mark := naming.MadeFor(TypeName)
	if err := network.Tag(ctx, s.Client, network.TagNetworks, n.ID, mark); err != nil {
		return n, s.refused("tagging a provider network", err)
	}

	n.Tags = append(n.Tags, mark.Tags()...)

	return n, nil
}

// ForeignPortsError says that a network is not deleted because ports of other projects use it.
type ForeignPortsError struct {
	Name, ID string
	Ports    []string
}

func (e *ForeignPortsError) Error() string {
	return fmt.Sprintf("network %s (%s) is not deleted: %d port(s) of other projects still use it: %s; delete them (or "+
		"the routers, floating IPs and servers that own them) first", e.Name, e.ID, len(e.Ports), strings.Join(e.Ports, "; "))
}

// inUse is the error of a 409 on deleting what (network's *InUseError): the ports opts finds.
func (s *Service) inUse(ctx context.Context, what string, opts ports.ListOpts, cause error) error {
	all, err := listPorts(ctx, s.Client, opts)
	return network.PortsInUse(what, all, err, cause)
}

// Delete deletes the network recorded as id: first a check that no port of another project
// uses it (a *ForeignPortsError lists them, and nothing is deleted), then its subnets, then
// the network. Gone (404) is success.
func (s *Service) Delete(ctx context.Context, id string) error {
	n, err := getNetwork(ctx, s.Client, id)

	switch {
	case isNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading network %s: %w", id, s.refused("reading a provider network", err))
	}

	all, err := listPorts(ctx, s.Client, ports.ListOpts{NetworkID: id})
	if err != nil {
		return err
	}

	var foreign []string

	for _, p := range all {
		if p.ProjectID != n.ProjectID && p.DeviceOwner != "network:dhcp" {
			foreign = append(foreign, network.DescribePort(p))
		}
	}

	if len(foreign) > 0 {
		return &ForeignPortsError{Name: n.Name, ID: n.ID, Ports: foreign}
	}

	subs, err := listSubnets(ctx, s.Client, subnetsOf(id))
	if err != nil {
		return err
	}

	for _, sub := range subs {
		if err := s.deleteSubnet(ctx, sub.ID, sub.Name); err != nil {
			return err
		}
	}

	err = networks.Delete(ctx, s.Client, id).ExtractErr()

	switch {
	case err == nil, isNotFound(err):
		return nil
	case isConflict(err):
		return s.inUse(ctx, fmt.Sprintf("network %s (%s)", n.Name, id), ports.ListOpts{NetworkID: id}, err)
	}

	return fmt.Errorf("deleting network %s (%s): %w", n.Name, id, s.refused("deleting a provider network", err))
}
