package acctest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/quotas"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// This file holds the helpers of the tenant networking tests (unikorn_network,
// unikorn_security_group). Until those tests can make a unikorn_identity, they use a bare
// Keystone project in the managed domain, on which the service user is granted what
// unikorn_identity grants it (manager, member, load-balancer_member): the local cloud's
// service user is a cloud admin, with nothing inherited. Admin-only calls (quotas, purging
// Neutron's default group) go through AdminNeutron.

// NetworkTenant creates a Keystone project called after RandomName in the managed domain and
// returns its ID. When the test ends it deletes, in every region, whatever Neutron objects
// are left in the project (router interfaces, routers, ports, subnets, networks, security
// groups, Neutron's auto-created `default` group included), then the project.
func NetworkTenant(t *testing.T) string {
	t.Helper()

	sc, domainID := IdentityKeystone(t)
	ctx := context.Background()

	p, err := projects.Create(ctx, sc, projects.CreateOpts{
		DomainID:    domainID,
		Name:        naming.IdentityProject(RandomName()),
		Description: "tenant networking acceptance test",
	}).Extract()
	if err != nil {
		t.Fatalf("creating the test project: %v", err)
	}

	for _, role := range []string{"manager", "member", "load-balancer_member"} {
		GrantServiceUser(t, p.ID, role)
	}

	t.Cleanup(func() {
		for _, region := range Regions() {
			if err := purgeNeutron(ctx, AdminNeutron(t, region), p.ID); err != nil {
				t.Errorf("cleaning up Neutron objects of project %s in %s: %v", p.ID, region, err)
			}
		}

		if err := projects.Delete(ctx, sc, p.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting project %s: %v", p.ID, err)
		}

		Client(t).ForgetProject(p.ID)
	})

	return p.ID
}

// TenantNeutron is the Neutron client of region in the privileged scope of projectID (an
// admin one on the local cloud).
func TenantNeutron(t *testing.T, projectID, region string) *gophercloud.ServiceClient {
	t.Helper()

	tenant, err := Client(t).Tenant(context.Background(), projectID, region, cloud.Privileged)
	if err == nil {
		var sc *gophercloud.ServiceClient
		if sc, err = tenant.Network(); err == nil {
			return sc
		}
	}

	t.Fatalf("the Neutron client of project %s in %s (privileged scope): %v", projectID, region, err)

	return nil
}

// purgeNeutron deletes every Neutron object of projectID reachable through sc.
func purgeNeutron(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) error {
	var errs []string

	note := func(what string, err error) {
		if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			errs = append(errs, fmt.Sprintf("%s: %v", what, err))
		}
	}

	rs, err := AllPages(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID}), routers.ExtractRouters)
	note("listing routers", err)

	for _, r := range rs {
		note("deleting router "+r.ID, DeleteRouter(ctx, sc, r.ID))
	}

	ps, err := AllPages(ctx, ports.List(sc, ports.ListOpts{ProjectID: projectID}), ports.ExtractPorts)
	note("listing ports", err)

	for _, p := range ps {
		if p.DeviceOwner != "network:dhcp" {
			note("deleting port "+p.ID, ports.Delete(ctx, sc, p.ID).ExtractErr())
		}
	}

	ns, err := ListTenantNetworks(ctx, sc, projectID, "")
	note("listing networks", err)

	for _, n := range ns {
		note("deleting network "+n.ID, networks.Delete(ctx, sc, n.ID).ExtractErr())
	}

	gs, err := AllPages(ctx, groups.List(sc, groups.ListOpts{ProjectID: projectID}), groups.ExtractGroups)
	note("listing security groups", err)

	for _, g := range gs {
		note("deleting security group "+g.ID, groups.Delete(ctx, sc, g.ID).ExtractErr())
	}

	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}

	return nil
}

// DeleteRouter detaches router id from its subnets and deletes it; 404s count as done.
func DeleteRouter(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	ps, err := AllPages(ctx, ports.List(sc, ports.ListOpts{DeviceID: id}), ports.ExtractPorts)
	if err != nil {
		return fmt.Errorf("listing the ports of router %s: %w", id, err)
	}

	for _, p := range ps {
		if !slices.Contains(network.RouterInterfaceOwners, p.DeviceOwner) {
			continue
		}

		_, err := routers.RemoveInterface(ctx, sc, id, routers.RemoveInterfaceOpts{PortID: p.ID}).Extract()
		if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			return fmt.Errorf("detaching router %s from port %s: %w", id, p.ID, err)
		}
	}

	if err := routers.Delete(ctx, sc, id).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
		return fmt.Errorf("deleting router %s: %w", id, err)
	}

	return nil
}

