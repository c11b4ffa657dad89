package provider_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccUnikornFixtures checks the Unikorn fixtures (acctest.CreateUnikornIdentity and its
// Create* methods) against the cloud, per generation: an identity, a network, a security group
// with two rules, a server (with user tags from v1.16) and, from v1.16, a load balancer with one
// TCP listener with a health check and the server as member. It asserts, in the cloud and with
// Unikorn's strings spelled here (as acctest/unikorn.go cites them from uni-region), the names,
// descriptions, roles, pool, rules, metadata, key_name and Octavia settings; that Untouched and
// the Unchanged checks pass; then takes all of them into Terraform end to end
// (testUnikornEndToEnd: import, a server and a load balancer of its own beside them, hand-back);
// and, once the cleanups ran, that nothing of the test's IDs is left.
func TestAccUnikornFixtures(t *testing.T) {
	acctest.PreCheck(t)

	region := acctest.FirstRegion()
	flavor := acctest.FlavorID(t, region, acctest.ServerFlavor)
	image := acctest.ImageID(t, region, acctest.ServerImage)

	for i, gen := range acctest.UnikornGenerations {
		t.Run(gen.Name, func(t *testing.T) {
			t.Parallel()

			var left leftovers

			t.Cleanup(func() { left.check(t) }) // registered first: runs after the fixtures' cleanups

			org, proj := "org-"+acctest.RandomName(), "proj-"+acctest.RandomName()
			u := acctest.CreateUnikornIdentity(t, gen, org, proj)
			left.identity = u

			checkUnikornIdentity(t, u, org, proj)

			cidr := fmt.Sprintf("10.%d.0.0/24", 60+i)
			n := u.CreateNetwork(t, region, cidr)
			left.network = n

			checkUnikornNetwork(t, u, n, cidr)

			rules := []acctest.UnikornRule{
				{Direction: "ingress", Protocol: "tcp", PortMin: 22, CIDR: "0.0.0.0/0"},
				{Direction: "ingress", Protocol: "udp", PortMin: 5000, PortMax: 5010, CIDR: "10.0.0.0/8"},
			}
			sg := u.CreateSecurityGroup(t, region, rules...)
			left.group = sg

			checkUnikornGroup(t, u, sg)

			var tags map[string]string
			if gen != acctest.UnikornV110 {
				tags = map[string]string{"compute.unikorn-cloud.org/cluster-id": "c-1", "env": "prod"}
			}

			s := u.CreateServer(t, n, []acctest.UnikornSecurityGroup{sg}, acctest.RandomName(), flavor, image, tags)
			left.server = s

			checkUnikornServer(t, u, n, sg, s, org, proj)

			// The user tags Unikorn turns into metadata (the others it drops).
			var mirrored map[string]string
			if tags != nil {
				mirrored = map[string]string{"compute.unikorn-cloud.org/cluster-id": tags["compute.unikorn-cloud.org/cluster-id"]}
			}

			objects := unikornObjects{
				u: u, n: n, sg: sg, s: s, region: region, flavor: flavor, image: image, rules: rules, tags: mirrored,
			}

			checks := []func(*testing.T) error{u.Untouched, n.Unchanged, sg.Unchanged, s.Unchanged}

			if gen.HasLoadBalancers() {
				lb := u.CreateLoadBalancer(t, n, acctest.UnikornListener{
					Name: "tcp", Protocol: "TCP", Port: 80, Members: []string{s.PrivateIP}, MemberPort: 8080, HealthCheck: true,
				})
				left.lb = lb

				checkUnikornLoadBalancer(t, u, n, s, lb)

				checks = append(checks, lb.Unchanged)
				objects.lb = &lb
			}

			for _, check := range checks {
				if err := check(t); err != nil {
					t.Error(err)
				}
			}

			if !t.Failed() {
				testUnikornEndToEnd(t, objects)
			}
		})
	}
}

// mismatches collects what differs from Unikorn's shape, and fails the test with all of it.
type mismatches struct {
	t    *testing.T
	what string
	errs []string
}

func (m *mismatches) expect(field string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		m.errs = append(m.errs, fmt.Sprintf("%s is %v, want %v", field, got, want))
	}
}

func (m *mismatches) done() {
	m.t.Helper()

	if len(m.errs) > 0 {
		m.t.Errorf("%s is not as Unikorn makes it:\n  %s", m.what, strings.Join(m.errs, "\n  "))
	}
}

// must is v, once given the test: must(f())(t) fails the test on f's error.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()

		if err != nil {
			t.Fatal(err)
		}

		return v
	}
}

