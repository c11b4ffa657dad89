package network

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func tcp(port int, prefix string) Rule {
	return Rule{Direction: DirectionIngress, Protocol: ProtocolTCP, PortMin: port, PortMax: port, RemoteIPPrefix: prefix}
}

// groupFake is an empty fake with a service on it.
func groupFake(t *testing.T) (*fakeNeutron, *Service, context.Context) {
	t.Helper()

	f := newFakeNeutron()

	return f, f.service(t, nil), context.Background()
}

// mustEnsureGroup is svc.EnsureSecurityGroup of spec, which must succeed.
func mustEnsureGroup(t *testing.T, svc *Service, spec SecurityGroupSpec, knownID string) *SecurityGroup {
	t.Helper()

	out, err := svc.EnsureSecurityGroup(context.Background(), spec, knownID)
	if err != nil {
		t.Fatal(err)
	}

	return out
}

// neutronRulesOf lists the rules of group in the fake.
func neutronRulesOf(f *fakeNeutron, group string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()

	var out []map[string]any

	for _, id := range slices.Sorted(maps.Keys(f.rules)) {
		if f.rules[id]["security_group_id"] == group {
			out = append(out, f.rules[id])
		}
	}

	return out
}

func TestEnsureSecurityGroup_createsMarkedInSevenRequests(t *testing.T) {
	t.Parallel()

	f, svc, _ := groupFake(t)

	var rules []Rule
	for port := 1000; port < 1500; port++ {
		rules = append(rules, tcp(port, "10.0.0.0/8"))
	}

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: rules}, "")

	want := []string{
		"GET /security-groups", "POST /security-groups", // described with the creation mark
		"GET /security-groups", // no twin made by a concurrent create
		"PUT /security-groups/" + out.ID + "/tags/" + naming.MarkPrefix + TypeSecurityGroup, // the creation mark as a tag
		"PUT /security-groups/" + out.ID, // its own description
		"POST /security-group-rules",
		"PUT /security-groups/" + out.ID + "/tags/" + naming.MarkCompletedTag, // the completion mark, last
	}
	if calls := f.calls(); !slices.Equal(calls, want) {
		t.Fatalf("requests:\n got %q\nwant %q", calls, want)
	}

	if tags := f.tagsOf(f.groups, out.ID); !slices.Equal(tags, []string{naming.MarkPrefix + TypeSecurityGroup, naming.MarkCompletedTag}) {
		t.Fatalf("tags %q", tags)
	}

	if d := f.groups[out.ID]["description"]; d != "" || out.Description != "" {
		t.Fatalf("description %q (read %q), want none", d, out.Description)
	}

	if out.Name != "securitygroup-web" || len(out.Rules) != 502 {
		t.Fatalf("group %q with %d rules, want 500 + 2 default egress", out.Name, len(out.Rules))
	}

	if got := len(neutronRulesOf(f, out.ID)); got != 502 {
		t.Fatalf("Neutron holds %d rules", got)
	}
}

func TestEnsureSecurityGroup_reconcilesAsASet(t *testing.T) {
	t.Parallel()

	f, svc, _ := groupFake(t)

	a, b, c := tcp(22, "10.0.0.0/8"), tcp(80, "0.0.0.0/0"), tcp(443, "0.0.0.0/0")

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: []Rule{a, b}}, "")

	before := neutronRulesOf(f, out.ID)
	f.calls()

	// Want b and c: one read, one delete (a), one bulk create (c); b and the default egress
	// rules are not touched.
	out = mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: []Rule{b, c}}, out.ID)

	calls := f.calls()
	if len(calls) != 3 || calls[0] != "GET /security-groups/"+out.ID || count(calls, "DELETE /security-group-rules/") != 1 ||
		calls[2] != "POST /security-group-rules" {
		t.Fatalf("requests: %q", calls)
	}

	after := neutronRulesOf(f, out.ID)
	if len(after) != 4 {
		t.Fatalf("%d rules, want b, c and the two default egress rules", len(after))
	}

	kept := 0

	for _, r := range before {
		for _, s := range after {
			if r["id"] == s["id"] {
				kept++
			}
		}
	}

	if kept != 3 {
		t.Fatalf("%d rules kept their IDs, want 3 (b and the defaults)", kept)
	}

	// Converged: a third ensure is a single read.
	mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: []Rule{c, b}}, out.ID)

	if calls := f.calls(); len(calls) != 1 {
		t.Fatalf("a converged group took requests %q", calls)
	}
}