// ListTenantNetworks lists the networks of projectID, named exactly name when name is not "".
func ListTenantNetworks(ctx context.Context, sc *gophercloud.ServiceClient, projectID, name string) ([]networks.Network, error) {
	all, err := AllPages(ctx, networks.List(sc, networks.ListOpts{ProjectID: projectID, Name: name}), networks.ExtractNetworks)
	if err != nil || name == "" {
		return all, err
	}

	return naming.Exact(all, name, func(n networks.Network) string { return n.Name }), nil
}

// RaiseSecurityGroupRuleQuota sets the security group rule quota of projectID in every
// region (Neutron's default is 100 per project).
func RaiseSecurityGroupRuleQuota(t *testing.T, projectID string, rules int) {
	t.Helper()

	for _, region := range Regions() {
		_, err := quotas.Update(context.Background(), AdminNeutron(t, region), projectID,
			quotas.UpdateOpts{SecurityGroupRule: &rules}).Extract()
		if err != nil {
			t.Fatalf("raising the security group rule quota of %s in %s: %v", projectID, region, err)
		}
	}
}

// NeutronNetworkIDs lists the IDs of the networks of projectID in region called exactly
// neutronName (e.g. "network-x").
func NeutronNetworkIDs(t *testing.T, projectID, region, neutronName string) []string {
	t.Helper()

	ns, err := ListTenantNetworks(context.Background(), TenantNeutron(t, projectID, region), projectID, neutronName)
	if err != nil {
		t.Fatalf("listing networks %s: %v", neutronName, err)
	}

	ids := make([]string, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}

	return ids
}

// NeutronCreateBareNetwork creates, out of band, a network without subnet called neutronName
// in projectID in region, and returns its ID.
func NeutronCreateBareNetwork(t *testing.T, projectID, region, neutronName string) string {
	t.Helper()

	n, err := networks.Create(context.Background(), TenantNeutron(t, projectID, region), networks.CreateOpts{Name: neutronName}).Extract()
	if err != nil {
		t.Fatalf("creating network %s: %v", neutronName, err)
	}

	return n.ID
}

// NeutronNetworkVLAN is the physical network and segmentation ID of network id in region (0
// when it is no VLAN network).
func NeutronNetworkVLAN(t *testing.T, region, id string) (physnet string, vlan int) {
	t.Helper()

	var n provider.NetworkProviderExt
	if err := networks.Get(context.Background(), AdminNeutron(t, region), id).ExtractInto(&n); err != nil {
		t.Fatalf("reading network %s: %v", id, err)
	}

	vlan, err := strconv.Atoi(n.SegmentationID)
	if n.NetworkType != "vlan" || err != nil {
		return n.PhysicalNetwork, 0
	}

	return n.PhysicalNetwork, vlan
}

// NeutronCreateVLANNetwork makes, out of band, a VLAN network with segmentation ID vlan on
// physnet in projectID (whose privileged scope is an admin one), and returns its ID.
func NeutronCreateVLANNetwork(t *testing.T, projectID, region, physnet string, vlan int) string {
	t.Helper()

	// Provider attributes are admin-only: made as admin, owned by projectID (as the provider does).
	n, err := networks.Create(context.Background(), AdminNeutron(t, region), provider.CreateOptsExt{
		CreateOptsBuilder: networks.CreateOpts{Name: RandomName(), ProjectID: projectID},
		Segments:          []provider.Segment{{NetworkType: "vlan", PhysicalNetwork: physnet, SegmentationID: vlan}},
	}).Extract()
	if err != nil {
		t.Fatalf("creating a VLAN %d network: %v", vlan, err)
	}

	return n.ID
}

// ExternalSubnetCIDR is the prefix of the first subnet of external network networkID in region.
func ExternalSubnetCIDR(t *testing.T, region, networkID string) string {
	t.Helper()

	all, err := AllPages(context.Background(), subnets.List(AdminNeutron(t, region), subnets.ListOpts{NetworkID: networkID}), subnets.ExtractSubnets)
	if err != nil || len(all) == 0 {
		t.Fatalf("the subnets of external network %s in %s: %v (%d)", networkID, region, err, len(all))
	}

	return all[0].CIDR
}

