package network

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// What Unikorn's region service makes, as its code makes it (nscaledev/uni-region,
// pkg/providers/internal/openstack/network.go: CreateNetwork, CreateSubnet, CreateRouter,
// CreateSecurityGroup, CreateSecurityGroupRule), and what an import of it with a configuration
// that mirrors it does: nothing that rewrites it.

// unikornNetworkDescription is the description Unikorn gives its networks (its subnets and
// routers have none from v1.10 on).
const unikornNetworkDescription = "unikorn managed provider network"

// unikornRuleDescription is the description Unikorn gives every rule it makes.
const unikornRuleDescription = "unikorn managed security group rule"

// unikornNetwork stores network-<id> as Unikorn makes it in the fake: the network (described),
// its subnet with one pool start-end, the gateway at the prefix's first address and the given
// DNS servers, the router to the external network ext, and the router's interface. It returns
// the IDs.
func unikornNetwork(f *fakeNeutron, ext, id, cidr, gateway, start, end string, dns ...string) Ref {
	name := "network-" + id

	net := f.add(f.networks, map[string]any{"name": name, "description": unikornNetworkDescription, "subnets": []any{}})
	sub := f.add(f.subnets, map[string]any{
		"name": name, "network_id": net, "cidr": cidr, "ip_version": 4, "gateway_ip": gateway, "enable_dhcp": true,
		"allocation_pools": []any{map[string]any{"start": start, "end": end}},
		"dns_nameservers":  anyList(dns), "host_routes": []any{},
	})
	router := f.add(f.routers, map[string]any{"name": name, "external_gateway_info": map[string]any{"network_id": ext}})
	f.add(f.ports, map[string]any{
		"device_id": router, "device_owner": "network:router_interface", "network_id": net,
		"fixed_ips": []any{map[string]any{"subnet_id": sub, "ip_address": gateway}},
	})

	return Ref{NetworkID: net, SubnetID: sub, RouterID: router}
}

func anyList(s []string) []any {
	out := []any{}
	for _, v := range s {
		out = append(out, v)
	}

	return out
}

// mirroringSpec is the spec a configuration that mirrors the network of cidr makes once
// planned: no description (not managed), the pool the network has (kept: planAddressing), and
// the router's external network (kept in state).
func mirroringSpec(t *testing.T, id, cidr, start, end, ext string, dns ...string) Spec {
	t.Helper()

	prefix, err := ParseCIDR(cidr)
	if err != nil {
		t.Fatal(err)
	}

	pool, err := ParseRange(start, end)
	if err != nil {
		t.Fatal(err)
	}

	a, err := PlanAddressing(prefix, &pool)
	if err != nil {
		t.Fatal(err)
	}

	return Spec{Name: id, Addressing: a, DNSNameservers: dns, ExternalNetworkID: ext}
}

// TestEnsureNetwork_importedUnikornNetworkIsNotRewritten: applying a configuration that
// mirrors a Unikorn network (each generation's pool) writes nothing at all: not the pool, not the
// description of the network ("unikorn managed provider network"), subnet or router, not the
// router's gateway, and no mark. A DNS change the configuration asks for is the only field
// written.
func TestEnsureNetwork_importedUnikornNetworkIsNotRewritten(t *testing.T) {
	t.Parallel()

	generations := []struct {
		name, cidr, gateway, start, end string
	}{
		{"v1.10 (top /25 reserved)", "10.0.0.0/24", "10.0.0.1", "10.0.0.2", "10.0.0.127"},
		{"v1.10 /16", "10.1.0.0/16", "10.1.0.1", "10.1.0.2", "10.1.255.127"},
		{"v1.11 to v1.17+ (first /25 reserved)", "10.2.0.0/16", "10.2.0.1", "10.2.0.128", "10.2.255.254"},
	}

	for _, g := range generations {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()

			f, ext := externalFake()
			svc := f.service(t, nil)
			ctx := context.Background()

			id := "b5e0d4a6-8c1f-4f7e-9d2a-3c4b5a6d7e8f"
			ref := unikornNetwork(f, ext, id, g.cidr, g.gateway, g.start, g.end, "192.0.2.53")

			out, err := svc.EnsureNetwork(ctx, mirroringSpec(t, id, g.cidr, g.start, g.end, ext, "192.0.2.53"), ref)
			if err != nil {
				t.Fatal(err)
			}

			if writes := f.api.Writes(); len(writes) != 0 {
				t.Fatalf("a mirroring configuration wrote %q", writes)
			}

			if out.Ref() != ref || !out.Complete() || out.Description != unikornNetworkDescription ||
				out.Subnet.AllocationPools[0].String() != g.start+"-"+g.end || out.Router.ExternalNetworkID != ext {
				t.Fatalf("read back %+v (subnet %+v, router %+v)", out, out.Subnet, out.Router)
			}

			// DNS as configured: the one field written.
			f.calls()

			spec := mirroringSpec(t, id, g.cidr, g.start, g.end, ext, "192.0.2.54")
			if _, err := svc.EnsureNetwork(ctx, spec, ref); err != nil {
				t.Fatal(err)
			}

			if writes := f.api.Writes(); len(writes) != 1 || writes[0] != "PUT /v2.0/subnets/"+ref.SubnetID {
				t.Fatalf("writes %q, want the subnet's DNS only", writes)
			}

			if body := f.api.Last(t, "PUT /v2.0/subnets/"+ref.SubnetID).JSON(t, "subnet"); len(body) != 1 || body["dns_nameservers"] == nil {
				t.Fatalf("the subnet update sent %v, want dns_nameservers only", body)
			}

			if d := f.networks[ref.NetworkID]["description"]; d != unikornNetworkDescription {
				t.Fatalf("the network's description is now %q", d)
			}
		})
	}
}

