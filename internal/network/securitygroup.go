package network

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	secrules "github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// neutronRule is a Neutron security group rule; gophercloud reads an absent protocol, port
// or remote as the zero value (no port of a rule is 0: ports need a protocol).
type neutronRule = secrules.SecGroupRule

// Rule directions and protocols of the schema.
const (
	DirectionIngress = "ingress"
	DirectionEgress  = "egress"

	ProtocolAny  = "any"
	ProtocolICMP = "icmp"
	ProtocolTCP  = "tcp"
	ProtocolUDP  = "udp"
	ProtocolVRRP = "vrrp"

	etherTypeIPv4 = "IPv4"
	etherTypeIPv6 = "IPv6"
)

// Directions and Protocols are the values a rule may take.
var (
	Directions = []string{DirectionIngress, DirectionEgress}
	Protocols  = []string{ProtocolAny, ProtocolICMP, ProtocolTCP, ProtocolUDP, ProtocolVRRP}
)

// ProtocolHasPorts tells whether rules of protocol may name ports.
func ProtocolHasPorts(protocol string) bool {
	return protocol == ProtocolTCP || protocol == ProtocolUDP
}

// Rule is one security group rule in the provider's terms. PortMin and PortMax are 0 when the
// rule names no port. Rules read from Neutron also carry their ID, their ether type and any
// remote group (which the schema cannot express: such rules are always extra).
type Rule struct {
	Direction      string
	Protocol       string
	PortMin        int
	PortMax        int
	RemoteIPPrefix string // "" only for a rule with a remote group
	Description    string

	ID                   string
	EtherType            string
	RemoteGroupID        string
	RemoteAddressGroupID string
	// NeutronDefault marks one of Neutron's default egress rules (no protocol, port or
	// remote of any kind), which reconciliation never deletes.
	NeutronDefault bool
}

// etherType is the ether type of the rule: its own when read from Neutron, else the family
// of its prefix.
func (r Rule) etherType() string {
	if r.EtherType != "" {
		return r.EtherType
	}

	if p, err := netip.ParsePrefix(r.RemoteIPPrefix); err == nil && p.Addr().Is6() {
		return etherTypeIPv6
	}

	return etherTypeIPv4
}

// RuleKey is what makes two rules the same rule. It follows Neutron's own notion of a
// duplicate (which ignores the description), plus the description, since a rule cannot be
// updated: a new description means a new rule. A wanted rule that gives no description
// matches an existing rule of any description (Matches).
type RuleKey struct {
	Direction, EtherType, Protocol string
	PortMin, PortMax               int
	// RemoteIPPrefix is "" for "anywhere": Neutron treats 0.0.0.0/0 and ::/0 as no prefix.
	RemoteIPPrefix                      string
	RemoteGroupID, RemoteAddressGroupID string
	Description                         string
}

// Key is the rule's identity in reconciliation.
func (r Rule) Key() RuleKey {
	k := r.keyWithoutDescription()
	k.Description = r.Description

	return k
}

func (r Rule) keyWithoutDescription() RuleKey {
	et := r.etherType()

	prefix := r.RemoteIPPrefix
	if p, err := netip.ParsePrefix(prefix); err == nil {
		if p.Bits() == 0 {
			prefix = ""
		} else {
			prefix = p.Masked().String()
		}
	}

	proto := strings.ToLower(r.Protocol)

	switch {
	case proto == "":
		proto = ProtocolAny
	case et == etherTypeIPv6 && (proto == "ipv6-icmp" || proto == "icmpv6"):
		proto = ProtocolICMP
	}

	return RuleKey{
		Direction: r.Direction, EtherType: et, Protocol: proto,
		PortMin: r.PortMin, PortMax: r.PortMax,
		RemoteIPPrefix: prefix, RemoteGroupID: r.RemoteGroupID, RemoteAddressGroupID: r.RemoteAddressGroupID,
	}
}

// Matches tells whether the existing rule have is the wanted rule r: the same rule for Neutron
// (SameAsNeutron), with r's description when r gives one. A rule that gives none matches a rule
// of any description, as Unikorn's region service compares rules (by direction, protocol, ports
// and remote prefix only: provider.go:reconcileSecurityGroupRules), so that a rule it made
// ("unikorn managed security group rule") is kept, never deleted and re-made, by a
// configuration that does not describe it.
func (r Rule) Matches(have Rule) bool {
	return SameAsNeutron(r, have) && (r.Description == "" || r.Description == have.Description)
}

// SameAsNeutron tells whether Neutron would call a and b duplicates (it ignores descriptions).
func SameAsNeutron(a, b Rule) bool {
	return a.keyWithoutDescription() == b.keyWithoutDescription()
}