func TestEnsureSecurityGroup_defaultEgressRulesAreNeverDeletedAndSatisfyEqualRules(t *testing.T) {
	t.Parallel()

	f, svc, _ := groupFake(t)

	allOut := Rule{Direction: DirectionEgress, Protocol: ProtocolAny, RemoteIPPrefix: "0.0.0.0/0"}

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g", Rules: []Rule{allOut}}, "")

	// The wanted rule is Neutron's default IPv4 egress rule: nothing to create (a POST would
	// be a 409 duplicate).
	if calls := f.calls(); count(calls, "POST /security-group-rules") != 0 {
		t.Fatalf("requests: %q", calls)
	}

	// Wanting no rules deletes nothing either.
	mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, out.ID)

	if calls := f.calls(); count(calls, "DELETE") != 0 || len(neutronRulesOf(f, out.ID)) != 2 {
		t.Fatalf("requests: %q", calls)
	}
}

func TestEnsureSecurityGroup_newDescriptionReplacesTheRule(t *testing.T) {
	t.Parallel()

	f, svc, _ := groupFake(t)

	r := tcp(22, "10.0.0.0/8")

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g", Rules: []Rule{r}}, "")

	r.Description = "ssh"

	// The fake, like Neutron, calls the new rule a duplicate of the old one unless the old
	// one is deleted first.
	mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g", Rules: []Rule{r}}, out.ID)

	rules := neutronRulesOf(f, out.ID)
	if len(rules) != 3 || !slices.ContainsFunc(rules, func(m map[string]any) bool { return m["description"] == "ssh" }) {
		t.Fatalf("rules: %v", rules)
	}
}

func TestEnsureSecurityGroup_nearMissAndDuplicateNames(t *testing.T) {
	t.Parallel()

	f := newFakeNeutron()
	ab := f.add(f.groups, map[string]any{"name": "securitygroup-ab"})
	svc := f.service(t, nil)
	ctx := context.Background()

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "a"}, "")

	if out.ID == ab {
		t.Fatal("securitygroup-a aliased securitygroup-ab")
	}

	if err := svc.DeleteSecurityGroup(ctx, "a", ""); err != nil {
		t.Fatal(err)
	}

	if _, ok := f.groups[ab]; !ok || len(f.groups) != 1 {
		t.Fatalf("groups after deleting a: %v", f.groups)
	}

	one := f.add(f.groups, map[string]any{"name": "securitygroup-a"})
	two := f.add(f.groups, map[string]any{"name": "securitygroup-a"})

	_, err := svc.EnsureSecurityGroup(ctx, SecurityGroupSpec{Name: "a"}, "")

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !strings.Contains(err.Error(), one) || !strings.Contains(err.Error(), two) {
		t.Fatalf("err = %v, want a duplicate error naming both", err)
	}
}

func TestDeleteSecurityGroup_reportsPortsInUse(t *testing.T) {
	t.Parallel()

	f, svc, ctx := groupFake(t)

	out := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "g"}, "")

	port := f.add(f.ports, map[string]any{
		"name": "server-web", "device_owner": "compute:nova", "device_id": "vm-1", "security_groups": []any{out.ID},
	})

	err := svc.DeleteSecurityGroup(ctx, "g", out.ID)

	var inUse *InUseError
	if !errors.As(err, &inUse) || !strings.Contains(err.Error(), "server-web") || !strings.Contains(err.Error(), "compute:nova") {
		t.Fatalf("err = %v, want an in-use error naming the port", err)
	}

	delete(f.ports, port)

	if err := svc.DeleteSecurityGroup(ctx, "g", out.ID); err != nil {
		t.Fatal(err)
	}

	if err := svc.DeleteSecurityGroup(ctx, "g", out.ID); err != nil {
		t.Fatalf("deleting a deleted group: %v", err)
	}
}