// TestEnsureNetwork_descriptionSetIsWrittenUnsetIsKept: a configured description is written on
// the network, subnet and router; an unset one leaves whatever they have, and a new network's
// are empty.
func TestEnsureNetwork_descriptionSetIsWrittenUnsetIsKept(t *testing.T) {
	t.Parallel()

	f, _ := externalFake()
	svc := f.service(t, nil)
	ctx := context.Background()

	spec := testSpec(t, "a")
	spec.Description = nil

	made := mustEnsure(t, svc, spec)
	if made.Description != "" || made.Subnet.Description != "" || made.Router.Description != "" {
		t.Fatalf("a new network without a description: %q %q %q", made.Description, made.Subnet.Description, made.Router.Description)
	}

	spec.Description = new("mine")
	if _, err := svc.EnsureNetwork(ctx, spec, made.Ref()); err != nil {
		t.Fatal(err)
	}

	for _, store := range []map[string]map[string]any{f.networks, f.subnets, f.routers} {
		for id, obj := range store {
			if obj["name"] == "network-a" && obj["description"] != "mine" {
				t.Fatalf("%s has the description %q, want the configured one", id, obj["description"])
			}
		}
	}

	// Unset again: nothing is written.
	f.calls()

	spec.Description = nil
	if _, err := svc.EnsureNetwork(ctx, spec, made.Ref()); err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Fatalf("an unset description wrote %q", writes)
	}
}

// unikornGroup stores securitygroup-<id> as Unikorn makes it: no description, Neutron's two
// default egress rules, and the given rules, each described "unikorn managed security group
// rule", ether type IPv4, with no remote prefix when cidr is "" (Unikorn omits it). It returns
// the group's ID and the IDs of Unikorn's rules.
func unikornGroup(f *fakeNeutron, id string, rules ...map[string]any) (string, []string) {
	group := f.add(f.groups, map[string]any{"name": "securitygroup-" + id, "description": ""})

	for _, et := range []string{"IPv4", "IPv6"} {
		f.add(f.rules, map[string]any{
			"security_group_id": group, "direction": "egress", "ethertype": et, "protocol": nil,
			"port_range_min": nil, "port_range_max": nil, "remote_ip_prefix": nil, "remote_group_id": nil, "description": "",
		})
	}

	var ids []string

	for _, r := range rules {
		rule := map[string]any{
			"security_group_id": group, "ethertype": "IPv4", "description": unikornRuleDescription,
			"protocol": nil, "port_range_min": nil, "port_range_max": nil, "remote_ip_prefix": nil, "remote_group_id": nil,
		}
		for k, v := range r {
			rule[k] = v
		}

		ids = append(ids, f.add(f.rules, rule))
	}

	return group, ids
}

