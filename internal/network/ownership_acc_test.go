package network_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/attributestags"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// The ownership rule of unikorn_network and unikorn_security_group against the real cloud
// (issue 26, item 5): a create adopts only what an interrupted create of its type left
// unfinished; another configuration's objects, and objects made by hand, are refused before
// any write, and the latter can be imported.

// existsPattern is the start of the refusal of a create that met the kind's object called
// neutronName, which says who holds it (says: e.g. "finished unikorn_network of another
// configuration") and how to import it: as a pattern that matches Terraform's wrapped output.
func existsPattern(kind, neutronName, says, typ string) string {
	return wrapped(fmt.Sprintf("a %s named %q already exists", kind, neutronName)) + `.*` + wrapped(says) + `.*` +
		wrapped("terraform import "+typ+".<address>")
}

// neutronMarkOf is the ownership mark of the network or security group id (of Neutron
// collection resourceType) in project, as the provider reads it.
func neutronMarkOf(t *testing.T, project, region, resourceType, id string) naming.Mark {
	t.Helper()

	ctx, sc := context.Background(), acctest.TenantNeutron(t, project, region)

	var (
		tags        []string
		description string
		err         error
	)

	switch resourceType {
	case network.TagNetworks:
		var n *networks.Network
		if n, err = networks.Get(ctx, sc, id).Extract(); err == nil {
			tags, description = n.Tags, n.Description
		}
	case network.TagSubnets:
		var s *subnets.Subnet
		if s, err = subnets.Get(ctx, sc, id).Extract(); err == nil {
			tags, description = s.Tags, s.Description
		}
	case network.TagRouters:
		var r *routers.Router
		if r, err = routers.Get(ctx, sc, id).Extract(); err == nil {
			tags, description = r.Tags, r.Description
		}
	case network.TagSecurityGroups:
		var g *groups.SecGroup
		if g, err = groups.Get(ctx, sc, id).Extract(); err == nil {
			tags, description = g.Tags, g.Description
		}
	}

	if err != nil {
		t.Fatalf("reading %s %s: %v", resourceType, id, err)
	}

	return naming.MarkOfNeutron(tags, description)
}

// checkMark checks that the object of the attribute of the resource at address carries want.
func checkMark(t *testing.T, address, attribute, resourceType string, want naming.Mark) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		if got := neutronMarkOf(t, a["identity_id"], a["region"], resourceType, a[attribute]); got != want {
			return fmt.Errorf("%s %s is %s, want %s", resourceType, a[attribute], got, want)
		}

		return nil
	})
}

// interrupted makes, directly through the cloud, what a create of this provider for typ leaves
// when it is killed after its POST (post: with the creation mark as its description and, unless
// postedOnly, tagged with it; never completed), and returns its ID.
func interrupted(t *testing.T, sc *gophercloud.ServiceClient, resourceType, typ string, postedOnly bool,
	post func(description string) (string, error),
) string {
	t.Helper()

	mark := naming.MadeFor(typ)

	id, err := post(mark.Description())
	if err != nil {
		t.Fatalf("creating the %s of an interrupted %s: %v", resourceType, typ, err)
	}

	if postedOnly {
		return id
	}

	for _, tag := range mark.Tags() {
		if err := attributestags.Add(context.Background(), sc, resourceType, id, tag).ExtractErr(); err != nil {
			t.Fatalf("tagging %s %s: %v", resourceType, id, err)
		}
	}

	return id
}

// markAsInterrupted tags the object id (of Neutron collection resourceType), made by hand, with
// the creation mark of typ: what a create of typ killed right after its POST leaves.
func markAsInterrupted(t *testing.T, project, region, resourceType, typ, id string) {
	t.Helper()

	sc := acctest.TenantNeutron(t, project, region)
	interrupted(t, sc, resourceType, typ, false, func(string) (string, error) { return id, nil })
}

