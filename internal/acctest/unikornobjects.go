package acctest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// UnikornObjects are a network, a security group, a server and a load balancer as Unikorn's
// region service makes them in an identity's project, as the identity's own user: the
// network, subnet and router network-<name> (the subnet laid out as Unikorn does, the router's
// gateway on the external network and an interface on the subnet), the security group
// securitygroup-<name> with one rule (SSH in), the port server-<name> in that group and the
// server <name> with Unikorn's linkage metadata (its own server and region IDs, not Nova's),
// and a load balancer lb-<name> with its VIP on the subnet and one TCP listener
// lb-<name>-tcp-listener on port 80 whose pool lb-<name>-tcp-pool has the server as its member.
// One set serves the read-only import test and the list resources' server and load balancer
// results.
type UnikornObjects struct {
	Name, Region, CIDR                 string
	NetworkID, SubnetID, RouterID      string
	SecurityGroupID, RuleID            string
	PortID, ServerID, PrivateIP        string
	LoadBalancerID, ListenerID, PoolID string
	ServerMetadata                     map[string]string
	organizationID, unikornProjectID   string
	unikornServerID, unikornRegionID   string
	identity                           UnikornIdentity
}

// CreateUnikornObjects makes the network, server (flavorID, imageID) and load balancer called
// name in region, in the project of the Unikorn identity u of organization and project. A
// cleanup deletes, as an admin, whatever of them the test leaves.
func CreateUnikornObjects(t *testing.T, u UnikornIdentity, organization, project, region, name, cidr, flavorID, imageID string) UnikornObjects {
	t.Helper()

	ctx := context.Background()
	o := UnikornObjects{
		Name: name, Region: region, CIDR: cidr, identity: u,
		organizationID: organization, unikornProjectID: project, unikornServerID: uuid(t), unikornRegionID: uuid(t),
	}

	t.Cleanup(func() { o.purge(t) })

	sess, err := Client(t).UserSession(ctx, u.UserID, u.Password, u.ProjectID)
	if err != nil {
		t.Fatal(err)
	}

	neutron := clientOf(t, "Neutron", region, sess.Network)
	o.createNetwork(t, neutron)
	o.createSecurityGroup(t, neutron)

	o.ServerMetadata = naming.SystemMetadata(naming.SystemIDs{
		ServerID: o.unikornServerID, OrganizationID: organization, ProjectID: project, RegionID: o.unikornRegionID,
	})
	// Unikorn gives the port the server's security groups, none here: Neutron's default group
	// is not put on it.
	o.PortID, o.ServerID = bootServer(t, sess, region, name, flavorID, imageID,
		ports.CreateOpts{NetworkID: o.NetworkID, SecurityGroups: &[]string{o.SecurityGroupID}}, o.ServerMetadata)

	octavia := clientOf(t, "Octavia", region, sess.LoadBalancer)
	o.LoadBalancerID = createLoadBalancers(t, octavia, region, o.SubnetID, naming.LoadBalancer(name))[0]
	o.createListener(t, octavia, clientOf(t, "Neutron", region, sess.Network))

	return o
}

// createListener makes the load balancer's TCP listener, its pool and the server as its member
// through octavia, one step at a time as Unikorn does, waiting for the load balancer between.
func (o *UnikornObjects) createListener(t *testing.T, octavia, neutron *gophercloud.ServiceClient) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	p, err := ports.Get(ctx, neutron, o.PortID).Extract()
	if err != nil || len(p.FixedIPs) == 0 {
		t.Fatalf("the address of the Unikorn server port %s: %v", o.PortID, err)
	}

	o.PrivateIP = p.FixedIPs[0].IPAddress

	steps := []struct {
		what string
		do   func() error
	}{
		{"listener", func() error {
			l, err := listeners.Create(ctx, octavia, listeners.CreateOpts{
				LoadbalancerID: o.LoadBalancerID, Name: naming.Listener(o.Name, "tcp"), Protocol: listeners.ProtocolTCP, ProtocolPort: 80,
			}).Extract()
			if err == nil {
				o.ListenerID = l.ID
			}

			return err
		}},
		{"pool", func() error {
			pool, err := pools.Create(ctx, octavia, pools.CreateOpts{
				ListenerID: o.ListenerID, Name: naming.Pool(o.Name, "tcp"), Protocol: pools.ProtocolTCP, LBMethod: pools.LBMethodRoundRobin,
			}).Extract()
			if err == nil {
				o.PoolID = pool.ID
			}

			return err
		}},
		{"member", func() error {
			return pools.BatchUpdateMembers(ctx, octavia, o.PoolID, []pools.BatchUpdateMemberOpts{
				{Address: o.PrivateIP, ProtocolPort: 80, SubnetID: &o.SubnetID},
			}).Err
		}},
	}

	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("creating the Unikorn load balancer's %s: %v", step.what, err)
		}

		if err := waitLoadBalancer(ctx, octavia, o.LoadBalancerID, false); err != nil {
			t.Fatalf("waiting for the Unikorn load balancer after its %s: %v", step.what, err)
		}
	}
}