// unikornRules are the rules of a Unikorn group in every shape its API makes (v1.11.2 on: any
// protocol, icmp, optional port and CIDR), and the configuration that mirrors them (no
// description; remote_ip_prefix unset or 0.0.0.0/0 where Unikorn gave no CIDR).
func unikornRules() ([]map[string]any, []Rule) {
	neutron := []map[string]any{
		{"direction": "ingress", "protocol": "tcp", "port_range_min": 22, "port_range_max": 22, "remote_ip_prefix": "10.0.0.0/8"},
		{"direction": "ingress", "protocol": "tcp", "port_range_min": 443, "port_range_max": 443}, // no CIDR
		{"direction": "ingress", "protocol": "udp", "port_range_min": 30000, "port_range_max": 32767, "remote_ip_prefix": "0.0.0.0/0"},
		{"direction": "ingress", "protocol": "icmp"},                                    // no port, no CIDR
		{"direction": "ingress", "protocol": nil, "remote_ip_prefix": "192.168.0.0/16"}, // any
		{"direction": "egress", "protocol": "tcp", "port_range_min": 5432, "port_range_max": 5432, "remote_ip_prefix": "172.16.0.0/12"},
	}

	config := []Rule{
		{Direction: "ingress", Protocol: "tcp", PortMin: 22, PortMax: 22, RemoteIPPrefix: "10.0.0.0/8"},
		{Direction: "ingress", Protocol: "tcp", PortMin: 443, PortMax: 443, RemoteIPPrefix: "0.0.0.0/0"},
		{Direction: "ingress", Protocol: "udp", PortMin: 30000, PortMax: 32767, RemoteIPPrefix: "0.0.0.0/0"},
		{Direction: "ingress", Protocol: "icmp", RemoteIPPrefix: "0.0.0.0/0"},
		{Direction: "ingress", Protocol: "any", RemoteIPPrefix: "192.168.0.0/16"},
		{Direction: "egress", Protocol: "tcp", PortMin: 5432, PortMax: 5432, RemoteIPPrefix: "172.16.0.0/12"},
	}

	return neutron, config
}

// TestEnsureSecurityGroup_importedUnikornGroupKeepsItsRules: applying rules that mirror a
// Unikorn group's, without descriptions, deletes and re-makes none of them (their IDs stay), and
// leaves the group's description and Neutron's default egress rules alone. Adding a rule adds
// only that one.
func TestEnsureSecurityGroup_importedUnikornGroupKeepsItsRules(t *testing.T) {
	t.Parallel()

	f := newFakeNeutron()
	svc := f.service(t, nil)
	ctx := context.Background()

	neutron, config := unikornRules()
	group, ruleIDs := unikornGroup(f, "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f", neutron...)

	spec := SecurityGroupSpec{Name: "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f", Rules: config}

	out, err := svc.EnsureSecurityGroup(ctx, spec, group)
	if err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Fatalf("a mirroring configuration wrote %q", writes)
	}

	for _, id := range ruleIDs {
		if _, ok := f.rules[id]; !ok {
			t.Fatalf("Unikorn's rule %s is gone", id)
		}
	}

	if len(out.Rules) != len(ruleIDs)+2 {
		t.Fatalf("read back %d rules, want Unikorn's %d and Neutron's 2", len(out.Rules), len(ruleIDs))
	}

	// One more rule: that one is made, nothing else is touched.
	f.calls()

	spec.Rules = append(slices.Clone(config), Rule{Direction: "ingress", Protocol: "tcp", PortMin: 80, PortMax: 80, RemoteIPPrefix: "0.0.0.0/0"})
	if _, err := svc.EnsureSecurityGroup(ctx, spec, group); err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 1 || writes[0] != "POST /v2.0/security-group-rules" {
		t.Fatalf("adding a rule wrote %q, want one rule create", writes)
	}

	for _, id := range ruleIDs {
		if f.rules[id]["description"] != unikornRuleDescription {
			t.Fatalf("Unikorn's rule %s was re-made or changed: %v", id, f.rules[id])
		}
	}

	// A rule that gives a description wants that one: Unikorn's is replaced.
	f.calls()

	spec.Rules[0].Description = "ssh"
	if _, err := svc.EnsureSecurityGroup(ctx, spec, group); err != nil {
		t.Fatal(err)
	}

	if _, ok := f.rules[ruleIDs[0]]; ok || count(f.calls(), "DELETE /security-group-rules/") != 1 {
		t.Fatalf("the rule described otherwise was kept")
	}
}

