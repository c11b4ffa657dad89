package providernetwork

import (
	"fmt"
	"net/netip"
)

// The addressing rules of a subnet, as Neutron applies them, so that the plan can show
// Neutron's defaults and refuse what Neutron would refuse.

// hostRange is the first and last address Neutron lets a subnet hand out: after the network
// address, and for IPv4 before the broadcast address.
func hostRange(p netip.Prefix) (first, last netip.Addr) {
	first, last = p.Masked().Addr().Next(), lastOf(p)
	if last.Is4() {
		last = last.Prev()
	}

	return first, last
}

// lastOf is the last address of p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	bits := p.Bits()

	for i := range b {
		for j := 0; j < 8; j++ {
			if i*8+j >= bits {
				b[i] |= 0x80 >> j
			}
		}
	}

	a, _ := netip.AddrFromSlice(b)

	return a
}

// DefaultGateway is Neutron's default gateway of p: its first host address.
func DefaultGateway(p netip.Prefix) netip.Addr {
	return p.Masked().Addr().Next()
}

// DefaultPools are Neutron's default allocation pools of an IPv4 prefix p with gateway: every
// host address but the gateway. nil for IPv6 (whose defaults the plan leaves to Neutron).
func DefaultPools(p netip.Prefix, gateway netip.Addr) []Pool {
	if !p.Addr().Is4() {
		return nil
	}

	first, last := hostRange(p)
	if last.Less(first) {
		return []Pool{}
	}

	var out []Pool

	if !p.Contains(gateway) || gateway.Less(first) || last.Less(gateway) {
		return []Pool{{Start: first.String(), End: last.String()}}
	}

	if first.Less(gateway) {
		out = append(out, Pool{Start: first.String(), End: gateway.Prev().String()})
	}

	if gateway.Less(last) {
		out = append(out, Pool{Start: gateway.Next().String(), End: last.String()})
	}

	return out
}

// CheckGateway checks that gateway lies inside p and is a host address of it.
func CheckGateway(p netip.Prefix, gateway netip.Addr) error {
	first, last := hostRange(p)
	if gateway.Is4() != p.Addr().Is4() || gateway.Less(first) || last.Less(gateway) {
		return fmt.Errorf("the gateway %s is not a host address of %s (%s to %s)", gateway, p, first, last)
	}

	return nil
}

// CheckPool checks one allocation pool of a subnet p with gateway (invalid: none): its ends are
// addresses of p's family in order, it lies inside p's host addresses and does not contain the
// gateway.
func CheckPool(p netip.Prefix, gateway netip.Addr, start, end netip.Addr) error {
	first, last := hostRange(p)

	switch {
	case start.Is4() != p.Addr().Is4() || end.Is4() != p.Addr().Is4():
		return fmt.Errorf("allocation pool %s-%s is not of the family of %s", start, end, p)
	case end.Less(start):
		return fmt.Errorf("allocation pool %s-%s: start is after end", start, end)
	case start.Less(first) || last.Less(end):
		return fmt.Errorf("allocation pool %s-%s is not inside the subnet %s (host addresses %s to %s)", start, end, p, first, last)
	case gateway.IsValid() && !gateway.Less(start) && !end.Less(gateway):
		return fmt.Errorf("allocation pool %s-%s contains the gateway %s", start, end, gateway)
	}

	return nil
}

// Overlap tells whether two ranges share an address.
func Overlap(aStart, aEnd, bStart, bEnd netip.Addr) bool {
	return !aEnd.Less(bStart) && !bEnd.Less(aStart)
}
