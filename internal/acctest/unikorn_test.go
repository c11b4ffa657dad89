package acctest

import (
	"fmt"
	"testing"
)

// The Unikorn fixtures' own arithmetic, against values worked out apart from this code: the
// pools Unikorn's network code computes, Python's uuid5, the tag examples of Unikorn's server code.

func TestUnikornAddressing(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		gen                       UnikornGeneration
		cidr, gateway, start, end string
		err                       bool
	}{
		{UnikornV110, "192.168.0.0/24", "192.168.0.1", "192.168.0.2", "192.168.0.127", false},
		{UnikornV116, "192.168.0.0/24", "192.168.0.1", "192.168.0.128", "192.168.0.254", false},
		{UnikornV117, "192.168.0.0/24", "192.168.0.1", "192.168.0.128", "192.168.0.254", false},
		{UnikornV110, "10.0.0.0/16", "10.0.0.1", "10.0.0.2", "10.0.255.127", false},
		{UnikornV116, "10.0.0.0/16", "10.0.0.1", "10.0.0.128", "10.0.255.254", false},
		{UnikornV117, "10.0.0.0/16", "10.0.0.1", "10.0.0.128", "10.0.255.254", false},
		{UnikornV110, "10.1.2.0/23", "10.1.2.1", "10.1.2.2", "10.1.3.127", false},
		{UnikornV117, "10.1.2.0/23", "10.1.2.1", "10.1.2.128", "10.1.3.254", false},
		{UnikornV117, "10.0.0.0/25", "", "", "", true}, // the /25 reservation must be longer
		{UnikornV116, "10.0.0.0/26", "", "", "", true}, // a pool that ends before it starts
		{UnikornV116, "10.0.0.1/24", "", "", "", true}, // not a base address
		{UnikornV116, "fd00::/64", "", "", "", true},   // not IPv4
		{UnikornGeneration{"x", "v9"}, "10.0.0.0/24", "", "", "", true},
	} {
		t.Run(tc.gen.Name+" "+tc.cidr, func(t *testing.T) {
			t.Parallel()

			gateway, start, end, err := tc.gen.addressing(tc.cidr)
			if (err != nil) != tc.err || gateway != tc.gateway || start != tc.start || end != tc.end {
				t.Errorf("got %s, %s … %s (%v), want %s, %s … %s (error %v)", gateway, start, end, err, tc.gateway, tc.start, tc.end, tc.err)
			}
		})
	}
}

func TestUnikornDeterministicID(t *testing.T) {
	t.Parallel()

	dns, err := parseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if err != nil {
		t.Fatal(err)
	}

	// Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org").
	if got := formatUUID(uuid5(dns, []byte("python.org"))); got != "886313e1-3b8a-5372-9b90-0c9aee199e5d" {
		t.Errorf("uuid5 = %s", got)
	}

	for _, tc := range []struct{ namespace, name, want string }{
		// Starts with a digit: re-hashed over the previous UUID's bytes four times.
		{"6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org", "d60badf0-7daf-5b55-8a9b-5d09d264ad34"},
		// Starts with a letter at once.
		{"b3f3c3a4-1111-4222-8333-444455556666", "web-1", "a3c030e5-9882-5f59-b657-317e32e46dbf"},
	} {
		if got, err := unikornDeterministicID(tc.namespace, tc.name); err != nil || got != tc.want {
			t.Errorf("unikornDeterministicID(%s, %s) = %s (%v), want %s", tc.namespace, tc.name, got, err, tc.want)
		}
	}

	if _, err := unikornDeterministicID("not-a-uuid", "x"); err == nil {
		t.Error("a namespace that is no UUID is taken")
	}
}

func TestUnikornServerMetadata(t *testing.T) {
	t.Parallel()

	tags := map[string]string{
		"compute.unikorn-cloud.org/cluster-id": "c1",
		"my-svc.example.com/node-pool-name":    "np",
		"region.unikorn-cloud.org/server-id":   "overwritten",
		"env":                                  "dropped",
		"Foo.example.com/x":                    "dropped",
		"a.b/c/d":                              "dropped",
		"foo/bar":                              "dropped",
	}
	legacy := "map[organizationID:o projectID:p regionID:r serverID:s]"

	if got := fmt.Sprint(UnikornV110.serverMetadata("s", "o", "p", "r", tags)); got != legacy {
		t.Errorf("v1.10 metadata %s, want %s", got, legacy)
	}

	want := "map[compute:cluster_id:c1 identity:organization_id:o identity:project_id:p my-svc:node_pool_name:np " +
		"organizationID:o projectID:p region:region_id:r region:server_id:s regionID:r serverID:s]"

	for _, gen := range []UnikornGeneration{UnikornV116, UnikornV117} {
		if got := fmt.Sprint(gen.serverMetadata("s", "o", "p", "r", tags)); got != want {
			t.Errorf("%s metadata %s, want %s", gen.Name, got, want)
		}
	}
}

func TestUnikornRuleKey(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		gen                UnikornGeneration
		dir, proto, prefix string
		want               string
	}{
		{UnikornV110, "egress", "", "", "egress,,0-0,"},
		{UnikornV116, "egress", "", "", "egress,any,0-0,0.0.0.0/0"},
		{UnikornV117, "ingress", "tcp", "10.0.0.0/8", "ingress,tcp,0-0,10.0.0.0/8"},
	} {
		if got := tc.gen.ruleKey(tc.dir, tc.proto, 0, 0, tc.prefix); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.gen.Name, got, tc.want)
		}
	}

	if _, err := UnikornV110.ruleProtocol(UnikornRule{Direction: "ingress", Protocol: "any"}); err == nil {
		t.Error("v1.10 takes a rule of protocol any")
	}

	if p, err := UnikornV117.ruleProtocol(UnikornRule{Direction: "ingress", Protocol: "any"}); err != nil || p != "" {
		t.Errorf("v1.17 sends any as %q (%v), want no protocol", p, err)
	}
}
