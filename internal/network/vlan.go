package network

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
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

// CreateOnFreeVLAN creates, with create, a VLAN network of the physical network physnet on a
// segmentation ID of ranges derived from Neutron alone (sc must see every project's networks):
// list the VLAN networks of physnet, take the lowest free ID and create; when Neutron answers
// that the ID is taken (a concurrent create won it), take the next free one. No allocation
// state is kept anywhere else. Every ID in use is an *ErrNoFreeVLAN. It serves the VLAN
// networks of unikorn_network and unikorn_provider_network alike.
func CreateOnFreeVLAN[T any](ctx context.Context, sc *gophercloud.ServiceClient, physnet string, ranges []VLANRange,
	create func(ctx context.Context, id int) (T, error),
) (T, error) {
	var zero T

	used, err := usedVLANs(ctx, sc, physnet)
	if err != nil {
		return zero, err
	}

	raced := 0

	for _, id := range freeVLANs(ranges, used) {
		out, err := create(ctx, id)
		if err == nil {
			tflog.Debug(ctx, "Created a VLAN network", map[string]any{
				"physical_network": physnet, "vlan_id": id, "vlan_ids_lost_to_races": raced,
			})

			return out, nil
		}

		if isConflict(err) && slices.Contains(vlanTakenTypes, errorType(apiError(err))) {
			tflog.Debug(ctx, "VLAN ID taken by a concurrent create; trying the next one", map[string]any{"vlan_id": id})

			raced++

			continue
		}

		return out, fmt.Errorf("creating a VLAN network with segmentation ID %d on physical network %q: %w", id, physnet, err)
	}

	return zero, &ErrNoFreeVLAN{PhysicalNetwork: physnet, Ranges: slices.Clone(ranges), InUse: inRanges(ranges, used), Raced: raced}
}