// TestEnsureSecurityGroup_descriptionUnsetIsKept: a group whose description the configuration
// does not set keeps the one it has (a group made before Unikorn v1.10 and renamed by its
// upgrade says "unikorn managed security group"); a configured one is written.
func TestEnsureSecurityGroup_descriptionUnsetIsKept(t *testing.T) {
	t.Parallel()

	f := newFakeNeutron()
	svc := f.service(t, nil)
	ctx := context.Background()

	group, _ := unikornGroup(f, "old")
	f.groups[group]["description"] = "unikorn managed security group"

	if _, err := svc.EnsureSecurityGroup(ctx, SecurityGroupSpec{Name: "old"}, group); err != nil {
		t.Fatal(err)
	}

	if writes := f.api.Writes(); len(writes) != 0 {
		t.Fatalf("an unset description wrote %q", writes)
	}

	if _, err := svc.EnsureSecurityGroup(ctx, SecurityGroupSpec{Name: "old", Description: new("")}, group); err != nil {
		t.Fatal(err)
	}

	if d := f.groups[group]["description"]; d != "" {
		t.Fatalf("a configured description was not written: %q", d)
	}
}

// TestFlattenRules_undescribedRuleStandsForAnyDescription: a rule read back with Unikorn's
// description is written in the form the configuration (prior) gives it, with no description,
// so that a refresh shows no change; a rule the configuration describes otherwise is read as it
// is.
func TestFlattenRules_undescribedRuleStandsForAnyDescription(t *testing.T) {
	t.Parallel()

	mirror := Rule{Direction: "ingress", Protocol: "tcp", PortMin: 22, PortMax: 22, RemoteIPPrefix: "0.0.0.0/0"}
	prior := types.SetValueMust(ruleType, []attr.Value{ruleObject(mirror)})

	read := mirror
	read.Description, read.EtherType, read.ID = unikornRuleDescription, "IPv4", "r1"

	got := flattenRules([]Rule{read}, prior)
	if !got.Equal(prior) {
		t.Fatalf("flattened %v, want the configuration's form %v", got, prior)
	}

	described := mirror
	described.Description = "ssh"

	got = flattenRules([]Rule{read}, types.SetValueMust(ruleType, []attr.Value{ruleObject(described)}))
	if want := types.SetValueMust(ruleType, []attr.Value{ruleObject(read)}); !got.Equal(want) {
		t.Fatalf("flattened %v, want the rule as read %v", got, want)
	}
}

// TestPlanRules_unikornsComparison: a wanted rule without a description matches an existing rule
// of any description, and an unset remote prefix (0.0.0.0/0) matches a rule without one, as
// Unikorn compares rules; a described rule matches only its description, and is preferred.
func TestPlanRules_unikornsComparison(t *testing.T) {
	t.Parallel()

	nr := func(id, description, prefix string) neutronRule {
		return neutronRule{ID: id, Direction: "ingress", EtherType: "IPv4", Protocol: "tcp", PortRangeMin: 22,
			PortRangeMax: 22, RemoteIPPrefix: prefix, Description: description}
	}
	want := func(description string) Rule {
		return Rule{Direction: "ingress", Protocol: "tcp", PortMin: 22, PortMax: 22, RemoteIPPrefix: "0.0.0.0/0", Description: description}
	}

	tests := []struct {
		name           string
		existing       neutronRule
		want           Rule
		kept, replaced bool
	}{
		{"Unikorn's description, none wanted", nr("a", unikornRuleDescription, ""), want(""), true, false},
		{"no prefix against 0.0.0.0/0", nr("a", "", ""), want(""), true, false},
		{"0.0.0.0/0 against an unset prefix", nr("a", "", "0.0.0.0/0"), want(""), true, false},
		{"another description wanted", nr("a", unikornRuleDescription, ""), want("ssh"), false, true},
		{"the same description wanted", nr("a", "ssh", ""), want("ssh"), true, false},
	}

	for _, tt := range tests {
		p := planRules([]neutronRule{tt.existing}, []Rule{tt.want})

		if kept := len(p.Keep) == 1; kept != tt.kept || (len(p.Delete) == 1 && len(p.Create) == 1) != tt.replaced {
			t.Errorf("%s: plan %+v", tt.name, p)
		}
	}
}