func checkUnikornIdentity(t *testing.T, u acctest.UnikornIdentity, org, proj string) {
	t.Helper()

	ctx := context.Background()
	ks, _ := acctest.IdentityKeystone(t)
	name := "unikorn-identity-" + u.ID
	m := &mismatches{t: t, what: "the identity " + name}

	p := must(projects.Get(ctx, ks, u.ProjectID).Extract())(t)
	m.expect("the project's name", p.Name, name)
	m.expect("the project's tags", p.Tags, []string{"organization=" + org, "project=" + proj})
	m.expect("the project's description", p.Description, "")
	m.expect("the identity's organization and project", []string{u.OrganizationID, u.UnikornProjectID}, []string{org, proj})

	usr := must(users.Get(ctx, ks, u.UserID).Extract())(t)
	m.expect("the user's name", usr.Name, name)
	m.expect("the user's default project", usr.DefaultProjectID, "")
	m.expect("the password's length (a UUID)", len(u.Password), 36)

	// The service user holds manager only; the identity's user member and load-balancer_member.
	svc := acctest.Client(t).ServiceUserID()
	m.expect("the role assignments", must(acctest.Assignments(ctx, t, u.ProjectID))(t),
		sortedStrings("load-balancer_member user:"+u.UserID, "manager user:"+svc, "member user:"+u.UserID))

	uks := must(u.Keystone(t))(t)
	ac := must(applicationcredentials.Get(ctx, uks, u.UserID, u.CredentialID).Extract())(t)

	var acRoles []string

	for _, r := range ac.Roles {
		// Keystone 2025.1 records the roles that the asked ones imply (member: reader) too.
		if r.Name != "reader" {
			acRoles = append(acRoles, r.Name)
		}
	}

	m.expect("the credential's name", ac.Name, name)
	m.expect("the credential's description", ac.Description, "IaaS lifecycle management")
	m.expect("the credential's roles", sortedStrings(acRoles...), sortedStrings("member", "load-balancer_member"))
	m.expect("the credential's expiry", ac.ExpiresAt.IsZero(), true)
	m.expect("the credential's unrestricted", ac.Unrestricted, false)
	m.expect("the credential's project", ac.ProjectID, u.ProjectID)
	m.expect("the server group policy", u.ServerGroupPolicy, "soft-anti-affinity")
	m.expect("the public key's form", strings.HasPrefix(u.KeypairPublicKey, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5") &&
		strings.Count(u.KeypairPublicKey, " ") == 1 && strings.HasSuffix(u.KeypairPublicKey, "\n"), true)

	for _, region := range acctest.Regions() {
		compute := acctest.AdminCompute(t, region)

		g := must(servergroups.Get(ctx, compute, u.ServerGroupIDs[region]).Extract())(t)
		m.expect("the server group's name in "+region, g.Name, name)
		m.expect("the server group's policy in "+region, derefString(g.Policy), "soft-anti-affinity")
		m.expect("the server group's owner in "+region, g.ProjectID+" "+g.UserID, u.ProjectID+" "+u.UserID)

		kp := must(keypairs.Get(ctx, compute, "unikorn-openstack-provider", keypairs.GetOpts{UserID: u.UserID}).Extract())(t)
		m.expect("the keypair's type in "+region, kp.Type, "ssh")
		m.expect("the keypair's key in "+region, strings.TrimSpace(kp.PublicKey), strings.TrimSpace(u.KeypairPublicKey))
	}

	m.expect("ServerGroupID", u.ServerGroupID, u.ServerGroupIDs[acctest.FirstRegion()])
	m.done()
}

func checkUnikornNetwork(t *testing.T, u acctest.UnikornIdentity, n acctest.UnikornNetwork, cidr string) {
	t.Helper()

	ctx := context.Background()
	neutron := acctest.AdminNeutron(t, n.Region)
	name := "network-" + n.ID
	m := &mismatches{t: t, what: "the network " + name}
	base := strings.TrimSuffix(cidr, "0/24")

	// Unikorn's allocation pools: .2–.127 at v1.10, .128–.254 from v1.11 (v1.17+ by default).
	pool := []string{base + "128", base + "254"}
	if u.Gen == acctest.UnikornV110 {
		pool = []string{base + "2", base + "127"}
	}

	m.expect("the fixture's pool", []string{n.PoolStart, n.PoolEnd}, pool)

	nw := must(networks.Get(ctx, neutron, n.NetworkID).Extract())(t)
	m.expect("the network's name, description, project", []string{nw.Name, nw.Description, nw.ProjectID},
		[]string{name, "unikorn managed provider network", u.ProjectID})

	sub := must(subnets.Get(ctx, neutron, n.SubnetID).Extract())(t)
	m.expect("the subnet's name, description, network", []string{sub.Name, sub.Description, sub.NetworkID}, []string{name, "", n.NetworkID})
	m.expect("the subnet's prefix and gateway", []string{sub.CIDR, sub.GatewayIP}, []string{cidr, base + "1"})
	m.expect("the subnet's pools", sub.AllocationPools, []subnets.AllocationPool{{Start: pool[0], End: pool[1]}})
	m.expect("the subnet's DHCP, DNS, routes", fmt.Sprint(sub.EnableDHCP, sub.DNSNameservers, sub.HostRoutes), "true [] []")

	r := must(routers.Get(ctx, neutron, n.RouterID).Extract())(t)
	m.expect("the router's name, description, project", []string{r.Name, r.Description, r.ProjectID}, []string{name, "", u.ProjectID})
	m.expect("the router's gateway", r.GatewayInfo.NetworkID, acctest.PublicNetworkID(t, n.Region))

	ifs := must(acctest.AllPages(ctx, ports.List(neutron, ports.ListOpts{DeviceID: n.RouterID, DeviceOwner: "network:router_interface"}),
		ports.ExtractPorts))(t)
	m.expect("the router's interfaces", len(ifs), 1)

	if len(ifs) == 1 {
		m.expect("the router's interface address", ifs[0].FixedIPs, []ports.IP{{SubnetID: n.SubnetID, IPAddress: base + "1"}})
	}

	m.done()
}

func checkUnikornGroup(t *testing.T, u acctest.UnikornIdentity, sg acctest.UnikornSecurityGroup) {
	t.Helper()

	ctx := context.Background()
	neutron := acctest.AdminNeutron(t, sg.Region)
	name := "securitygroup-" + sg.ID
	m := &mismatches{t: t, what: "the security group " + name}

	g := must(groups.Get(ctx, neutron, sg.GroupID).Extract())(t)
	m.expect("the group's name, description, project", []string{g.Name, g.Description, g.ProjectID}, []string{name, "", u.ProjectID})

	want := []string{
		"ingress IPv4 tcp 22-22 0.0.0.0/0 unikorn managed security group rule",
		"ingress IPv4 udp 5000-5010 10.0.0.0/8 unikorn managed security group rule",
	}
	m.expect("the number of rule IDs", len(sg.RuleIDs), len(want))

	var asked, others []string

	for _, r := range g.Rules {
		line := fmt.Sprintf("%s %s %s %d-%d %s %s", r.Direction, r.EtherType, r.Protocol, r.PortRangeMin, r.PortRangeMax, r.RemoteIPPrefix, r.Description)
		if i := slices.Index(sg.RuleIDs, r.ID); i >= 0 {
			asked = append(asked, line)
		} else {
			others = append(others, strings.TrimSpace(line))
		}
	}

	m.expect("the asked rules", sortedStrings(asked...), want)
	// Neutron's default egress rules stay (Unikorn's hidden key).
	m.expect("the other rules", sortedStrings(others...), []string{"egress IPv4  0-0", "egress IPv6  0-0"})

	rule := must(rules.Get(ctx, neutron, sg.RuleIDs[0]).Extract())(t)
	m.expect("the first rule's group", rule.SecGroupID, sg.GroupID)
	m.done()
}

func checkUnikornServer(t *testing.T, u acctest.UnikornIdentity, n acctest.UnikornNetwork, sg acctest.UnikornSecurityGroup,
	s acctest.UnikornServer, org, proj string,
) {
	t.Helper()

	ctx := context.Background()
	m := &mismatches{t: t, what: "the server " + s.Name}
	regionID := s.Metadata["regionID"]

	want := map[string]string{"serverID": s.ID, "organizationID": org, "projectID": proj, "regionID": regionID}
	if u.Gen != acctest.UnikornV110 {
		want["region:server_id"], want["identity:organization_id"], want["identity:project_id"] = s.ID, org, proj
		want["region:region_id"], want["compute:cluster_id"] = regionID, "c-1"
	}

	m.expect("the fixture's metadata", s.Metadata, want)
	m.expect("the Unikorn region ID's length (a UUID)", len(regionID), 36)
	m.expect("the server ID's form (a UUID that starts with a letter)", len(s.ID) == 36 && s.ID[0] >= 'a', true)

	srv := must(servers.Get(ctx, acctest.AdminCompute(t, s.Region), s.ServerID).Extract())(t)
	m.expect("Nova's name", srv.Name, s.Name)
	m.expect("Nova's metadata", srv.Metadata, want)
	m.expect("Nova's key_name", srv.KeyName, "unikorn-openstack-provider")
	m.expect("Nova's project and user", srv.TenantID+" "+srv.UserID, u.ProjectID+" "+u.UserID)
	m.expect("Nova's status", srv.Status, "ACTIVE")

	g := must(servergroups.Get(ctx, acctest.AdminCompute(t, s.Region), u.ServerGroupIDs[s.Region]).Extract())(t)
	m.expect("the server group's members", len(g.Members), 0)

	p := must(ports.Get(ctx, acctest.AdminNeutron(t, s.Region), s.PortID).Extract())(t)
	m.expect("the port's name, description, project", []string{p.Name, p.Description, p.ProjectID}, []string{"server-" + s.ID, "", u.ProjectID})
	m.expect("the port's network and device", []string{p.NetworkID, p.DeviceID}, []string{n.NetworkID, s.ServerID})
	m.expect("the port's security groups", p.SecurityGroups, []string{sg.GroupID})
	m.expect("the port's address", p.FixedIPs, []ports.IP{{SubnetID: n.SubnetID, IPAddress: s.PrivateIP}})
	m.expect("the port's address pairs", len(p.AllowedAddressPairs), 0)
	m.done()
}

func checkUnikornLoadBalancer(t *testing.T, u acctest.UnikornIdentity, n acctest.UnikornNetwork, s acctest.UnikornServer, lb acctest.UnikornLoadBalancer) {
	t.Helper()

	ctx := context.Background()
	octavia, _ := acctest.LoadBalancerClients(t, lb.Region)
	name := "lb-" + lb.ID
	m := &mismatches{t: t, what: "the load balancer " + name}

	got := must(loadbalancers.Get(ctx, octavia, lb.LoadBalancerID).Extract())(t)
	m.expect("the name, description, project, VIP subnet, status", []string{got.Name, got.Description, got.ProjectID, got.VipSubnetID, got.ProvisioningStatus},
		[]string{name, "", u.ProjectID, n.SubnetID, "ACTIVE"})

	l := must(listeners.Get(ctx, octavia, lb.ListenerIDs["tcp"]).Extract())(t)
	m.expect("the listener", fmt.Sprint(l.Name, " ", l.Protocol, " ", l.ProtocolPort, " ", l.DefaultPoolID, " ", l.TimeoutClientData, " ",
		l.TimeoutMemberData, " ", l.ProvisioningStatus), fmt.Sprint(name, "-tcp-listener TCP 80 ", lb.PoolIDs["tcp"], " 60000 60000 ACTIVE"))

	p := must(pools.Get(ctx, octavia, lb.PoolIDs["tcp"]).Extract())(t)
	m.expect("the pool", fmt.Sprint(p.Name, " ", p.LBMethod, " ", p.Protocol, " ", p.MonitorID, " ", p.ProvisioningStatus),
		fmt.Sprint(name, "-tcp-pool ROUND_ROBIN TCP ", lb.MonitorIDs["tcp"], " ACTIVE"))

	ms := must(acctest.AllPages(ctx, pools.ListMembers(octavia, p.ID, pools.ListMembersOpts{}), pools.ExtractMembers))(t)
	m.expect("the members", len(ms), 1)

	if len(ms) == 1 {
		m.expect("the member", fmt.Sprint(ms[0].Name, "|", ms[0].Address, "|", ms[0].ProtocolPort, "|", ms[0].Weight, "|", ms[0].ProvisioningStatus),
			fmt.Sprint("|", s.PrivateIP, "|8080|1|ACTIVE"))
	}

	mon := must(monitors.Get(ctx, octavia, lb.MonitorIDs["tcp"]).Extract())(t)
	m.expect("the monitor", fmt.Sprint(mon.Name, " ", mon.Type, " ", mon.Delay, " ", mon.Timeout, " ", mon.MaxRetries, " ", mon.MaxRetriesDown, " ",
		mon.ProvisioningStatus), fmt.Sprint(name, "-tcp-monitor TCP 10 5 2 2 ACTIVE"))
	m.done()
}

// leftovers are the fixtures of one generation's run; check asks, once every cleanup ran,
// that nothing of them is left: by ID, and by Unikorn's names.
type leftovers struct {
	identity acctest.UnikornIdentity
	network  acctest.UnikornNetwork
	group    acctest.UnikornSecurityGroup
	server   acctest.UnikornServer
	lb       acctest.UnikornLoadBalancer
}

func (l leftovers) check(t *testing.T) {
	t.Helper()

	ctx := context.Background()
	ks, _ := acctest.IdentityKeystone(t)

	gone := func(what, id string, err error) {
		if id != "" && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("the Unikorn %s %s is left (%v)", what, id, err)
		}
	}

	none := func(what string, n int, err error) {
		if err != nil || n != 0 {
			t.Errorf("%d Unikorn %s left (%v)", n, what, err)
		}
	}

	u := l.identity
	name := "unikorn-identity-" + u.ID

	gone("project", u.ProjectID, projects.Get(ctx, ks, u.ProjectID).Err)
	gone("user", u.UserID, users.Get(ctx, ks, u.UserID).Err)

	ps, err := acctest.IdentityProjects(t, u.ID)
	none("projects named "+name, len(ps), err)

	us, err := acctest.IdentityUsers(t, u.ID)
	none("users named "+name, len(us), err)

	for region, id := range u.ServerGroupIDs {
		compute := acctest.AdminCompute(t, region)
		gone("server group in "+region, id, servergroups.Get(ctx, compute, id).Err)
		gone("keypair in "+region, u.UserID, keypairs.Get(ctx, compute, "unikorn-openstack-provider", keypairs.GetOpts{UserID: u.UserID}).Err)

		neutron := acctest.AdminNeutron(t, region)
		all, err := acctest.AllPages(ctx, ports.List(neutron, ports.ListOpts{ProjectID: u.ProjectID}), ports.ExtractPorts)
		none("ports in "+region, len(all), err)

		// Unfiltered: Neutron makes a project's default group when asked for the project's
		// groups, even for a deleted project.
		sgs, err := acctest.AllPages(ctx, groups.List(neutron, groups.ListOpts{}), groups.ExtractGroups)
		none("security groups in "+region, len(slices.DeleteFunc(sgs, func(g groups.SecGroup) bool { return g.ProjectID != u.ProjectID })), err)
	}

	if n := l.network; n.Region != "" {
		neutron := acctest.AdminNeutron(t, n.Region)
		gone("network", n.NetworkID, networks.Get(ctx, neutron, n.NetworkID).Err)
		gone("subnet", n.SubnetID, subnets.Get(ctx, neutron, n.SubnetID).Err)
		gone("router", n.RouterID, routers.Get(ctx, neutron, n.RouterID).Err)

		named, err := acctest.AllPages(ctx, networks.List(neutron, networks.ListOpts{Name: "network-" + n.ID}), networks.ExtractNetworks)
		none("networks named network-"+n.ID, len(named), err)
	}

	if g := l.group; g.Region != "" {
		neutron := acctest.AdminNeutron(t, g.Region)
		gone("security group", g.GroupID, groups.Get(ctx, neutron, g.GroupID).Err)

		named, err := acctest.AllPages(ctx, groups.List(neutron, groups.ListOpts{Name: "securitygroup-" + g.ID}), groups.ExtractGroups)
		none("security groups named securitygroup-"+g.ID, len(named), err)
	}

	if s := l.server; s.Region != "" {
		gone("server", s.ServerID, servers.Get(ctx, acctest.AdminCompute(t, s.Region), s.ServerID).Err)
		gone("port", s.PortID, ports.Get(ctx, acctest.AdminNeutron(t, s.Region), s.PortID).Err)

		named, err := acctest.AllPages(ctx, ports.List(acctest.AdminNeutron(t, s.Region), ports.ListOpts{Name: "server-" + s.ID}), ports.ExtractPorts)
		none("ports named server-"+s.ID, len(named), err)
	}

	if lb := l.lb; lb.Region != "" {
		named, err := acctest.LoadBalancersNamed(t, lb.Region, u.ProjectID, "lb-"+lb.ID)
		none("load balancers named lb-"+lb.ID, len(named), err)

		octavia, _ := acctest.LoadBalancerClients(t, lb.Region)
		if got, err := loadbalancers.Get(ctx, octavia, lb.LoadBalancerID).Extract(); err == nil && got.ProvisioningStatus != "DELETED" {
			t.Errorf("the Unikorn load balancer %s is left (%s)", lb.LoadBalancerID, got.ProvisioningStatus)
		}
	}
}

// sortedStrings is ss, sorted.
func sortedStrings(ss ...string) []string {
	return slices.Sorted(slices.Values(ss))
}

// derefString is *p, or "" when p is nil.
func derefString(p *string) string {
	if p == nil {
		return ""
	}

	return *p
}