// IsDefaultEgress tells whether r has the form of the egress rules Neutron adds to every new
// security group (any protocol, no port, no remote). With an empty description it is what
// the configuration `{ direction = "egress", protocol = "any" }` to 0.0.0.0/0 or ::/0 means.
func (r Rule) IsDefaultEgress() bool {
	k := r.keyWithoutDescription()

	return k.Direction == DirectionEgress && k.Protocol == ProtocolAny && k.PortMin == 0 && k.PortMax == 0 &&
		k.RemoteIPPrefix == "" && k.RemoteGroupID == "" && k.RemoteAddressGroupID == ""
}

// ruleFromNeutron translates a Neutron rule.
func ruleFromNeutron(nr neutronRule) Rule {
	r := Rule{
		ID:                   nr.ID,
		Direction:            nr.Direction,
		EtherType:            nr.EtherType,
		Protocol:             ProtocolAny,
		PortMin:              nr.PortRangeMin,
		PortMax:              nr.PortRangeMax,
		Description:          nr.Description,
		RemoteGroupID:        nr.RemoteGroupID,
		RemoteAddressGroupID: nr.RemoteAddressGroupID,
		NeutronDefault:       isProtectedDefault(nr),
	}

	if nr.Protocol != "" {
		r.Protocol = nr.Protocol
		if nr.EtherType == etherTypeIPv6 && (r.Protocol == "ipv6-icmp" || r.Protocol == "icmpv6") {
			r.Protocol = ProtocolICMP
		}
	}

	switch {
	case nr.RemoteIPPrefix != "":
		r.RemoteIPPrefix = nr.RemoteIPPrefix
	case r.RemoteGroupID == "" && r.RemoteAddressGroupID == "":
		// No remote at all means anywhere of the rule's family.
		if nr.EtherType == etherTypeIPv6 {
			r.RemoteIPPrefix = "::/0"
		} else {
			r.RemoteIPPrefix = "0.0.0.0/0"
		}
	}

	return r
}

// isProtectedDefault tells whether a Neutron rule is one of Neutron's default egress rules
// (no protocol, ports or remote of any kind), which reconciliation never deletes.
func isProtectedDefault(nr neutronRule) bool {
	return nr.Direction == DirectionEgress && nr.Protocol == "" && nr.PortRangeMin == 0 && nr.PortRangeMax == 0 &&
		nr.RemoteIPPrefix == "" && nr.RemoteGroupID == "" && nr.RemoteAddressGroupID == ""
}

// createOpts is the create request of r in group.
func (r Rule) createOpts(group string) secrules.CreateOpts {
	opts := secrules.CreateOpts{
		SecGroupID:     group,
		Direction:      secrules.RuleDirection(r.Direction),
		EtherType:      secrules.RuleEtherType(r.etherType()),
		Description:    r.Description,
		PortRangeMin:   r.PortMin,
		PortRangeMax:   r.PortMax,
		RemoteIPPrefix: r.RemoteIPPrefix,
	}

	if r.Protocol != "" && r.Protocol != ProtocolAny {
		opts.Protocol = secrules.RuleProtocol(r.Protocol)
	}

	return opts
}

// rulePlan is the outcome of reconciling a group's rules with the wanted set.
type rulePlan struct {
	// Keep are the existing rules that stay: wanted ones and Neutron's default egress rules.
	Keep []neutronRule
	// Delete are the existing rules that are not wanted.
	Delete []neutronRule
	// Create are the wanted rules that do not exist.
	Create []Rule
}

// planRules reconciles existing with want: every existing rule that a wanted rule matches
// (Rule.Matches: a wanted rule without a description matches any description) is kept, every
// other existing rule is deleted except Neutron's default egress rules, and the wanted rules
// that match none are created.
func planRules(existing []neutronRule, want []Rule) rulePlan {
	have := make([]Rule, len(existing))
	for i, nr := range existing {
		have[i] = ruleFromNeutron(nr)
	}

	pair := pairRules(want, have)
	matched := make([]bool, len(existing))

	var plan rulePlan

	for i, j := range pair {
		if j < 0 {
			plan.Create = append(plan.Create, want[i])
		} else {
			matched[j] = true
		}
	}

	for j, nr := range existing {
		switch {
		case matched[j], isProtectedDefault(nr):
			plan.Keep = append(plan.Keep, nr)
		default:
			plan.Delete = append(plan.Delete, nr)
		}
	}

	return plan
}

// pairRules pairs every wanted rule with the existing rule it matches (Rule.Matches), each
// existing rule with one wanted rule at most: pair[i] is the index in have of want[i]'s, -1
// when it has none. A rule of the same description is taken first, so that a described rule
// never loses its rule to one that gives no description.
func pairRules(want, have []Rule) []int {
	pair := make([]int, len(want))
	taken := make([]bool, len(have))

	for i := range pair {
		pair[i] = -1
	}

	for _, exact := range []bool{true, false} {
		for i, w := range want {
			if pair[i] >= 0 {
				continue
			}

			for j, h := range have {
				if !taken[j] && w.Matches(h) && (!exact || w.Description == h.Description) {
					pair[i], taken[j] = j, true

					break
				}
			}
		}
	}

	return pair
}