// interruptedNetwork is the network network-<name> of a unikorn_network whose create was
// killed right after it posted it (no subnet, no router).
func interruptedNetwork(t *testing.T, project, region, name string, postedOnly bool) string {
	t.Helper()

	sc := acctest.TenantNeutron(t, project, region)

	return interrupted(t, sc, network.TagNetworks, network.TypeNetwork, postedOnly, func(description string) (string, error) {
		n, err := networks.Create(context.Background(), sc, networks.CreateOpts{Name: naming.Network(name), Description: description}).Extract()
		if err != nil {
			return "", err
		}

		return n.ID, nil
	})
}

// interruptedGroup is the group securitygroup-<name> of a unikorn_security_group whose create
// was killed before its rules were written.
func interruptedGroup(t *testing.T, project, region, name string, postedOnly bool) string {
	t.Helper()

	sc := acctest.TenantNeutron(t, project, region)

	return interrupted(t, sc, network.TagSecurityGroups, network.TypeSecurityGroup, postedOnly, func(description string) (string, error) {
		g, err := groups.Create(context.Background(), sc, groups.CreateOpts{Name: naming.SecurityGroup(name), Description: description}).Extract()
		if err != nil {
			return "", err
		}

		return g.ID, nil
	})
}

// neutronSnapshot is what the cloud holds of a network and a group of one name, to see that a
// refused create changed nothing.
type neutronSnapshot struct {
	NetworkIDs, SubnetCIDRs, RouterIDs, GroupIDs, Rules []string
	NetworkDescription                                  string
}

func snapshot(t *testing.T, project, region, name string) neutronSnapshot {
	t.Helper()

	ctx, sc := context.Background(), acctest.TenantNeutron(t, project, region)
	s := neutronSnapshot{NetworkIDs: acctest.NeutronNetworkIDs(t, project, region, naming.Network(name))}

	for _, id := range s.NetworkIDs {
		n, err := networks.Get(ctx, sc, id).Extract()
		if err != nil {
			t.Fatal(err)
		}

		s.NetworkDescription = n.Description

		subs, err := acctest.AllPages(ctx, subnets.List(sc, subnets.ListOpts{NetworkID: id}), subnets.ExtractSubnets)
		if err != nil {
			t.Fatal(err)
		}

		for _, sub := range subs {
			s.SubnetCIDRs = append(s.SubnetCIDRs, sub.Name+" "+sub.CIDR+" "+strings.Join(sub.DNSNameservers, ","))
		}
	}

	rs, err := acctest.AllPages(ctx, routers.List(sc, routers.ListOpts{ProjectID: project, Name: naming.Router(name)}), routers.ExtractRouters)
	if err != nil {
		t.Fatal(err)
	}

	for _, r := range naming.Exact(rs, naming.Router(name), func(r routers.Router) string { return r.Name }) {
		s.RouterIDs = append(s.RouterIDs, r.ID+" "+r.GatewayInfo.NetworkID)
	}

	s.GroupIDs = acctest.NeutronSecurityGroupIDs(t, project, region, naming.SecurityGroup(name))
	for _, id := range s.GroupIDs {
		for _, r := range acctest.NeutronSecurityGroupRules(t, project, region, id) {
			s.Rules = append(s.Rules, r.ID+" "+ruleText(r))
		}
	}

	slices.Sort(s.Rules)

	return s
}

