package providernetwork

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

const kindSubnet = "subnet"

// Pool is an allocation pool: an inclusive range of addresses DHCP hands out.
type Pool struct{ Start, End string }

// SubnetSpec is one subnet a provider network asks for, found again by its name.
type SubnetSpec struct {
	Name, CIDR string
	// GatewayIP is "" for Neutron's default.
	GatewayIP  string
	EnableDHCP bool
	// Pools is nil for Neutron's default.
	Pools          []Pool
	DNSNameservers []string
	HostRoutes     []network.Route
}

// Subnet is what Neutron holds of one subnet.
type Subnet struct {
	ID, Name, CIDR, GatewayIP string
	EnableDHCP                bool
	Pools                     []Pool
	DNSNameservers            []string
	HostRoutes                []network.Route

	// tags and description carry the ownership marks.
	tags        []string
	description string
}

func toSubnet(s subnets.Subnet) Subnet {
	out := Subnet{
		ID: s.ID, Name: s.Name, CIDR: s.CIDR, GatewayIP: s.GatewayIP, EnableDHCP: s.EnableDHCP,
		DNSNameservers: slices.Clone(s.DNSNameservers), tags: s.Tags, description: s.Description,
	}

	for _, p := range s.AllocationPools {
		out.Pools = append(out.Pools, Pool{Start: p.Start, End: p.End})
	}

	out.HostRoutes = network.RoutesOf(s.HostRoutes)

	return out
}

func subnetsOf(networkID string) subnets.ListOpts { return subnets.ListOpts{NetworkID: networkID} }

// subnetsOf lists the subnets of networkID.
func (s *Service) subnetsOf(ctx context.Context, networkID string) ([]Subnet, error) {
	all, err := listSubnets(ctx, s.Client, subnetsOf(networkID))
	if err != nil {
		return nil, err
	}

	out := make([]Subnet, 0, len(all))

	for _, sub := range all {
		if sub.NetworkID == networkID { // post-filter
			out = append(out, toSubnet(sub))
		}
	}

	return out, nil
}

// sameAddress compares two addresses by value ("" only equals "").
func sameAddress(a, b string) bool {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)

	if errX != nil || errY != nil {
		return a == b
	}

	return x == y
}

// replaced tells whether have cannot become want in place: Neutron cannot change a subnet's CIDR.
func replaced(have Subnet, want SubnetSpec) bool {
	h, errH := netip.ParsePrefix(have.CIDR)
	w, errW := netip.ParsePrefix(want.CIDR)

	if errH != nil || errW != nil {
		return have.CIDR != want.CIDR
	}

	return h.Masked() != w.Masked()
}

func pools(ps []Pool) []subnets.AllocationPool {
	out := make([]subnets.AllocationPool, 0, len(ps))
	for _, p := range ps {
		out = append(out, subnets.AllocationPool{Start: p.Start, End: p.End})
	}

	return out
}

// subnetDiff is the in-place update that makes have what want says; false when none is needed.
func subnetDiff(have Subnet, want SubnetSpec) (subnets.UpdateOpts, bool) {
	var diff subnets.UpdateOpts

	changed := false

	if want.GatewayIP != "" && !sameAddress(have.GatewayIP, want.GatewayIP) {
		diff.GatewayIP, changed = &want.GatewayIP, true
	}

	if have.EnableDHCP != want.EnableDHCP {
		diff.EnableDHCP, changed = &want.EnableDHCP, true
	}

	if want.Pools != nil && !cloud.SameSet(have.Pools, want.Pools) {
		diff.AllocationPools, changed = pools(want.Pools), true
	}

	if !slices.Equal(have.DNSNameservers, want.DNSNameservers) {
		dns := slices.Clone(want.DNSNameservers)
		if dns == nil {
			dns = []string{}
		}

		diff.DNSNameservers, changed = &dns, true
	}

	if !cloud.SameSet(have.HostRoutes, want.HostRoutes) {
		routes := network.HostRoutes(want.HostRoutes)
		diff.HostRoutes, changed = &routes, true
	}

	return diff, changed
}

// deleteSubnet deletes subnet id; gone is success, a 409 a *network.InUseError naming the ports.
func (s *Service) deleteSubnet(ctx context.Context, id, name string) error {
	err := subnets.Delete(ctx, s.Client, id).ExtractErr()

	switch {
	case err == nil, isNotFound(err):
		return nil
	case isConflict(err):
		return s.inUse(ctx, fmt.Sprintf("subnet %s (%s)", name, id), ports.ListOpts{FixedIPs: []ports.FixedIPOpts{{SubnetID: id}}}, err)
	}

	return fmt.Errorf("deleting subnet %s (%s): %w", name, id, s.refused("deleting a subnet of a provider network", err))
}

// existingSubnet describes sub, a subnet of the network of the unikorn_provider_network name,
// for the ownership rule of its parts (the creation mark of the type).
func (s *Service) existingSubnet(sub subnets.Subnet, name string) cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: kindSubnet, Name: sub.Name, ID: sub.ID, Where: "in network " + sub.NetworkID,
		Part: "unikorn_provider_network " + name, Mark: naming.MarkOfNeutron(sub.Tags, sub.Description)}
}