// NeutronDeleteNetwork deletes, out of band, network-<name> of projectID in region with its
// subnet, router and router interface.
func NeutronDeleteNetwork(t *testing.T, projectID, region, name string) {
	t.Helper()

	ctx := context.Background()
	sc := TenantNeutron(t, projectID, region)
	neutronName := naming.Network(name)

	rs, err := AllPages(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID, Name: neutronName}), routers.ExtractRouters)
	if err != nil {
		t.Fatal(err)
	}

	ns, err := ListTenantNetworks(ctx, sc, projectID, neutronName)
	if err != nil {
		t.Fatal(err)
	}

	for _, r := range naming.Exact(rs, neutronName, func(r routers.Router) string { return r.Name }) {
		if err := DeleteRouter(ctx, sc, r.ID); err != nil {
			t.Fatal(err)
		}
	}

	for _, n := range ns {
		if err := networks.Delete(ctx, sc, n.ID).ExtractErr(); err != nil {
			t.Fatalf("deleting network %s: %v", n.ID, err)
		}
	}
}

// NeutronDeleteRouter deletes, out of band, the router network-<name> (and its interfaces)
// of projectID in region.
func NeutronDeleteRouter(t *testing.T, projectID, region, name string) {
	t.Helper()

	ctx := context.Background()
	sc := TenantNeutron(t, projectID, region)

	rs, err := AllPages(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID, Name: naming.Router(name)}), routers.ExtractRouters)
	if err != nil {
		t.Fatal(err)
	}

	for _, r := range naming.Exact(rs, naming.Router(name), func(r routers.Router) string { return r.Name }) {
		if err := DeleteRouter(ctx, sc, r.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// NeutronCreatePort creates, out of band, a port called portName with device owner owner on
// network networkID, and returns its ID.
func NeutronCreatePort(t *testing.T, projectID, region, networkID, portName, owner string) string {
	t.Helper()

	p, err := ports.Create(context.Background(), TenantNeutron(t, projectID, region), ports.CreateOpts{
		Name: portName, NetworkID: networkID, DeviceOwner: owner, DeviceID: "tf-acc-device",
	}).Extract()
	if err != nil {
		t.Fatalf("creating port %s: %v", portName, err)
	}

	return p.ID
}

// NeutronDeletePort deletes a port out of band.
func NeutronDeletePort(t *testing.T, projectID, region, portID string) {
	t.Helper()

	if err := ports.Delete(context.Background(), TenantNeutron(t, projectID, region), portID).ExtractErr(); err != nil {
		t.Fatalf("deleting port %s: %v", portID, err)
	}
}

// CheckNetworkDestroy is the CheckDestroy of unikorn_network: for every network in the state
// it asks Neutron that the network, its subnet and its router are gone by ID, and that no
// network or router called network-<name> is left in the project.
func CheckNetworkDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		ctx := context.Background()

		return EachOf(s, "unikorn_network", func(a map[string]string) error {
			sc := TenantNeutron(t, a["identity_id"], a["region"])

			checks := []struct {
				what, id string
				get      func() error
			}{
				{"network", a["id"], func() error { return networks.Get(ctx, sc, a["id"]).Err }},
				{"subnet", a["subnet_id"], func() error { return subnets.Get(ctx, sc, a["subnet_id"]).Err }},
				{"router", a["router_id"], func() error { return routers.Get(ctx, sc, a["router_id"]).Err }},
			}

			for _, c := range checks {
				if c.id == "" {
					continue
				}

				if err := c.get(); !gophercloud.ResponseCodeIs(err, 404) {
					return fmt.Errorf("%s %s of network %s still exists in %s (err %v)", c.what, c.id, a["name"], a["region"], err)
				}
			}

			name := naming.Network(a["name"])

			ns, err := ListTenantNetworks(ctx, sc, a["identity_id"], name)
			if err != nil {
				return err
			}

			if len(ns) > 0 {
				return fmt.Errorf("a network %s (%s) is left in %s", name, ns[0].ID, a["region"])
			}

			rts, err := AllPages(ctx, routers.List(sc, routers.ListOpts{ProjectID: a["identity_id"], Name: name}), routers.ExtractRouters)
			if err != nil {
				return err
			}

			if left := naming.Exact(rts, name, func(r routers.Router) string { return r.Name }); len(left) > 0 {
				return fmt.Errorf("a router %s (%s) is left in %s", name, left[0].ID, a["region"])
			}

			return nil
		})
	}
}