// TestAccOwnership_secondConfiguration: configuration A (an identity with no application
// credential, a network, a group allowing port 22) is applied; then a second configuration's
// network and group of the same names, in A's identity, with another cidr, DNS servers and
// rules, are created beside it: both creates fail with the refusal that names the object and
// the import command, before any write, so that the cloud holds A's objects exactly as they
// were, and A's next plan is empty.
func TestAccOwnership_secondConfiguration(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	def := defaultRegion(t)

	configA := acctest.IdentityHCL("a", acctest.IdentityName(), "  application_credential = false\n") + fmt.Sprintf(`
resource "unikorn_network" "a" {
  identity_id = unikorn_identity.a.id
  name        = %[1]q
  cidr        = "10.60.0.0/24"
}

resource "unikorn_security_group" "a" {
  identity_id = unikorn_identity.a.id
  name        = %[1]q
  rules       = [{ direction = "ingress", protocol = "tcp", port = 22 }]
}
`, name)

	// The second configuration, here as other resource addresses with the same names: their
	// creates see nothing of A's state.
	configB := configA + fmt.Sprintf(`
resource "unikorn_network" "b" {
  identity_id     = unikorn_identity.a.id
  name            = %[1]q
  cidr            = "10.61.0.0/24"
  dns_nameservers = ["192.0.2.53"]
  description     = "configuration B"
}

resource "unikorn_security_group" "b" {
  identity_id = unikorn_identity.a.id
  name        = %[1]q
  rules       = [{ direction = "ingress", protocol = "tcp", port = 443, remote_ip_prefix = "10.0.0.0/8" }]
}
`, name)

	var (
		project string
		before  neutronSnapshot
	)

	// Both creates are refused, in whatever order Terraform reports them.
	net := existsPattern("network", naming.Network(name), "finished unikorn_network of another configuration", "unikorn_network")
	group := existsPattern("security group", naming.SecurityGroup(name), "finished unikorn_security_group of another configuration",
		"unikorn_security_group")
	refusals := regexp.MustCompile(fmt.Sprintf(`(?s)(%[1]s.*%[2]s|%[2]s.*%[1]s)`, net, group))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		// CheckIdentityDestroy finds any security group left in the identity's project (listing a
		// project's groups would make Neutron give the deleted project a default group again).
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(acctest.CheckNetworkDestroy(t), acctest.CheckIdentityDestroy(t)),
		Steps: []resource.TestStep{
			{
				Config: configA,
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID("unikorn_identity.a", &project),
					checkNeutronNetwork(t, "unikorn_network.a"),
					checkNeutronRules(t, "unikorn_security_group.a", nil, append([]string{"ingress IPv4 tcp 22-22 0.0.0.0/0"}, defaultEgress...)...),
					checkMark(t, "unikorn_network.a", "id", network.TagNetworks, naming.MadeFor(network.TypeNetwork).Done()),
					checkMark(t, "unikorn_network.a", "subnet_id", network.TagSubnets, naming.MadeFor(network.TypeNetwork)),
					checkMark(t, "unikorn_network.a", "router_id", network.TagRouters, naming.MadeFor(network.TypeNetwork)),
					checkMark(t, "unikorn_security_group.a", "id", network.TagSecurityGroups, naming.MadeFor(network.TypeSecurityGroup).Done()),
					func(*terraform.State) error {
						before = snapshot(t, project, def, name)
						return nil
					},
				),
			},
			{
				Config:      configB,
				ExpectError: refusals,
			},
			{
				Config: configA,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkNeutronNetwork(t, "unikorn_network.a"),
					checkNeutronRules(t, "unikorn_security_group.a", nil, append([]string{"ingress IPv4 tcp 22-22 0.0.0.0/0"}, defaultEgress...)...),
					func(*terraform.State) error {
						if after := snapshot(t, project, def, name); fmt.Sprint(after) != fmt.Sprint(before) {
							return fmt.Errorf("the refused creates changed the cloud:\nbefore %+v\nafter  %+v", before, after)
						}

						return nil
					},
				),
			},
		},
	})
}

