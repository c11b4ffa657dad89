package network

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestOverlap(t *testing.T) {
	t.Parallel()

	subnets := []ExternalSubnet{
		{ID: "s1", NetworkID: "public", CIDR: netip.MustParsePrefix("203.0.113.0/24")},
		{ID: "s2", NetworkID: "other", CIDR: netip.MustParsePrefix("10.0.0.0/8")},
	}

	tests := []struct {
		cidr, external string
		want           string // the overlapped subnet; "" = none
	}{
		{"203.0.113.0/24", "public", "s1"},
		{"203.0.113.128/25", "public", "s1"},
		{"203.0.0.0/16", "public", "s1"},
		{"203.0.114.0/24", "public", ""},
		{"10.1.0.0/16", "public", ""}, // another external network's subnet does not count
		{"10.1.0.0/16", "other", "s2"},
		{"203.0.113.0/24", "unknown", ""},
	}

	for _, tt := range tests {
		t.Run(tt.cidr+" "+tt.external, func(t *testing.T) {
			t.Parallel()

			err := overlap(netip.MustParsePrefix(tt.cidr), tt.external, subnets)

			var o *OverlapError

			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("overlap = %v, want none", err)
			case tt.want != "" && (!errors.As(err, &o) || o.Subnet.ID != tt.want):
				t.Fatalf("overlap = %v, want one with %s", err, tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), "choose a prefix outside"):
				t.Fatalf("the error does not say what to do: %v", err)
			}
		})
	}
}

// withExternalSubnet adds the subnet cidr to external network ext.
func withExternalSubnet(f *fakeNeutron, ext, cidr string) {
	f.add(f.subnets, map[string]any{"name": "public-subnet", "network_id": ext, "cidr": cidr, "project_id": "admin"})
}

func TestEnsureNetwork_cidrOverlappingTheExternalNetworkMakesNothing(t *testing.T) {
	t.Parallel()

	for _, explicit := range []bool{false, true} {
		f, ext := externalFake()
		withExternalSubnet(f, ext, "192.168.0.0/16")

		spec := testSpec(t, "a") // 192.168.10.0/24
		if explicit {
			spec.ExternalNetworkID = ext
		}

		_, err := f.service(t, nil).EnsureNetwork(context.Background(), spec, Ref{})

		var o *OverlapError
		if !errors.As(err, &o) || o.ExternalNetworkID != ext || !strings.Contains(err.Error(), "192.168.0.0/16") {
			t.Fatalf("explicit %v: err = %v, want the overlap with 192.168.0.0/16", explicit, err)
		}

		if calls := f.calls(); count(calls, "POST") != 0 || count(calls, "PUT") != 0 {
			t.Fatalf("explicit %v: something was made before the check: %q", explicit, calls)
		}
	}
}

func TestCheckExternalOverlap_readsTheExternalNetworksOncePerRegion(t *testing.T) {
	t.Parallel()

	f, ext := externalFake()
	withExternalSubnet(f, ext, "203.0.113.0/24")

	cfg := NewConfig(ExternalNetworkSelector{}, nil)
	svc := f.service(t, cfg)
	ctx := context.Background()

	for _, cidr := range []string{"10.0.0.0/24", "10.0.1.0/24", "203.0.113.0/24"} {
		err := cfg.CheckExternalOverlap(ctx, svc.sc, "RegionOne", netip.MustParsePrefix(cidr), "")
		if (err != nil) != (cidr == "203.0.113.0/24") {
			t.Fatalf("%s: %v", cidr, err)
		}
	}

	if calls := f.calls(); len(calls) != 2 || calls[0] != "GET /networks" || calls[1] != "GET /subnets" {
		t.Fatalf("requests %q, want one listing of the external networks and one of their subnets", calls)
	}

	// A selector that admits nothing has no default, and says so.
	none := NewConfig(ExternalNetworkSelector{Tags: []string{"nothing"}}, nil)

	var noneErr *NoExternalNetworkError
	if err := none.CheckExternalOverlap(ctx, svc.sc, "RegionOne", netip.MustParsePrefix("10.0.0.0/24"), ""); !errors.As(err, &noneErr) {
		t.Fatalf("err = %v, want no external network", err)
	}
}

// networkConfigValue is a configuration of unikorn_network with cidr and routes (null when nil).
func networkConfigValue(t *testing.T, cidr string, routes map[string]string) tfsdk.Config {
	t.Helper()

	ctx := context.Background()

	var schemaResp resource.SchemaResponse

	(&networkResource{}).Schema(ctx, resource.SchemaRequest{}, &schemaResp)

	m := networkModel{
		AllocationPool:    types.ObjectNull(rangeAttrTypes),
		CIDR:              types.StringValue(cidr),
		Description:       types.StringNull(),
		DNSNameservers:    types.ListNull(types.StringType),
		ExternalNetworkID: types.StringNull(),
		GatewayIP:         types.StringNull(),
		RouterID:          types.StringNull(),
		Routes:            types.MapNull(types.StringType),
		StaticRange:       types.ObjectNull(rangeAttrTypes),
		SubnetID:          types.StringNull(),
		VLANID:            types.Int64Null(),
	}
	m.ID, m.IdentityID, m.Name, m.Region = types.StringNull(), types.StringValue("p"), types.StringValue("a"), types.StringNull()

	m.Timeouts.Object = types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType,
	})

	if routes != nil {
		elems := map[string]attr.Value{}
		for k, v := range routes {
			elems[k] = types.StringValue(v)
		}

		m.Routes = types.MapValueMust(types.StringType, elems)
	}

	plan := tfsdk.Plan{Schema: schemaResp.Schema}
	if diags := plan.Set(ctx, &m); diags.HasError() {
		t.Fatal(diags)
	}

	return tfsdk.Config(plan)
}

func TestValidateConfig_routesNextHopInsideTheCIDR(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		routes map[string]string
		bad    []string // the destinations reported
	}{
		{"inside", map[string]string{"10.1.0.0/16": "192.168.10.254", "10.2.0.0/16": "192.168.10.1"}, nil},
		{"outside", map[string]string{"10.1.0.0/16": "192.168.11.1", "10.2.0.0/16": "192.168.10.2"}, []string{"10.1.0.0/16"}},
		{"both outside", map[string]string{"10.1.0.0/16": "10.1.0.1", "10.2.0.0/16": "192.168.9.255"}, []string{"10.1.0.0/16", "10.2.0.0/16"}},
		{"not IPv4: the attribute validator's", map[string]string{"10.1.0.0/16": "2001:db8::1"}, nil},
		{"no routes", nil, nil},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			resp := &resource.ValidateConfigResponse{}
			(&networkResource{}).ValidateConfig(context.Background(),
				resource.ValidateConfigRequest{Config: networkConfigValue(t, "192.168.10.0/24", tt.routes)}, resp)

			if got := len(resp.Diagnostics.Errors()); got != len(tt.bad) {
				t.Fatalf("%d errors, want %d: %v", got, len(tt.bad), resp.Diagnostics)
			}

			for _, dest := range tt.bad {
				p := path.Root("routes").AtMapKey(dest)

				found := false
				for _, d := range resp.Diagnostics.Errors() {
					if pd, ok := d.(interface{ Path() path.Path }); ok && pd.Path().Equal(p) &&
						strings.Contains(d.Detail(), "not inside cidr 192.168.10.0/24") {
						found = true
					}
				}

				if !found {
					t.Errorf("no error at %s: %v", p, resp.Diagnostics)
				}
			}
		})
	}
}