// CheckSecurityGroupDestroy is the CheckDestroy of unikorn_security_group: every group of
// the state is gone by ID, and no group called securitygroup-<name> is left in the project.
func CheckSecurityGroupDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		ctx := context.Background()

		return EachOf(s, "unikorn_security_group", func(a map[string]string) error {
			sc := TenantNeutron(t, a["identity_id"], a["region"])

			if err := groups.Get(ctx, sc, a["id"]).Err; !gophercloud.ResponseCodeIs(err, 404) {
				return fmt.Errorf("security group %s (%s) still exists in %s (err %v)", a["name"], a["id"], a["region"], err)
			}

			name := naming.SecurityGroup(a["name"])

			gs, err := AllPages(ctx, groups.List(sc, groups.ListOpts{ProjectID: a["identity_id"], Name: name}), groups.ExtractGroups)
			if err != nil {
				return err
			}

			if left := naming.Exact(gs, name, func(g groups.SecGroup) string { return g.Name }); len(left) > 0 {
				return fmt.Errorf("a security group %s (%s) is left in %s", name, left[0].ID, a["region"])
			}

			return nil
		})
	}
}

// NeutronSecurityGroupIDs lists the IDs of the security groups of projectID in region called
// exactly neutronName.
func NeutronSecurityGroupIDs(t *testing.T, projectID, region, neutronName string) []string {
	t.Helper()

	gs, err := AllPages(context.Background(), groups.List(TenantNeutron(t, projectID, region), groups.ListOpts{ProjectID: projectID, Name: neutronName}), groups.ExtractGroups)
	if err != nil {
		t.Fatal(err)
	}

	var ids []string
	for _, g := range naming.Exact(gs, neutronName, func(g groups.SecGroup) string { return g.Name }) {
		ids = append(ids, g.ID)
	}

	return ids
}

// NeutronCreateSecurityGroup creates a security group out of band and returns its ID.
func NeutronCreateSecurityGroup(t *testing.T, projectID, region, neutronName string) string {
	t.Helper()

	g, err := groups.Create(context.Background(), TenantNeutron(t, projectID, region), groups.CreateOpts{Name: neutronName}).Extract()
	if err != nil {
		t.Fatalf("creating security group %s: %v", neutronName, err)
	}

	return g.ID
}

// NeutronSecurityGroupRules lists the rules of security group groupID in region.
func NeutronSecurityGroupRules(t *testing.T, projectID, region, groupID string) []rules.SecGroupRule {
	t.Helper()

	all, err := AllPages(context.Background(), rules.List(TenantNeutron(t, projectID, region), rules.ListOpts{SecGroupID: groupID}), rules.ExtractRules)
	if err != nil {
		t.Fatalf("listing the rules of %s: %v", groupID, err)
	}

	return all
}

// NeutronAddSecurityGroupRule adds a rule out of band and returns its ID.
func NeutronAddSecurityGroupRule(t *testing.T, projectID, region string, opts rules.CreateOpts) string {
	t.Helper()

	r, err := rules.Create(context.Background(), TenantNeutron(t, projectID, region), opts).Extract()
	if err != nil {
		t.Fatalf("adding a rule to %s: %v", opts.SecGroupID, err)
	}

	return r.ID
}

// NeutronDeleteSecurityGroupRule deletes a rule out of band.
func NeutronDeleteSecurityGroupRule(t *testing.T, projectID, region, ruleID string) {
	t.Helper()

	if err := rules.Delete(context.Background(), TenantNeutron(t, projectID, region), ruleID).ExtractErr(); err != nil {
		t.Fatalf("deleting rule %s: %v", ruleID, err)
	}
}

// NeutronDeleteSecurityGroup deletes a security group out of band.
func NeutronDeleteSecurityGroup(t *testing.T, projectID, region, groupID string) {
	t.Helper()

	if err := groups.Delete(context.Background(), TenantNeutron(t, projectID, region), groupID).ExtractErr(); err != nil {
		t.Fatalf("deleting security group %s: %v", groupID, err)
	}
}

// GrantServiceUser grants the shared service user role on projectID (as unikorn_identity
// does for its project).
func GrantServiceUser(t *testing.T, projectID, role string) {
	t.Helper()

	sc, _ := IdentityKeystone(t)
	ctx := context.Background()

	all, err := AllPages(ctx, roles.List(sc, roles.ListOpts{Name: role}), roles.ExtractRoles)
	if err != nil || len(all) == 0 {
		t.Fatalf("role %s not found (%v)", role, err)
	}

	if err := roles.Assign(ctx, sc, all[0].ID, roles.AssignOpts{UserID: Client(t).ServiceUserID(), ProjectID: projectID}).ExtractErr(); err != nil {
		t.Fatalf("granting %s on project %s to the service user: %v", role, projectID, err)
	}
}
