package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file holds the checks that stop bad input before anything is made: the plan runs them
// when the values are known then (through the per-run NetworkCache), and Ensure runs them
// again before its first change (an update of the recorded load balancer only for the
// addresses it adds).

// AddressError is a VIP or member address outside the VIP subnet: Octavia would refuse it (or
// the member would never be reached) half-way through an apply.
type AddressError struct {
	// Listener and Member are the indexes of the member in Spec.Listeners and in the
	// listener's Members; Listener is -1 for the VIP address.
	Listener, Member int
	Address          string
	Network          *VIPNetwork
}

func (e *AddressError) Error() string {
	what := "the VIP address"
	if e.Listener >= 0 {
		what = "member address"
	}

	return fmt.Sprintf("%s %s is outside the VIP subnet %s (%s) of network %s (%s): the VIP and every member must be on "+
		"the network's subnet", what, e.Address, e.Network.CIDR, e.Network.SubnetID, e.Network.Name, e.Network.ID)
}

// CheckAddresses lists the addresses of spec that are outside n's VIP subnet. An address
// that does not parse is left to the schema's validators.
func CheckAddresses(spec Spec, n *VIPNetwork) []*AddressError {
	var out []*AddressError

	outside := func(address string) bool {
		a, err := netip.ParseAddr(address)
		return address != "" && err == nil && !n.CIDR.Contains(a)
	}

	if outside(spec.VIPAddress) {
		out = append(out, &AddressError{Listener: -1, Member: -1, Address: spec.VIPAddress, Network: n})
	}

	for i, l := range spec.Listeners {
		for j, m := range l.Members {
			if outside(m.Address) {
				out = append(out, &AddressError{Listener: i, Member: j, Address: m.Address, Network: n})
			}
		}
	}

	return out
}

// joinAddressErrors is the error of the addresses outside the VIP subnet; nil for none.
func joinAddressErrors(outside []*AddressError) error {
	errs := make([]error, len(outside))
	for i, e := range outside {
		errs[i] = e
	}

	return errors.Join(errs...)
}

// NetworkCache remembers the VIP networks looked up during one run of the provider, so that
// the plans of many load balancers on one network ask Neutron once. A failed lookup is not
// kept. Its zero value is ready; the provider's client bundle holds the run's one
// (LoadBalancerNetworkCache).
type NetworkCache struct {
	networks cloud.OnceCache[networkKey, *VIPNetwork]
}

type networkKey struct {
	projectID, region, networkID string
}

// VIPNetwork is s.VIPNetwork(networkID), once per run for s's project and region.
// A nil cache reads it every time.
func (c *NetworkCache) VIPNetwork(ctx context.Context, s *Service, networkID string) (*VIPNetwork, error) {
	if c == nil {
		return s.VIPNetwork(ctx, networkID)
	}

	return c.networks.Get(ctx, networkKey{s.ProjectID, s.Region, networkID}, func(ctx context.Context) (*VIPNetwork, error) {
		return s.VIPNetwork(ctx, networkID)
	})
}

// onRecordedVIP tells whether lb is the load balancer recorded in the state (knownID) with its
// VIP where spec wants it: on spec's network, at spec's address when it names one.
func onRecordedVIP(spec Spec, knownID string, lb *loadbalancers.LoadBalancer) bool {
	return lb != nil && knownID != "" && lb.ID == knownID && lb.VipNetworkID == spec.NetworkID && lb.VipSubnetID != "" &&
		(spec.VIPAddress == "" || spec.VIPAddress == lb.VipAddress)
}

// checkedVIP reads spec's VIP network (from the run's cache) and checks spec's addresses
// against its VIP subnet.
func (s *Service) checkedVIP(ctx context.Context, spec Spec) (*VIPNetwork, error) {
	vip, err := s.Networks.VIPNetwork(ctx, s, spec.NetworkID)
	if err != nil {
		return nil, err
	}

	if err := joinAddressErrors(CheckAddresses(spec, vip)); err != nil {
		return nil, err
	}

	return vip, nil
}

// checkNewAddresses checks the addresses of spec's members that no pool of t holds yet against
// the VIP subnet (those it holds were checked when they were added).
func (s *Service) checkNewAddresses(ctx context.Context, spec Spec, t *Topology) error {
	held := map[string]bool{}

	for _, o := range t.Listeners {
		for _, m := range o.Members {
			held[m.Address] = true
		}
	}

	for _, l := range spec.Listeners {
		for _, m := range l.Members {
			if !held[m.Address] {
				_, err := s.checkedVIP(ctx, spec)
				return err
			}
		}
	}

	return nil
}

// checkAdoptable refuses an existing load balancer whose VIP cannot be what spec says.
func checkAdoptable(spec Spec, subnetID string, lb *loadbalancers.LoadBalancer) error {
	switch {
	case lb.VipNetworkID != "" && lb.VipNetworkID != spec.NetworkID:
		return &MismatchError{Name: spec.Name, ID: lb.ID, Reason: fmt.Sprintf("its VIP is on network %s, not %s", lb.VipNetworkID, spec.NetworkID)}
	case lb.VipSubnetID != "" && lb.VipSubnetID != subnetID:
		return &MismatchError{Name: spec.Name, ID: lb.ID, Reason: fmt.Sprintf("its VIP is on subnet %s, not %s", lb.VipSubnetID, subnetID)}
	case spec.VIPAddress != "" && lb.VipAddress != spec.VIPAddress:
		return &MismatchError{Name: spec.Name, ID: lb.ID, Reason: fmt.Sprintf("its VIP address is %s, not %s", lb.VipAddress, spec.VIPAddress)}
	}

	return nil
}
