package acctest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
)

// UnikornRule is a rule of a Unikorn security group as its API takes it: Direction ingress or
// egress; Protocol tcp, udp, and from v1.11.2 any, icmp or vrrp; a port or port range (PortMin
// alone is one port; none from v1.11.2); CIDR the remote prefix (none from v1.11.2).
type UnikornRule struct {
	Direction, Protocol string
	PortMin, PortMax    int
	CIDR                string
}

// UnikornSecurityGroup is a security group as Unikorn's region service makes it:
// securitygroup-<ID>, no description, its rules described "unikorn managed security group rule".
// RuleIDs are the Neutron IDs of the rules asked, in the order asked.
type UnikornSecurityGroup struct {
	// ID is Unikorn's security group ID (the name after securitygroup-).
	ID, Region, GroupID string
	RuleIDs             []string

	// allRuleIDs are the IDs of every rule of the group once made (Neutron's default egress
	// rules included), sorted.
	allRuleIDs []string
}

// unikornRuleDescription is every rule's description (P/network.go:CreateSecurityGroupRule@v1.10.0,v1.16.7,v1.19.0).
const unikornRuleDescription = "unikorn managed security group rule"

// unikornSecurityGroupName is the group's name (P/network.go:securityGroupName@v1.10.0,v1.16.7,v1.19.0).
func unikornSecurityGroupName(id string) string { return "securitygroup-" + id }

