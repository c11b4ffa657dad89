package providernetwork

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/mtu"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file is how the package talks to Neutron: the network with its provider, external and
// MTU extensions, and the bodies gophercloud cannot spell (a provider segment without a
// segmentation ID, which Neutron then allocates itself).

// neutronNetwork is a Neutron network with the extensions this resource reads.
type neutronNetwork struct {
	networks.Network
	external.NetworkExternalExt
	provider.NetworkProviderExt
	mtu.NetworkMTUExt
}

// segmentationID is the network's segmentation ID; 0 when it has none (flat).
func (n neutronNetwork) segmentationID() int {
	id, err := strconv.Atoi(n.SegmentationID)
	if err != nil {
		return 0
	}

	return id
}

// networkBody is a network create or update body: exactly the fields set, in the one-segment
// provider form (provider:network_type, provider:physical_network, and
// provider:segmentation_id only when given).
type networkBody map[string]any

// ToNetworkCreateMap makes networkBody a networks.CreateOptsBuilder.
func (b networkBody) ToNetworkCreateMap() (map[string]any, error) {
	return map[string]any{"network": map[string]any(b)}, nil
}

// networkUpdate is a network update body (a struct: gophercloud reads an update's headers off it).
type networkUpdate struct{ body networkBody }

// ToNetworkUpdateMap makes networkUpdate a networks.UpdateOptsBuilder.
func (u networkUpdate) ToNetworkUpdateMap() (map[string]any, error) {
	return map[string]any{"network": map[string]any(u.body)}, nil
}

func isNotFound(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusNotFound) }

func isConflict(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusConflict) }

func getNetwork(ctx context.Context, sc *gophercloud.ServiceClient, id string) (neutronNetwork, error) {
	var out neutronNetwork
	err := networks.Get(ctx, sc, id).ExtractInto(&out)

	return out, err
}

// listNetworks lists the networks that opts finds, with their extensions.
func listNetworks(ctx context.Context, sc *gophercloud.ServiceClient, opts networks.ListOptsBuilder, what string) ([]neutronNetwork, error) {
	return cloud.ListAll(ctx, networks.List(sc, opts), func(p pagination.Page) ([]neutronNetwork, error) {
		var out []neutronNetwork
		err := networks.ExtractNetworksInto(p, &out)

		return out, err
	}, what)
}

func listSubnets(ctx context.Context, sc *gophercloud.ServiceClient, opts subnets.ListOpts) ([]subnets.Subnet, error) {
	return cloud.ListAll(ctx, subnets.List(sc, opts), subnets.ExtractSubnets, "the subnets of network "+opts.NetworkID)
}

func listPorts(ctx context.Context, sc *gophercloud.ServiceClient, opts ports.ListOpts) ([]ports.Port, error) {
	return cloud.ListAll(ctx, ports.List(sc, opts), ports.ExtractPorts, "the ports of network "+opts.NetworkID)
}