// SecurityGroupSpec is what a unikorn_security_group asks for.
type SecurityGroupSpec struct {
	// Name is the user-given name; the group is securitygroup-<name>.
	Name string
	// Description is the group's; nil leaves the description it has as it is ("" on a group
	// that is made: describeTo).
	Description *string
	Rules       []Rule
}

// SecurityGroup is what Neutron holds of one unikorn_security_group.
type SecurityGroup struct {
	ID          string
	Name        string
	Description string
	ProjectID   string
	// Rules are all the group's rules, Neutron's default egress rules included.
	Rules []Rule
	// Refound says that the group was gone by its recorded ID and found again by name.
	Refound []Refound
}

func toSecurityGroup(g groups.SecGroup, rules []neutronRule) *SecurityGroup {
	out := &SecurityGroup{ID: g.ID, Name: g.Name, Description: userDescription(g.Description), ProjectID: g.ProjectID}
	for _, nr := range rules {
		out.Rules = append(out.Rules, ruleFromNeutron(nr))
	}

	return out
}

// ObserveSecurityGroup reads security group name (re-found by name when gone by ID, which
// SecurityGroup.Refound says, and only when the group found is an unfinished create of a
// unikorn_security_group: another is taken as gone); nil when it does not exist.
func (s *Service) ObserveSecurityGroup(ctx context.Context, name, knownID string) (*SecurityGroup, error) {
	var refound []Refound

	g, found, err := s.groupIn().owning(s.tenant, TypeSecurityGroup, "").observe(ctx, naming.SecurityGroup(name), knownID, &refound)
	if err != nil || !found {
		return nil, err
	}

	out := toSecurityGroup(g, g.Rules)
	out.Refound = refound

	return out, nil
}

// EnsureSecurityGroup makes security group spec.Name exist with exactly spec.Rules (besides
// Neutron's default egress rules): it finds the group (by knownID, then by exact name) with
// its rules in one request, or creates it with its creation mark; then deletes the extra rules
// one by one and creates the missing ones in one bulk request; the group of a create gets the
// completion mark last. A group found by name is adopted only when an interrupted create of a
// unikorn_security_group left it; anything else is refused with a *cloud.ExistsError before any
// write. It returns what exists even when it fails part way.
func (s *Service) EnsureSecurityGroup(ctx context.Context, spec SecurityGroupSpec, knownID string) (*SecurityGroup, error) {
	var refound []Refound

	out, err := s.ensureSecurityGroup(ctx, spec, knownID, &refound)
	if out != nil {
		out.Refound = refound
	}

	return out, err
}

func (s *Service) ensureSecurityGroup(ctx context.Context, spec SecurityGroupSpec, knownID string, refound *[]Refound) (*SecurityGroup, error) {
	name := naming.SecurityGroup(spec.Name)

	l := s.groupIn().owning(s.tenant, TypeSecurityGroup, "")

	g, found, err := l.ensureFind(ctx, name, knownID, refound)
	if err != nil {
		return nil, err
	}

	mark := l.mark(g)

	if !found {
		created, err := l.createMarked(ctx, s.sc, TagSecurityGroups, TypeSecurityGroup, name,
			func(ctx context.Context, description string) (groups.SecGroup, error) {
				return deref(groups.Create(ctx, s.sc, groups.CreateOpts{Name: name, Description: description}).Extract())
			},
			func(ctx context.Context, g groups.SecGroup) (groups.SecGroup, error) {
				return s.describeGroup(ctx, g, descriptionOf(spec.Description))
			})
		if err != nil {
			if created.ID == "" {
				return nil, fmt.Errorf("creating security group %s: %w", name, err)
			}

			// Made, then failed (or a twin that could not be removed): recorded, never orphaned.
			return toSecurityGroup(created, created.Rules), fmt.Errorf("creating security group %s: %w", name, err)
		}

		g, mark = created, naming.MadeFor(TypeSecurityGroup)
	} else if err := l.markPosted(ctx, s.sc, TagSecurityGroups, g); err != nil {
		return toSecurityGroup(g, g.Rules), fmt.Errorf("security group %s (%s): %w", name, g.ID, err)
	} else if description := describeTo(g.Description, spec.Description); description != nil {
		updated, err := s.describeGroup(ctx, g, *description)
		if err != nil {
			return toSecurityGroup(g, g.Rules), fmt.Errorf("updating the description of security group %s (%s): %w",
				name, g.ID, err)
		}

		g = updated
	}

	plan := planRules(g.Rules, spec.Rules)
	current := slices.Clone(plan.Keep)

	if len(plan.Delete) > 0 || len(plan.Create) > 0 {
		s.tenant.Wrote(kindSecurityGroup, g.ID) // the listing holds a group with its rules
	}

	// Deletions first: Neutron calls a rule that differs only in its description a
	// duplicate, so the old one must be gone before the new one is created.
	for i, nr := range plan.Delete {
		if err := apiError(secrules.Delete(ctx, s.sc, nr.ID).ExtractErr()); err != nil && !isNotFound(err) {
			return toSecurityGroup(g, append(current, plan.Delete[i:]...)),
				fmt.Errorf("deleting rule %s of security group %s (%s): %w", nr.ID, name, g.ID, err)
		}
	}

	created, err := s.createRules(ctx, g.ID, plan.Keep, plan.Create)
	current = append(current, created...)

	if err != nil {
		hint := ""
		if errorType(err) == "OverQuota" {
			hint = fmt.Sprintf(" (the group would hold %d rules: raise the project's Neutron security_group_rule quota)", len(current)+len(plan.Create))
		}

		return toSecurityGroup(g, current), fmt.Errorf("creating %d rules in security group %s (%s): %w%s", len(plan.Create), name, g.ID, err, hint)
	}

	tflog.Debug(ctx, "Reconciled the rules of a security group", map[string]any{
		"security_group_id": g.ID, "kept": len(plan.Keep), "deleted": len(plan.Delete), "created": len(plan.Create),
	})

	if err := l.complete(ctx, s.sc, TagSecurityGroups, TypeSecurityGroup, g.ID, mark); err != nil {
		return toSecurityGroup(g, current), err
	}

	return toSecurityGroup(g, current), nil
}

