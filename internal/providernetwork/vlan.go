package providernetwork

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// A VLAN provider network without a segmentation_id gets one from Neutron's own view, as the
// VLAN networks of unikorn_network do (network/vlan.go): when the provider's provider_network
// names the same physical network, the lowest ID of its vlan_ranges that no VLAN network of the
// physical network uses, the next one when a concurrent create won it; otherwise Neutron
// allocates one from its own network_vlan_ranges (the provider segment is posted without a
// segmentation ID). No allocation state is kept anywhere else.
//
// The list-and-retry loop below is a stand-in for network's createVLANNetwork, which is not
// exported (it is bound to network's own network type): see freeVLAN's note.

// vlanTakenTypes are the Neutron error types that say a segmentation ID is already taken.
var vlanTakenTypes = []string{"VlanIdInUse", "SegmentationIdInUse"}

// query is a network list filter gophercloud's ListOpts cannot spell (provider:* attributes).
type query url.Values

// ToNetworkListQuery makes query a networks.ListOptsBuilder.
func (q query) ToNetworkListQuery() (string, error) { return "?" + url.Values(q).Encode(), nil }

// usedVLANs are the segmentation IDs the VLAN networks of physnet use, in every project.
func usedVLANs(ctx context.Context, sc *gophercloud.ServiceClient, physnet string) (map[int]bool, error) {
	q := query{
		"provider:physical_network": {physnet},
		"provider:network_type":     {"vlan"},
		"fields":                    {"id", "provider:physical_network", "provider:network_type", "provider:segmentation_id"},
	}

	nets, err := listNetworks(ctx, sc, q, fmt.Sprintf("the VLAN networks of physical network %q", physnet))
	if err != nil {
		return nil, err
	}

	used := map[int]bool{}

	for _, n := range nets {
		// Post-filter: a cloud that ignores a filter must not make an ID look free.
		if n.NetworkType == TypeVLAN && n.PhysicalNetwork == physnet && n.segmentationID() > 0 {
			used[n.segmentationID()] = true
		}
	}

	return used, nil
}

// freeVLANs are the IDs of ranges that used does not hold, ascending, without repeats.
func freeVLANs(ranges []network.VLANRange, used map[int]bool) []int {
	var out []int

	for _, r := range ranges {
		for id := max(r.Start, network.MinVLANID); id <= min(r.End, network.MaxVLANID); id++ {
			if !used[id] {
				out = append(out, id)
			}
		}
	}

	slices.Sort(out)

	return slices.Compact(out)
}

// freeVLAN creates, with create, a network on the lowest free VLAN ID of ranges on physnet,
// moving on to the next free one while Neutron answers that the ID is taken. It is the loop
// of network's createVLANNetwork; once network exports it (as CreateOnFreeVLAN, generic in
// what create returns), this becomes a call of it.
func freeVLAN(ctx context.Context, sc *gophercloud.ServiceClient, physnet string, ranges []network.VLANRange,
	create func(ctx context.Context, id int) (neutronNetwork, error),
) (neutronNetwork, error) {
	used, err := usedVLANs(ctx, sc, physnet)
	if err != nil {
		return neutronNetwork{}, err
	}

	raced := 0

	for _, id := range freeVLANs(ranges, used) {
		out, err := create(ctx, id)
		if err == nil {
			tflog.Debug(ctx, "Created a VLAN provider network", map[string]any{
				"network_id": out.ID, "physical_network": physnet, "vlan_id": id, "vlan_ids_lost_to_races": raced,
			})

			return out, nil
		}

		if !isConflict(err) || !slices.Contains(vlanTakenTypes, neutronErrorType(err)) {
			return out, err
		}

		tflog.Debug(ctx, "VLAN ID taken by a concurrent create; trying the next one", map[string]any{"vlan_id": id})

		raced++
	}

	inUse := 0

	for id := range used {
		if slices.ContainsFunc(ranges, func(r network.VLANRange) bool { return id >= r.Start && id <= r.End }) {
			inUse++
		}
	}

	return neutronNetwork{}, &network.ErrNoFreeVLAN{PhysicalNetwork: physnet, Ranges: slices.Clone(ranges), InUse: inUse, Raced: raced}
}
