package network

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// VLAN IDs a network may use (IEEE 802.1Q: 0 and 4095 are reserved).
const (
	MinVLANID = 1
	MaxVLANID = 4094
)

// Neutron error types that say a segmentation ID is already taken.
var vlanTakenTypes = []string{"VlanIdInUse", "SegmentationIdInUse"}

// ErrNoFreeVLAN is returned when every VLAN ID of the configured ranges is in use.
type ErrNoFreeVLAN struct {
	PhysicalNetwork string
	Ranges          []VLANRange
	InUse           int // how many IDs of the ranges Neutron reported in use
	Raced           int // how many free IDs were taken by others while we tried them
}

func (e *ErrNoFreeVLAN) Error() string {
	ranges := make([]string, len(e.Ranges))
	for i, r := range e.Ranges {
		ranges[i] = r.String()
	}

	msg := fmt.Sprintf("no free VLAN ID on physical network %q in the ranges %s (%d in use)",
		e.PhysicalNetwork, strings.Join(ranges, ", "), e.InUse)
	if e.Raced > 0 {
		msg += fmt.Sprintf("; %d more were taken by concurrent creates while this one tried them", e.Raced)
	}

	return msg + ": widen the provider's provider_network.vlan_ranges or delete unused VLAN networks"
}

// freeVLANs are the IDs of ranges that are not in used, ascending and without repeats.
func freeVLANs(ranges []VLANRange, used map[int]bool) []int {
	var out []int

	for _, r := range ranges {
		for id := max(r.Start, MinVLANID); id <= min(r.End, MaxVLANID); id++ {
			if !used[id] {
				out = append(out, id)
			}
		}
	}

	slices.Sort(out)

	return slices.Compact(out)
}

// inRanges counts the IDs of used that lie in ranges.
func inRanges(ranges []VLANRange, used map[int]bool) int {
	n := 0

	for id := range used {
		for _, r := range ranges {
			if id >= r.Start && id <= r.End {
				n++
				break
			}
		}
	}

	return n
}

// usedVLANs asks Neutron which segmentation IDs the VLAN networks of the physical network
// use, in every project (the privileged scope is an admin one). networks.ListOpts has no
// provider:* filters, hence the query.
func usedVLANs(ctx context.Context, sc *gophercloud.ServiceClient, physnet string) (map[int]bool, error) {
	q := query{
		"provider:physical_network": {physnet},
		"provider:network_type":     {"vlan"},
		"fields":                    {"id", "provider:physical_network", "provider:network_type", "provider:segmentation_id"},
	}

	nets, err := listNetworks(ctx, sc, q)
	if err != nil {
		return nil, fmt.Errorf("listing the VLAN networks of physical network %q: %w", physnet, err)
	}

	used := map[int]bool{}

	for _, net := range nets {
		// Post-filter: a cloud that ignores a filter must not make us think an ID is free.
		if id, ok := net.vlanID(); ok && net.PhysicalNetwork == physnet {
			used[id] = true
		}
	}

	return used, nil
}

// createVLANNetwork creates the network of opts as a VLAN provider network (one segment of
// the provider extension) on pn's physical network. The segmentation ID is derived from
// Neutron alone: list the VLAN networks of the physical network, take the lowest free ID of
// the ranges and create; when Neutron answers that the ID is taken (a concurrent create won
// it), take the next free one. No allocation state is kept anywhere else. Each create is made
// with post (cloud.Create: a lost answer is recovered by name, and that refusal is definite).
func createVLANNetwork(ctx context.Context, sc *gophercloud.ServiceClient, opts networks.CreateOpts, pn *ProviderNetwork,
	post func(ctx context.Context, opts networks.CreateOptsBuilder) (neutronNetwork, error),
) (neutronNetwork, error) {
	used, err := usedVLANs(ctx, sc, pn.PhysicalNetwork)
	if err != nil {
		return neutronNetwork{}, err
	}

	candidates := freeVLANs(pn.VLANRanges, used)
	raced := 0

	for _, id := range candidates {
		withSegment := provider.CreateOptsExt{
			CreateOptsBuilder: opts,
			Segments:          []provider.Segment{{NetworkType: "vlan", PhysicalNetwork: pn.PhysicalNetwork, SegmentationID: id}},
		}

		out, err := post(ctx, withSegment)
		if err == nil {
			tflog.Debug(ctx, "Created a VLAN provider network", map[string]any{
				"network_id": out.ID, "physical_network": pn.PhysicalNetwork, "vlan_id": id, "vlan_ids_lost_to_races": raced,
			})

			return out, nil
		}

		if isConflict(err) && slices.Contains(vlanTakenTypes, errorType(err)) {
			tflog.Debug(ctx, "VLAN ID taken by a concurrent create; trying the next one", map[string]any{"vlan_id": id})

			raced++

			continue
		}

		return out, fmt.Errorf("creating a VLAN network with segmentation ID %d on physical network %q: %w",
			id, pn.PhysicalNetwork, err)
	}

	return neutronNetwork{}, &ErrNoFreeVLAN{
		PhysicalNetwork: pn.PhysicalNetwork, Ranges: slices.Clone(pn.VLANRanges),
		InUse: inRanges(pn.VLANRanges, used), Raced: raced,
	}
}