// createSubnet makes subnet want in networkID through cloud.Create, posted with the creation
// mark as its description, then tagged with it (its description cleared): a subnet found after a
// lost answer is taken only when it carries that mark.
func (s *Service) createSubnet(ctx context.Context, networkID string, want SubnetSpec) (Subnet, error) {
	version := gopherIPVersion(want.CIDR)
	dhcp := want.EnableDHCP

	opts := subnets.CreateOpts{
		NetworkID: networkID, Name: want.Name, CIDR: want.CIDR, IPVersion: gophercloud.IPVersion(version), EnableDHCP: &dhcp,
		DNSNameservers: slices.Clone(want.DNSNameservers), HostRoutes: network.HostRoutes(want.HostRoutes),
		Description: naming.MadeFor(TypeName).Description(),
	}

	if want.GatewayIP != "" {
		opts.GatewayIP = &want.GatewayIP
	}

	if want.Pools != nil {
		opts.AllocationPools = pools(want.Pools)
	}

	find := func(ctx context.Context) ([]subnets.Subnet, error) {
		all, err := listSubnets(ctx, s.Client, subnets.ListOpts{NetworkID: networkID, Name: want.Name})

		return naming.Exact(all, want.Name, func(s subnets.Subnet) string { return s.Name }), err
	}

	created, err := cloud.Create(ctx, cloud.CreateSpec[subnets.Subnet]{
		Kind: kindSubnet,
		Name: want.Name,
		Create: func(ctx context.Context) (subnets.Subnet, error) {
			sub, err := subnets.Create(ctx, s.Client, opts).Extract()
			if err != nil || sub == nil {
				return subnets.Subnet{}, err
			}

			return *sub, nil
		},
		Find:   find,
		ID:     func(s subnets.Subnet) string { return s.ID },
		Delete: func(ctx context.Context, id string) error { return subnets.Delete(ctx, s.Client, id).ExtractErr() },
		Adopt: func(sub subnets.Subnet) error {
			return cloud.Adopt(cloud.Existing{Type: TypeName, Kind: kindSubnet, Name: sub.Name, ID: sub.ID,
				Where: "in network " + networkID, Part: "the provider network " + networkID, Mark: naming.MarkOfNeutron(sub.Tags, sub.Description)})
		},
	})
	if err != nil {
		return toSubnet(created), fmt.Errorf("creating subnet %s (%s) in network %s: %w", want.Name, want.CIDR, networkID,
			s.refused("creating a subnet of a provider network", err))
	}

	return s.markSubnet(ctx, toSubnet(created))
}

// markSubnet tags sub with the creation mark it carries in its description (made by this
// provider, not yet tagged), then clears that description; nothing for a subnet tagged already
// or never marked.
func (s *Service) markSubnet(ctx context.Context, sub Subnet) (Subnet, error) {
	mark := naming.MarkOfNeutron(sub.tags, sub.description)
	if !mark.Marked() || naming.MarkOfTags(sub.tags).Marked() {
		return sub, nil
	}

	if err := network.Tag(ctx, s.Client, network.TagSubnets, sub.ID, mark); err != nil {
		return sub, s.refused("tagging a subnet of a provider network", err)
	}

	none := ""

	updated, err := subnets.Update(ctx, s.Client, sub.ID, subnets.UpdateOpts{Description: &none}).Extract()
	if err != nil {
		return sub, fmt.Errorf("clearing the description of subnet %s (%s): %w", sub.Name, sub.ID,
			s.refused("updating a subnet of a provider network", err))
	}

	return toSubnet(*updated), nil
}

// gopherIPVersion is the IP version of a CIDR (IPv4 unless it parses as IPv6).
func gopherIPVersion(cidr string) int {
	if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is6() {
		return 6
	}

	return 4
}

// convergeSubnets makes the subnets of networkID those of want, by name: a subnet of no wanted
// name is deleted, one whose CIDR changed is deleted and made again, the others are updated in
// place; deletes come first (Neutron refuses overlapping subnets in one network). It returns the
// subnets that exist afterwards, in Neutron's order, even when it fails part way.
func (s *Service) convergeSubnets(ctx context.Context, networkID string, want []SubnetSpec) ([]Subnet, error) {
	have, err := s.subnetsOf(ctx, networkID)
	if err != nil {
		return nil, err
	}

	byName := map[string]Subnet{}

	for _, sub := range have {
		if other, dup := byName[sub.Name]; dup {
			return have, &naming.DuplicateError{Kind: kindSubnet, Name: sub.Name, IDs: []string{other.ID, sub.ID}}
		}

		byName[sub.Name] = sub
	}

	wanted := map[string]SubnetSpec{}
	for _, w := range want {
		wanted[w.Name] = w
	}

	// Deletes first: subnets no longer wanted, and those that must be made again.
	kept := have[:0:0]

	for _, sub := range have {
		w, ok := wanted[sub.Name]
		if ok && !replaced(sub, w) {
			kept = append(kept, sub)
			continue
		}

		if err := s.deleteSubnet(ctx, sub.ID, sub.Name); err != nil {
			return append(kept, sub), err
		}

		delete(byName, sub.Name)
	}

	out := kept

	for i, sub := range out {
		// A subnet an interrupted create posted and never tagged gets its mark as tags.
		if out[i], err = s.markSubnet(ctx, sub); err != nil {
			return out, err
		}

		sub = out[i]

		diff, changed := subnetDiff(sub, wanted[sub.Name])
		if !changed {
			continue
		}

		updated, err := subnets.Update(ctx, s.Client, sub.ID, diff).Extract()
		if err != nil {
			return out, fmt.Errorf("updating subnet %s (%s): %w", sub.Name, sub.ID, s.refused("updating a subnet of a provider network", err))
		}

		out[i] = toSubnet(*updated)
	}

	for _, w := range want {
		if _, ok := byName[w.Name]; ok {
			continue
		}

		created, err := s.createSubnet(ctx, networkID, w)
		if created.ID != "" {
			out = append(out, created)
		}

		if err != nil {
			return out, err
		}
	}

	return out, nil
}
