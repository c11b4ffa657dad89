package network

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
)

// The ports the parts of a network are found by: a router's interface on a subnet.

// listPorts lists the ports matching opts.
func (s *Service) listPorts(ctx context.Context, opts ports.ListOptsBuilder) ([]ports.Port, error) {
	return listAll(ctx, ports.List(s.sc, opts), ports.ExtractPorts)
}

// interfacePort finds the port that attaches routerID to subnetID; "" when there is none.
func (s *Service) interfacePort(ctx context.Context, routerID, networkID, subnetID string) (string, error) {
	all, ok, err := PortListing.Find(ctx, s.tenant, OnDeviceKey(routerID))
	if err == nil && !ok {
		all, err = s.listPorts(ctx, ports.ListOpts{DeviceID: routerID, NetworkID: networkID})
	}

	if err != nil {
		return "", fmt.Errorf("listing the ports of router %s: %w", routerID, err)
	}

	for _, p := range all {
		if p.DeviceID != routerID || p.NetworkID != networkID {
			continue
		}

		for _, ip := range p.FixedIPs {
			if ip.SubnetID == subnetID {
				return p.ID, nil
			}
		}
	}

	return "", nil
}
