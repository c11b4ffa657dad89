package network

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseCIDR(t *testing.T) {
	t.Parallel()

	for _, ok := range []string{"10.0.0.0/24", "192.168.0.0/16", "10.0.0.8/29", "10.0.0.0/8"} {
		if _, err := ParseCIDR(ok); err != nil {
			t.Errorf("ParseCIDR(%q): %v", ok, err)
		}
	}

	for bad, why := range map[string]string{
		"10.0.0.1/24":   "did you mean 10.0.0.0/24",
		"10.0.0.0/30":   "between 1 and 29",
		"2001:db8::/64": "not an IPv4 prefix",
		"10.0.0.0":      "not a CIDR",
		"0.0.0.0/0":     "between 1 and 29",
	} {
		_, err := ParseCIDR(bad)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseCIDR(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
}

func TestPlanAddressing(t *testing.T) {
	t.Parallel()

	tests := []struct {
		cidr, pool        string // pool "" = default
		gateway, wantPool string
		static            string // "" = none
		err               string
	}{
		{cidr: "192.168.0.0/24", gateway: "192.168.0.1", wantPool: "192.168.0.128-192.168.0.254", static: "192.168.0.2-192.168.0.127"},
		// Unikorn's layout (v1.11.0 on; v1.17's default): the first /25 is reserved, whatever the size.
		{cidr: "10.0.0.0/16", gateway: "10.0.0.1", wantPool: "10.0.0.128-10.0.255.254", static: "10.0.0.2-10.0.0.127"},
		{cidr: "10.0.0.0/8", gateway: "10.0.0.1", wantPool: "10.0.0.128-10.255.255.254", static: "10.0.0.2-10.0.0.127"},
		{cidr: "10.0.2.0/23", gateway: "10.0.2.1", wantPool: "10.0.2.128-10.0.3.254", static: "10.0.2.2-10.0.2.127"},
		// Too small for the /25 reservation: the upper half, as before.
		{cidr: "10.0.0.0/25", gateway: "10.0.0.1", wantPool: "10.0.0.64-10.0.0.126", static: "10.0.0.2-10.0.0.63"},
		{cidr: "10.0.0.0/26", gateway: "10.0.0.1", wantPool: "10.0.0.32-10.0.0.62", static: "10.0.0.2-10.0.0.31"},
		{cidr: "10.0.0.8/29", gateway: "10.0.0.9", wantPool: "10.0.0.12-10.0.0.14", static: "10.0.0.10-10.0.0.11"},
		{cidr: "192.168.0.0/24", pool: "192.168.0.2-192.168.0.200", gateway: "192.168.0.1", wantPool: "192.168.0.2-192.168.0.200"},
		{cidr: "192.168.0.0/24", pool: "192.168.0.100-192.168.0.254", gateway: "192.168.0.1",
			wantPool: "192.168.0.100-192.168.0.254", static: "192.168.0.2-192.168.0.99"},
		{cidr: "192.168.0.0/24", pool: "192.168.0.1-192.168.0.10", err: "after the gateway"},
		{cidr: "192.168.0.0/24", pool: "192.168.0.10-192.168.0.255", err: "before the broadcast"},
		{cidr: "192.168.0.0/24", pool: "192.168.0.20-192.168.0.10", err: "start is after end"},
		{cidr: "192.168.0.0/24", pool: "192.168.1.2-192.168.1.10", err: "not inside"},
	}

	for _, tt := range tests {
		var pool *AddressRange

		if tt.pool != "" {
			s, e, _ := strings.Cut(tt.pool, "-")

			r, err := ParseRange(s, e)
			if err != nil {
				t.Fatal(err)
			}

			pool = &r
		}

		a, err := PlanAddressing(netip.MustParsePrefix(tt.cidr), pool)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s pool %s: err = %v, want %q", tt.cidr, tt.pool, err, tt.err)
			}

			continue
		}

		if err != nil {
			t.Errorf("%s pool %s: %v", tt.cidr, tt.pool, err)
			continue
		}

		static := ""
		if a.Static != nil {
			static = a.Static.String()
		}

		if a.Gateway.String() != tt.gateway || a.Pool.String() != tt.wantPool || static != tt.static {
			t.Errorf("%s pool %s: gateway %s pool %s static %q, want %s %s %q",
				tt.cidr, tt.pool, a.Gateway, a.Pool, static, tt.gateway, tt.wantPool, tt.static)
		}
	}
}