// TestAccOwnership_interruptedCreateAdopted: a network and a group that creates of this provider
// left behind when they were killed right after their POST (the network tagged with the creation
// mark; the group only posted, its description still the mark, with a rule of its own) are
// adopted by the next apply of a configuration that makes them: the same IDs, the network's
// subnet, router and interface made, the group's rules reconciled, both with the user's
// description and the completion mark.
func TestAccOwnership_interruptedCreateAdopted(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

	net := interruptedNetwork(t, project, def, name, false)
	group := interruptedGroup(t, project, def, name, true)
	acctest.NeutronAddSecurityGroupRule(t, project, def, rules.CreateOpts{
		SecGroupID: group, Direction: rules.DirIngress, EtherType: rules.EtherType4, Protocol: rules.ProtocolUDP,
		PortRangeMin: 9999, PortRangeMax: 9999,
	})

	config := networkConfig(project, name, `cidr = "10.62.0.0/24"
  description = "adopted"`) + groupConfig(project, name, `rules = [{ direction = "ingress", protocol = "tcp", port = 22 }]
  description = "adopted"`)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckNetworkDestroy(t), acctest.CheckSecurityGroupDestroy(t)),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(networkAddress, tfjsonpath.New("id"), knownvalue.StringExact(net)),
					statecheck.ExpectKnownValue(groupAddress, tfjsonpath.New("id"), knownvalue.StringExact(group)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkNeutronNetwork(t, networkAddress),
					checkNeutronRules(t, groupAddress, nil, append([]string{"ingress IPv4 tcp 22-22 0.0.0.0/0"}, defaultEgress...)...),
					checkMark(t, networkAddress, "id", network.TagNetworks, naming.MadeFor(network.TypeNetwork).Done()),
					checkMark(t, networkAddress, "subnet_id", network.TagSubnets, naming.MadeFor(network.TypeNetwork)),
					checkMark(t, groupAddress, "id", network.TagSecurityGroups, naming.MadeFor(network.TypeSecurityGroup).Done()),
					resource.TestCheckResourceAttr(groupAddress, "description", "adopted"),
				),
			},
			{
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// handMadeNetwork makes, directly through the cloud, a whole network called network-<name> as a
// person would: network, subnet on cidr, router on the public network and its interface; none
// carries a mark. It returns the network's ID.
func handMadeNetwork(t *testing.T, project, region, name, cidr string) string {
	t.Helper()

	ctx, sc := context.Background(), acctest.TenantNeutron(t, project, region)
	neutronName := naming.Network(name)

	n, err := networks.Create(ctx, sc, networks.CreateOpts{Name: neutronName}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	sub, err := subnets.Create(ctx, sc, subnets.CreateOpts{Name: neutronName, NetworkID: n.ID, IPVersion: 4, CIDR: cidr}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	r, err := routers.Create(ctx, sc, routers.CreateOpts{
		Name: neutronName, GatewayInfo: &routers.GatewayInfo{NetworkID: acctest.PublicNetworkID(t, region)},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := routers.AddInterface(ctx, sc, r.ID, routers.AddInterfaceOpts{SubnetID: sub.ID}).Extract(); err != nil {
		t.Fatal(err)
	}

	return n.ID
}

// TestAccOwnership_handMadeRefusedThenImported: a network made by hand is refused by a create
// (the refusal says how to import it, and nothing is written); once imported, the configuration
// manages it (an empty plan after the import's apply) and never marks it.
func TestAccOwnership_handMadeRefusedThenImported(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def := defaultRegion(t)

	net := handMadeNetwork(t, project, def, name, "10.63.0.0/24")
	config := networkConfig(project, name, `cidr = "10.63.0.0/24"`)

	var before neutronSnapshot

	// An imported network is never marked: not by the apply that converges it either.
	unmarked := resource.ComposeAggregateTestCheckFunc(
		checkMark(t, networkAddress, "id", network.TagNetworks, naming.Mark{}),
		checkMark(t, networkAddress, "subnet_id", network.TagSubnets, naming.Mark{}),
		checkMark(t, networkAddress, "router_id", network.TagRouters, naming.Mark{}),
	)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckNetworkDestroy(t),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { before = snapshot(t, project, def, name) },
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)` + existsPattern("network", naming.Network(name), "this provider did not make it", "unikorn_network") + `.*` + regexp.QuoteMeta(def+"/"+net)),
			},
			{
				PreConfig: func() {
					if after := snapshot(t, project, def, name); fmt.Sprint(after) != fmt.Sprint(before) {
						t.Fatalf("the refused create changed the cloud:\nbefore %+v\nafter  %+v", before, after)
					}
				},
				Config:             config,
				ResourceName:       networkAddress,
				ImportState:        true,
				ImportStateId:      def + "/" + net,
				ImportStatePersist: true,
			},
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(networkAddress, "id", net),
					checkNeutronNetwork(t, networkAddress),
					unmarked,
				),
			},
			{
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}