func TestRuleKeys(t *testing.T) {
	t.Parallel()

	defaultV4 := neutronRule{ID: "d4", Direction: "egress", EtherType: "IPv4"}
	defaultV6 := neutronRule{ID: "d6", Direction: "egress", EtherType: "IPv6"}

	if !ruleFromNeutron(defaultV4).NeutronDefault || !isProtectedDefault(defaultV6) {
		t.Fatal("default egress rules not recognised")
	}

	explicit := neutronRule{ID: "e", Direction: "egress", EtherType: "IPv4", RemoteIPPrefix: "0.0.0.0/0"}
	if isProtectedDefault(explicit) {
		t.Fatal("an explicit 0.0.0.0/0 rule is not Neutron's default")
	}

	want := Rule{Direction: DirectionEgress, Protocol: ProtocolAny, RemoteIPPrefix: "0.0.0.0/0"}
	if ruleFromNeutron(defaultV4).Key() != want.Key() || ruleFromNeutron(explicit).Key() != want.Key() {
		t.Fatal("0.0.0.0/0 and no prefix are different keys")
	}

	v6 := Rule{Direction: DirectionEgress, Protocol: ProtocolAny, RemoteIPPrefix: "::/0"}
	if ruleFromNeutron(defaultV6).Key() != v6.Key() || v6.Key() == want.Key() {
		t.Fatal("IPv6 default key")
	}

	icmp6 := neutronRule{Direction: "ingress", EtherType: "IPv6", Protocol: "ipv6-icmp", RemoteIPPrefix: "2001:db8::/32"}
	if ruleFromNeutron(icmp6).Key() != (Rule{Direction: "ingress", Protocol: "icmp", RemoteIPPrefix: "2001:db8::/32"}).Key() {
		t.Fatal("ipv6-icmp is icmp for IPv6")
	}

	group := neutronRule{Direction: "egress", EtherType: "IPv4", RemoteGroupID: "g1"}
	if ruleFromNeutron(group).Key() == want.Key() || isProtectedDefault(group) {
		t.Fatal("a remote-group rule is neither anywhere nor a default")
	}

	ssh := neutronRule{Direction: "ingress", EtherType: "IPv4", Protocol: "tcp", PortRangeMin: 22, PortRangeMax: 22,
		RemoteIPPrefix: "10.0.0.0/8", Description: "ssh"}
	if !SameAsNeutron(ruleFromNeutron(ssh), tcp(22, "10.0.0.0/8")) || ruleFromNeutron(ssh).Key() == tcp(22, "10.0.0.0/8").Key() {
		t.Fatal("descriptions: same for Neutron, different for reconciliation")
	}
}

func TestPlanRules(t *testing.T) {
	t.Parallel()

	nr := func(id string, port int) neutronRule {
		return neutronRule{ID: id, Direction: "ingress", EtherType: "IPv4", Protocol: "tcp",
			PortRangeMin: port, PortRangeMax: port, RemoteIPPrefix: "10.0.0.0/8"}
	}

	existing := []neutronRule{
		{ID: "d4", Direction: "egress", EtherType: "IPv4"},
		{ID: "d6", Direction: "egress", EtherType: "IPv6"},
		nr("r22", 22), nr("r80", 80),
		{ID: "oob", Direction: "ingress", EtherType: "IPv4", RemoteGroupID: "other"},
	}

	plan := planRules(existing, []Rule{tcp(80, "10.0.0.0/8"), tcp(443, "10.0.0.0/8")})

	ids := func(rs []neutronRule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}

		slices.Sort(out)

		return out
	}

	if got := ids(plan.Keep); !slices.Equal(got, []string{"d4", "d6", "r80"}) {
		t.Errorf("keep %v", got)
	}

	if got := ids(plan.Delete); !slices.Equal(got, []string{"oob", "r22"}) {
		t.Errorf("delete %v", got)
	}

	if len(plan.Create) != 1 || plan.Create[0].PortMin != 443 {
		t.Errorf("create %v", plan.Create)
	}
}

func TestFlattenRules_keepsTheConfiguredFormAndShowsDrift(t *testing.T) {
	t.Parallel()

	// The configuration wrote port 80 as a range and 0.0.0.0/0 explicitly.
	rangeOf80 := rule("ingress", "tcp", 0, 80, 80, "0.0.0.0/0", "")
	prior := types.SetValueMust(ruleType, []attr.Value{rangeOf80})

	observed := []Rule{
		ruleFromNeutron(neutronRule{Direction: "egress", EtherType: "IPv4"}), // default: not in state
		ruleFromNeutron(neutronRule{Direction: "ingress", EtherType: "IPv4", Protocol: "tcp",
			PortRangeMin: 80, PortRangeMax: 80, RemoteIPPrefix: "0.0.0.0/0"}),
		ruleFromNeutron(neutronRule{Direction: "ingress", EtherType: "IPv6", Protocol: "udp", // out of band
			PortRangeMin: 5000, PortRangeMax: 5010, RemoteIPPrefix: "2001:db8::/32", Description: "oob"}),
		ruleFromNeutron(neutronRule{Direction: "ingress", EtherType: "IPv4", RemoteGroupID: "g1"}), // out of band
	}

	got := flattenRules(observed, prior)

	want := types.SetValueMust(ruleType, []attr.Value{
		rangeOf80,
		rule("ingress", "udp", 0, 5000, 5010, "2001:db8::/32", "oob"),
		rule("ingress", "any", 0, 0, 0, "group:g1", ""),
	})

	if !got.Equal(want) {
		t.Fatalf("flattened:\n got %v\nwant %v", got, want)
	}

	// Without a prior form, a single port is `port` and 0.0.0.0/0 is the default (null).
	got = flattenRules(observed[:2], types.SetNull(ruleType))
	if want := types.SetValueMust(ruleType, []attr.Value{rule("ingress", "tcp", 80, 0, 0, "", "")}); !got.Equal(want) {
		t.Fatalf("canonical:\n got %v\nwant %v", got, want)
	}
}
