package network

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// MaxPrefixLength is the longest IPv4 prefix a network may have: a /29 holds the network
// address, the gateway, two static addresses, three DHCP addresses and the broadcast address.
const MaxPrefixLength = 29

// AddressRange is an inclusive range of IPv4 addresses.
type AddressRange struct {
	Start netip.Addr
	End   netip.Addr
}

func (r AddressRange) String() string {
	return r.Start.String() + "-" + r.End.String()
}

// ReservedPrefixLength is the length of the block at the start of a prefix that Unikorn's
// region service keeps out of DHCP (v1.11.0 on, and the default of v1.17's configurable
// reservations: pkg/providers/internal/openstack/provider.go:dhcpRange, DefaultNetwork-
// ReservationPrefixLength in pkg/constants): the pool starts after the first /25.
const ReservedPrefixLength = 25

// Addressing is the IPv4 plan of a network's subnet, following Unikorn: the gateway is the
// first address of the prefix, the addresses after it up to the pool are kept for static
// addresses, and DHCP hands out the rest (without the broadcast address).
type Addressing struct {
	CIDR    netip.Prefix
	Gateway netip.Addr
	// Pool is the DHCP allocation pool.
	Pool AddressRange
	// Static is the range between the gateway and the pool that DHCP never hands out; nil
	// when the pool starts right after the gateway.
	Static *AddressRange
}

// ParseCIDR parses an IPv4 prefix in canonical form (the network address, no host bits)
// of at most MaxPrefixLength bits.
func ParseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a CIDR prefix such as 10.0.0.0/24", s)
	}

	if !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("%q is not an IPv4 prefix: networks are IPv4", s)
	}

	if p.Bits() == 0 || p.Bits() > MaxPrefixLength {
		return netip.Prefix{}, fmt.Errorf("%q: the prefix length must be between 1 and %d", s, MaxPrefixLength)
	}

	if masked := p.Masked(); masked != p {
		return netip.Prefix{}, fmt.Errorf("%q has host bits set: did you mean %s?", s, masked)
	}

	return p, nil
}

// PlanAddressing is the addressing of prefix p with the given DHCP pool, or with the default
// pool (DefaultPool) when pool is nil. A given pool must lie inside p, after the gateway and
// before the broadcast address.
func PlanAddressing(p netip.Prefix, pool *AddressRange) (Addressing, error) {
	if !p.Addr().Is4() || p.Bits() == 0 || p.Bits() > MaxPrefixLength || p.Masked() != p {
		return Addressing{}, fmt.Errorf("%s is not a canonical IPv4 prefix of 1 to %d bits", p, MaxPrefixLength)
	}

	base := v4(p.Addr())
	size := uint64(1) << (32 - p.Bits())
	last := base + uint32(size-1) //nolint:gosec // size ≤ 2^31
	gateway := base + 1

	a := Addressing{CIDR: p, Gateway: addr4(gateway)}

	if pool == nil {
		a.Pool = DefaultPool(p)
	} else {
		if !pool.Start.Is4() || !pool.End.Is4() {
			return Addressing{}, fmt.Errorf("allocation pool %s: addresses must be IPv4", pool)
		}

		start, end := v4(pool.Start), v4(pool.End)

		switch {
		case start > end:
			return Addressing{}, fmt.Errorf("allocation pool %s: start is after end", pool)
		case !p.Contains(pool.Start) || !p.Contains(pool.End):
			return Addressing{}, fmt.Errorf("allocation pool %s is not inside %s", pool, p)
		case start <= gateway:
			return Addressing{}, fmt.Errorf("allocation pool %s must start after the gateway %s", pool, addr4(gateway))
		case end >= last:
			return Addressing{}, fmt.Errorf("allocation pool %s must end before the broadcast address %s", pool, addr4(last))
		}

		a.Pool = *pool
	}

	if first := gateway + 1; first < v4(a.Pool.Start) {
		a.Static = &AddressRange{Start: addr4(first), End: addr4(v4(a.Pool.Start) - 1)}
	}

	return a, nil
}

// DefaultPool is the DHCP pool of a new network of the canonical IPv4 prefix p (of 1 to
// MaxPrefixLength bits), as Unikorn's region service lays it out from v1.11.0 on (and by
// default from v1.17.0 on): from the first address after the reserved /25
// (ReservedPrefixLength) to the last address before the broadcast address. A prefix of /25 or
// longer has no room for that reservation (Unikorn refuses such networks); it keeps the
// provider's rule from before: the upper half, without the broadcast address.
func DefaultPool(p netip.Prefix) AddressRange {
	base := v4(p.Addr())
	size := uint64(1) << (32 - p.Bits())
	last := base + uint32(size-1) //nolint:gosec // size ≤ 2^31

	start := base + uint32(size/2) //nolint:gosec // size ≤ 2^31
	if p.Bits() < ReservedPrefixLength {
		start = base + 1<<(32-ReservedPrefixLength)
	}

	return AddressRange{Start: addr4(start), End: addr4(last - 1)}
}

// ParseRange parses the two ends of an address range.
func ParseRange(start, end string) (AddressRange, error) {
	s, err := netip.ParseAddr(start)
	if err != nil {
		return AddressRange{}, fmt.Errorf("%q is not an IP address", start)
	}

	e, err := netip.ParseAddr(end)
	if err != nil {
		return AddressRange{}, fmt.Errorf("%q is not an IP address", end)
	}

	return AddressRange{Start: s, End: e}, nil
}

func v4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

func addr4(n uint32) netip.Addr {
	var b [4]byte

	binary.BigEndian.PutUint32(b[:], n)

	return netip.AddrFrom4(b)
}
