package providernetwork

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func TestDefaultPools(t *testing.T) {
	t.Parallel()

	for _, c := range []struct{ cidr, gateway, want string }{
		{"192.0.2.0/24", "192.0.2.1", "[{192.0.2.2 192.0.2.254}]"},
		{"192.0.2.0/24", "192.0.2.254", "[{192.0.2.1 192.0.2.253}]"},
		{"192.0.2.0/24", "192.0.2.100", "[{192.0.2.1 192.0.2.99} {192.0.2.101 192.0.2.254}]"},
		{"10.0.0.0/8", "10.0.0.1", "[{10.0.0.2 10.255.255.254}]"},
		{"2001:db8::/64", "2001:db8::1", "[]"},
	} {
		p, g := netip.MustParsePrefix(c.cidr), netip.MustParseAddr(c.gateway)
		if got := fmt.Sprint(DefaultPools(p, g)); got != c.want {
			t.Errorf("DefaultPools(%s, %s) = %s, want %s", c.cidr, c.gateway, got, c.want)
		}
	}
}

func TestCheckPool(t *testing.T) {
	t.Parallel()

	p, gw := netip.MustParsePrefix("192.0.2.0/24"), netip.MustParseAddr("192.0.2.1")

	for _, c := range []struct{ start, end, want string }{
		{"192.0.2.2", "192.0.2.254", ""},
		{"192.0.2.0", "192.0.2.10", "not inside the subnet"},   // the network address
		{"192.0.2.10", "192.0.2.255", "not inside the subnet"}, // the broadcast address
		{"192.0.2.200", "192.0.3.1", "not inside the subnet"},
		{"192.0.2.1", "192.0.2.10", "contains the gateway 192.0.2.1"},
		{"192.0.2.20", "192.0.2.10", "start is after end"},
		{"2001:db8::1", "2001:db8::2", "not of the family"},
	} {
		err := CheckPool(p, gw, netip.MustParseAddr(c.start), netip.MustParseAddr(c.end))
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckPool(%s-%s) = %v, want %q", c.start, c.end, err, c.want)
		}
	}

	if err := CheckGateway(p, netip.MustParseAddr("192.0.2.255")); err == nil {
		t.Error("the broadcast address is accepted as gateway")
	}
}