// describeGroup writes description on group g, keeping the rules g was read with when the
// answer does not list them.
func (s *Service) describeGroup(ctx context.Context, g groups.SecGroup, description string) (groups.SecGroup, error) {
	s.tenant.Wrote(kindSecurityGroup, g.ID)

	updated, err := groups.Update(ctx, s.sc, g.ID, groups.UpdateOpts{Description: &description}).Extract()
	if err != nil {
		return g, apiError(err)
	}

	if updated.Rules == nil {
		updated.Rules = g.Rules
	}

	return *updated, nil
}

// createRules creates rules in group with one bulk request (Neutron creates all or none),
// through cloud.Create: rules have no name, so an answer lost after Neutron acted is recovered
// by their fields, finding every rule asked for among the group's rules other than kept (the
// ones there before). Neutron refuses a rule that duplicates another, so no twin can be made.
func (s *Service) createRules(ctx context.Context, group string, kept []neutronRule, rules []Rule) ([]neutronRule, error) {
	if len(rules) == 0 {
		return nil, nil
	}

	opts := make([]secrules.CreateOpts, len(rules))
	for i, r := range rules {
		opts[i] = r.createOpts(group)
	}

	return cloud.Create(ctx, cloud.CreateSpec[[]neutronRule]{
		Kind: "security group rules",
		Name: fmt.Sprintf("%d rules of security group %s", len(rules), group),
		Create: func(ctx context.Context) ([]neutronRule, error) {
			created, err := secrules.CreateBulk(ctx, s.sc, opts).Extract()
			return created, apiError(err)
		},
		Find: func(ctx context.Context) ([][]neutronRule, error) {
			all, err := listAll(ctx, secrules.List(s.sc, secrules.ListOpts{SecGroupID: group}), secrules.ExtractRules)
			if err != nil {
				return nil, err
			}

			added := slices.DeleteFunc(all, func(nr neutronRule) bool {
				return slices.ContainsFunc(kept, func(k neutronRule) bool { return k.ID == nr.ID })
			})

			if p := planRules(added, rules); len(p.Create) == 0 {
				return [][]neutronRule{p.Keep}, nil
			}

			return nil, nil
		},
		ID: func(rs []neutronRule) string {
			ids := make([]string, len(rs))
			for i, r := range rs {
				ids[i] = r.ID
			}

			return strings.Join(ids, ",")
		},
	})
}

// DeleteSecurityGroup deletes security group name (its rules go with it). Already gone is
// success; a group still used by ports fails with an *InUseError that names them.
func (s *Service) DeleteSecurityGroup(ctx context.Context, name, knownID string) error {
	id := knownID
	if id == "" {
		found, err := s.groupIn().findID(ctx, naming.SecurityGroup(name))
		if err != nil || found == "" {
			return err
		}

		id = found
	}

	s.tenant.Wrote(kindSecurityGroup, id, naming.SecurityGroup(name))

	return s.deleteOrInUse(ctx, fmt.Sprintf("security group %s (%s)", naming.SecurityGroup(name), id),
		func() error { return groups.Delete(ctx, s.sc, id).ExtractErr() }, ports.ListOpts{SecurityGroups: []string{id}})
}