// CreateSecurityGroup makes a security group with rules in region as Unikorn's
// P/provider.go:CreateSecurityGroup does (@v1.19.0; the same at v1.10.0 and v1.16.7), in the
// privileged scope: the group, then reconcileSecurityGroupRules against its default rules.
// Its cleanup deletes the group.
func (u UnikornIdentity) CreateSecurityGroup(t *testing.T, region string, want ...UnikornRule) UnikornSecurityGroup {
	t.Helper()

	ctx := context.Background()
	sg := UnikornSecurityGroup{ID: unikornResourceID(t), Region: region}
	name := unikornSecurityGroupName(sg.ID)

	t.Cleanup(func() { sg.delete(t) })

	// The region service user scoped to the project, built inline (P/provider.go:CreateSecurityGroup@v1.19.0).
	neutron := clientOf(t, "Neutron", region, u.privileged(t).Network)

	// The group: a name only (P/provider.go:reconcileSecurityGroup, P/network.go:CreateSecurityGroup@v1.19.0).
	g, err := groups.Create(ctx, neutron, groups.CreateOpts{Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn security group %s: %v", name, err)
	}

	sg.GroupID = g.ID

	// The rules (P/provider.go:reconcileSecurityGroupRules@v1.19.0): every rule reduces to a key
	// (securityGroupRuleID); rules whose key is not asked are deleted, asked keys missing are
	// created. The asked set holds the hidden key of Neutron's default egress rules, so those
	// stay (generateSecurityGroupRules).
	existing := map[string]string{} // key → rule ID

	for _, r := range u.groupRules(t, neutron, g.ID) {
		existing[u.Gen.ruleKey(r.Direction, r.Protocol, r.PortRangeMin, r.PortRangeMax, r.RemoteIPPrefix)] = r.ID
	}

	asked := map[string]bool{u.Gen.ruleKey("egress", "", 0, 0, ""): true}
	keys := make([]string, len(want))

	for i, r := range want {
		proto, err := u.Gen.ruleProtocol(r)
		if err != nil {
			t.Fatal(err)
		}

		keys[i] = u.Gen.ruleKey(r.Direction, proto, r.PortMin, r.portMax(), r.CIDR)
		asked[keys[i]] = true
	}

	for key, id := range existing {
		if asked[key] {
			continue
		}

		if err := rules.Delete(ctx, neutron, id).ExtractErr(); err != nil {
			t.Fatalf("deleting the rule %s (%s) of the Unikorn security group %s: %v", id, key, name, err)
		}
	}

	// Unikorn walks a map (any order); the fixture makes the rules in the order asked
	// (P/network.go:CreateSecurityGroupRule@v1.19.0: description, IPv4, the ports twice for one
	// port, no remote group).
	for i, r := range want {
		if id, ok := existing[keys[i]]; ok {
			sg.RuleIDs = append(sg.RuleIDs, id)
			continue
		}

		proto, _ := u.Gen.ruleProtocol(r)

		made, err := rules.Create(ctx, neutron, rules.CreateOpts{
			SecGroupID: g.ID, Description: unikornRuleDescription, Direction: rules.RuleDirection(r.Direction),
			EtherType: rules.EtherType4, Protocol: rules.RuleProtocol(proto), PortRangeMin: r.PortMin, PortRangeMax: r.portMax(),
			RemoteIPPrefix: r.CIDR,
		}).Extract()
		if err != nil {
			t.Fatalf("creating the rule %s of the Unikorn security group %s: %v", keys[i], name, err)
		}

		existing[keys[i]] = made.ID
		sg.RuleIDs = append(sg.RuleIDs, made.ID)
	}

	for _, r := range u.groupRules(t, neutron, g.ID) {
		sg.allRuleIDs = append(sg.allRuleIDs, r.ID)
	}

	slices.Sort(sg.allRuleIDs)

	return sg
}

// portMax is the rule's upper port: PortMin for one port (P/provider.go:securityGroupRulePortRange@v1.19.0).
func (r UnikornRule) portMax() int {
	if r.PortMax == 0 {
		return r.PortMin
	}

	return r.PortMax
}

// ruleProtocol is the Neutron protocol of rule r, once checked against what the generation's
// API takes: tcp and udp with a port and a prefix at v1.10.0 (its API schema); from v1.11.2 also
// any (sent as no protocol: P/provider.go:generateProtocol@v1.16.7,v1.19.0), icmp and vrrp.
func (g UnikornGeneration) ruleProtocol(r UnikornRule) (string, error) {
	if g.Tag == UnikornV110.Tag {
		if (r.Protocol != "tcp" && r.Protocol != "udp") || r.PortMin == 0 || r.CIDR == "" {
			return "", fmt.Errorf("the Unikorn API of %s takes only tcp and udp rules with a port and a prefix, not %+v", g.Tag, r)
		}

		return r.Protocol, nil
	}

	switch r.Protocol {
	case "any":
		return "", nil
	case "tcp", "udp", "icmp", "vrrp":
		return r.Protocol, nil
	}

	return "", fmt.Errorf("the Unikorn API of %s takes no rule protocol %q", g.Tag, r.Protocol)
}

// ruleKey is the generation's key of a Neutron rule (P/provider.go:securityGroupRuleID and
// securityGroupRuleIDFromOpenstackSecurityGroupRule): "direction,protocol,min-max,prefix". At
// v1.10.0 the protocol and prefix are Neutron's as they are; from v1.11.2 no protocol is "any"
// (convertProtocol), and from v1.13.3 no prefix is 0.0.0.0/0 (@v1.16.7,v1.19.0).
func (g UnikornGeneration) ruleKey(direction, protocol string, lo, hi int, prefix string) string {
	if g.Tag != UnikornV110.Tag {
		if protocol == "" {
			protocol = "any"
		}

		if prefix == "" {
			prefix = "0.0.0.0/0"
		}
	}

	return fmt.Sprintf("%s,%s,%d-%d,%s", direction, protocol, lo, hi, prefix)
}

// groupRules lists the rules of group id (P/network.go:ListSecurityGroupRules@v1.19.0).
func (u UnikornIdentity) groupRules(t *testing.T, neutron *gophercloud.ServiceClient, id string) []rules.SecGroupRule {
	t.Helper()

	all, err := AllPages(context.Background(), rules.List(neutron, rules.ListOpts{SecGroupID: id}), rules.ExtractRules)
	if err != nil {
		t.Fatalf("listing the rules of the Unikorn security group %s: %v", id, err)
	}

	return all
}

// delete deletes the group, as an admin (P/provider.go:DeleteSecurityGroup@v1.19.0); a group
// still in use (a test's port) is left to the identity's cleanup.
func (sg UnikornSecurityGroup) delete(t *testing.T) {
	t.Helper()

	if sg.GroupID == "" {
		return
	}

	switch err := groups.Delete(context.Background(), AdminNeutron(t, sg.Region), sg.GroupID).ExtractErr(); {
	case err == nil, gophercloud.ResponseCodeIs(err, 404):
	case gophercloud.ResponseCodeIs(err, 409):
		t.Logf("the Unikorn security group %s is in use; the identity's cleanup removes it: %v", sg.GroupID, err)
	default:
		t.Errorf("deleting the Unikorn security group %s: %v", sg.GroupID, err)
	}
}

// Unchanged checks, as an admin, that the group is as Unikorn made it: its name, no
// description, and exactly the rules it had (same IDs, Neutron's defaults included), the
// asked ones still described as Unikorn describes them.
func (sg UnikornSecurityGroup) Unchanged(t *testing.T) error {
	t.Helper()

	ctx := context.Background()
	neutron := AdminNeutron(t, sg.Region)

	g, err := groups.Get(ctx, neutron, sg.GroupID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn security group %s: %w", sg.GroupID, err)
	}

	if g.Name != unikornSecurityGroupName(sg.ID) || g.Description != "" {
		return fmt.Errorf("the Unikorn security group %s is %q (%q), want %q with no description", sg.GroupID, g.Name, g.Description,
			unikornSecurityGroupName(sg.ID))
	}

	all, err := AllPages(ctx, rules.List(neutron, rules.ListOpts{SecGroupID: sg.GroupID}), rules.ExtractRules)
	if err != nil {
		return fmt.Errorf("the rules of the Unikorn security group %s: %w", sg.GroupID, err)
	}

	ids := make([]string, 0, len(all))

	for _, r := range all {
		ids = append(ids, r.ID)

		if slices.Contains(sg.RuleIDs, r.ID) && r.Description != unikornRuleDescription {
			return fmt.Errorf("the rule %s of the Unikorn security group %s is described %q, want %q", r.ID, sg.GroupID, r.Description, unikornRuleDescription)
		}
	}

	slices.Sort(ids)

	if !slices.Equal(ids, sg.allRuleIDs) {
		return fmt.Errorf("the rules of the Unikorn security group %s are %v, want %v", sg.GroupID, ids, sg.allRuleIDs)
	}

	return nil
}