// createSecurityGroup makes the security group and its rule through sc.
func (o *UnikornObjects) createSecurityGroup(t *testing.T, sc *gophercloud.ServiceClient) {
	t.Helper()

	ctx := context.Background()

	g, err := groups.Create(ctx, sc, groups.CreateOpts{Name: naming.SecurityGroup(o.Name)}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn security group: %v", err)
	}

	o.SecurityGroupID = g.ID

	r, err := rules.Create(ctx, sc, rules.CreateOpts{
		SecGroupID: g.ID, Direction: rules.DirIngress, EtherType: rules.EtherType4, Protocol: rules.ProtocolTCP,
		PortRangeMin: 22, PortRangeMax: 22, RemoteIPPrefix: "0.0.0.0/0",
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn security group rule: %v", err)
	}

	o.RuleID = r.ID
}

// createNetwork makes the network, subnet and router through sc.
func (o *UnikornObjects) createNetwork(t *testing.T, sc *gophercloud.ServiceClient) {
	t.Helper()

	ctx := context.Background()

	prefix, err := network.ParseCIDR(o.CIDR)
	if err != nil {
		t.Fatal(err)
	}

	plan, err := network.PlanAddressing(prefix, nil)
	if err != nil {
		t.Fatal(err)
	}

	n, err := networks.Create(ctx, sc, networks.CreateOpts{Name: naming.Network(o.Name)}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn network: %v", err)
	}

	o.NetworkID = n.ID
	gateway := plan.Gateway.String()

	sub, err := subnets.Create(ctx, sc, subnets.CreateOpts{
		NetworkID: n.ID, Name: naming.Subnet(o.Name), CIDR: o.CIDR, IPVersion: gophercloud.IPv4, GatewayIP: &gateway,
		AllocationPools: []subnets.AllocationPool{{Start: plan.Pool.Start.String(), End: plan.Pool.End.String()}},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn subnet: %v", err)
	}

	o.SubnetID = sub.ID

	r, err := routers.Create(ctx, sc, routers.CreateOpts{
		Name: naming.Router(o.Name), GatewayInfo: &routers.GatewayInfo{NetworkID: PublicNetworkID(t, o.Region)},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn router: %v", err)
	}

	o.RouterID = r.ID

	if _, err := routers.AddInterface(ctx, sc, r.ID, routers.AddInterfaceOpts{SubnetID: sub.ID}).Extract(); err != nil {
		t.Fatalf("attaching the Unikorn router to its subnet: %v", err)
	}
}

// Snapshot is what an update of the objects would change, read as an admin: Neutron's
// revision numbers of the network, subnet, router, security group and port and the group's
// rules, the server's name, status, flavor, image and metadata, and the load balancer's name,
// description, listeners, pools and members.
func (o UnikornObjects) Snapshot(t *testing.T) (string, error) {
	t.Helper()

	ctx := context.Background()
	neutron := AdminNeutron(t, o.Region)

	n, err := networks.Get(ctx, neutron, o.NetworkID).Extract()
	if err != nil {
		return "", err
	}

	sub, err := subnets.Get(ctx, neutron, o.SubnetID).Extract()
	if err != nil {
		return "", err
	}

	r, err := routers.Get(ctx, neutron, o.RouterID).Extract()
	if err != nil {
		return "", err
	}

	g, err := groups.Get(ctx, neutron, o.SecurityGroupID).Extract()
	if err != nil {
		return "", err
	}

	ruleIDs := make([]string, len(g.Rules))
	for i, rule := range g.Rules {
		ruleIDs[i] = rule.ID
	}

	slices.Sort(ruleIDs)

	p, err := ports.Get(ctx, neutron, o.PortID).Extract()
	if err != nil {
		return "", err
	}

	srv, err := servers.Get(ctx, AdminCompute(t, o.Region), o.ServerID).Extract()
	if err != nil {
		return "", err
	}

	lb, err := LoadBalancerSnapshot(t, o.Region, o.LoadBalancerID)
	if err != nil || lb == nil {
		return "", fmt.Errorf("the Unikorn load balancer %s: %v (%v)", o.LoadBalancerID, err, lb)
	}

	children := make([]string, 0, len(lb.Listeners)+len(lb.Pools))
	for _, l := range lb.Listeners {
		children = append(children, fmt.Sprintf("%s %s:%d pool %s", l.Name, l.Protocol, l.ProtocolPort, l.DefaultPoolID))
	}

	for _, pool := range lb.Pools {
		children = append(children, fmt.Sprintf("%s %s members %v", pool.Name, pool.ID, lb.Members[pool.Name]))
	}

	slices.Sort(children)

	// Update times are left out: Nova's and Octavia's own housekeeping moves them.
	return fmt.Sprintf("network %s r%d, subnet %s r%d, router %s r%d, security group %s r%d rules %v, port %s r%d, "+
		"server %s %s flavor %v image %v %v, load balancer %s %q %v",
		n.Name, n.RevisionNumber, sub.Name, sub.RevisionNumber, r.Name, r.RevisionNumber, g.Name, g.RevisionNumber, ruleIDs,
		p.Name, p.RevisionNumber, srv.Name, srv.Status, srv.Flavor, srv.Image, srv.Metadata,
		lb.LoadBalancer.Name, lb.LoadBalancer.Description, children), nil
}

// Untouched checks that nothing of the objects was rewritten since the snapshot before was
// taken, and that the server still carries Unikorn's linkage metadata.
func (o UnikornObjects) Untouched(t *testing.T, before string) error {
	t.Helper()

	now, err := o.Snapshot(t)
	if err != nil {
		return err
	}

	if now != before {
		return fmt.Errorf("the Unikorn objects were rewritten:\nbefore %s\nnow    %s", before, now)
	}

	srv, err := servers.Get(context.Background(), AdminCompute(t, o.Region), o.ServerID).Extract()
	if err != nil {
		return err
	}

	if fmt.Sprint(srv.Metadata) != fmt.Sprint(o.ServerMetadata) {
		return fmt.Errorf("the Unikorn server's metadata is %v, want %v", srv.Metadata, o.ServerMetadata)
	}

	return nil
}

// purge deletes, as an admin, the load balancer, the server and every Neutron object of the
// identity's project in the region that are left.
func (o UnikornObjects) purge(t *testing.T) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	if o.LoadBalancerID != "" {
		DeleteLoadBalancerOutOfBand(t, o.Region, o.LoadBalancerID)
	}

	if o.ServerID != "" {
		if err := deleteServer(ctx, AdminCompute(t, o.Region), o.ServerID); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting the Unikorn server %s: %v", o.ServerID, err)
		}
	}

	if err := purgeNeutron(ctx, AdminNeutron(t, o.Region), o.identity.ProjectID); err != nil {
		t.Errorf("cleaning up the Unikorn network objects of project %s: %v", o.identity.ProjectID, err)
	}
}

// TFImports are the import blocks of the identity (unikorn_identity.<label>), network, security
// group, server and load balancer, each by ID (the identity by its project ID, the others by `REGION/ID`).
func (o UnikornObjects) TFImports(label string) string {
	var out string

	for _, i := range []struct{ address, id string }{
		{"unikorn_identity." + label, o.identity.ProjectID},
		{"unikorn_network." + label, o.Region + "/" + o.NetworkID},
		{"unikorn_security_group." + label, o.Region + "/" + o.SecurityGroupID},
		{"unikorn_server." + label, o.Region + "/" + o.ServerID},
		{"unikorn_loadbalancer." + label, o.Region + "/" + o.LoadBalancerID},
	} {
		out += fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", i.address, i.id)
	}

	return out
}

// CheckNetworkGone is a CheckDestroy of the network objects (network, subnet, router, security
// group, server port): asked by ID as an admin, since the identity's project is gone with the identity.
func (o UnikornObjects) CheckNetworkGone(t *testing.T) func(*terraform.State) error {
	return func(*terraform.State) error {
		ctx := context.Background()
		sc := AdminNeutron(t, o.Region)

		for what, get := range map[string]func() error{
			"network " + o.NetworkID:              func() error { return networks.Get(ctx, sc, o.NetworkID).Err },
			"subnet " + o.SubnetID:                func() error { return subnets.Get(ctx, sc, o.SubnetID).Err },
			"router " + o.RouterID:                func() error { return routers.Get(ctx, sc, o.RouterID).Err },
			"port " + o.PortID:                    func() error { return ports.Get(ctx, sc, o.PortID).Err },
			"security group " + o.SecurityGroupID: func() error { return groups.Get(ctx, sc, o.SecurityGroupID).Err },
		} {
			switch err := get(); {
			case err == nil:
				return fmt.Errorf("the Unikorn %s still exists", what)
			case !gophercloud.ResponseCodeIs(err, 404):
				return err
			}
		}

		return nil
	}
}
