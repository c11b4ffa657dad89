package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccUnikorn_importTenant imports, by ID, an identity, a network, a security group, a
// server and a load balancer (a listener, its pool, the server as member) that Unikorn's region
// service made (acctest.CreateUnikornIdentity and its Create*: Unikorn's names, its subnet layout
// and router, its linkage metadata with its own server and region IDs) with `import` blocks. The
// plan imports them without writing anything (checked in the cloud before the apply) and plans
// no change: the identity is adopted read-only (TestAccIdentity_importUnikorn: no trust,
// Unikorn's credential kept), the others as they are (names, rules, metadata, members); the
// apply leaves everything as Unikorn made it, the identity untouched. The same objects are first listed by the list resources, with their identities. The
// destroy deletes them all (the imported identity's plan warns of it).
func TestAccUnikorn_importTenant(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.FirstRegion())
	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-"+f.name, "proj-"+f.name)
	n := u.CreateNetwork(t, f.region, "10.43.0.0/24")
	sg := u.CreateSecurityGroup(t, f.region, acctest.UnikornRule{Direction: "ingress", Protocol: "tcp", PortMin: 22, CIDR: "0.0.0.0/0"})
	s := u.CreateServer(t, n, []acctest.UnikornSecurityGroup{sg}, f.name, f.flavor, f.image, nil)
	lb := u.CreateLoadBalancer(t, n, acctest.UnikornListener{Name: "tcp", Protocol: "TCP", Port: 80, Members: []string{s.PrivateIP}, MemberPort: 80})

	listUnikornObjects(t, s, lb, u.ProjectID)

	region := acctest.RegionLine(f.region)
	// The identity mirrors what its user holds: the keypair's key and the server group's policy
	// (read-only: anything else would need the user's password).
	mirror := fmt.Sprintf("  ssh_public_key     = %q\n  server_group       = { policy = %q }\n",
		strings.TrimSpace(u.KeypairPublicKey), u.ServerGroupPolicy)
	config := identityHCL("test", u.ID, f.name, mirror) +
		acctest.NetworkHCL("test", "test", n.ID, n.CIDR, region) +
		groupHCL("test", "test", region, sg.ID, 22) + fmt.Sprintf(`
resource "unikorn_server" "test" {
  identity_id        = unikorn_identity.test.id
  region             = %[2]q
  name               = %[1]q
  network_id         = unikorn_network.test.id
  flavor_id          = %[3]q
  image_id           = %[4]q
  security_group_ids = [unikorn_security_group.test.id]
  ssh_key            = true # Unikorn (v1.17+) boots with the identity's keypair
}

resource "unikorn_loadbalancer" "test" {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = %[5]q
  network_id  = unikorn_network.test.id
  listeners = [{
    name     = "tcp"
    protocol = "TCP"
    port     = 80
    members  = [{ address = unikorn_server.test.private_ip, port = 80 }]
  }]
}
`, f.name, f.region, f.flavor, f.image, lb.ID) + unikornImports("test", u.ProjectID, f.region, n.NetworkID, sg.GroupID, s.ServerID, lb.LoadBalancerID)

	unchanged := func() error {
		return errors.Join(n.Unchanged(t), sg.Unchanged(t), s.Unchanged(t), lb.Unchanged(t))
	}

	untouched := func() error {
		if err := u.Untouched(t); err != nil {
			return err
		}

		return unchanged()
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckIdentityDestroy(t), acctest.CheckServerDestroy(t), acctest.CheckLoadBalancerDestroy(t),
			unikornNetworkGone(t, n, sg, s)),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						// The plan has imported and read everything: nothing of it was written.
						acctest.ExpectCloud(untouched),
						plancheck.ExpectResourceAction("unikorn_identity.test", plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue("unikorn_identity.test", tfjsonpath.New("trust_id"), knownvalue.Null()),
						plancheck.ExpectResourceAction("unikorn_network.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_security_group.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_server.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_loadbalancer.test", plancheck.ResourceActionNoop),
					},
				},
				// The apply changed nothing Unikorn relies on, the identity included (its password
				// still logs in, its credential authenticates, no trust); the next plan is empty
				// (the test framework checks it).
				Check: func(*terraform.State) error { return untouched() },
			},
		},
	})
}

// listUnikornObjects lists the servers and load balancers of the Unikorn identity (the
// unikorn_server and unikorn_loadbalancer list resources, at the protocol level): exactly the
// one of each it has, with their identities { region, id }, and the server in full when asked.
func listUnikornObjects(t *testing.T, s acctest.UnikornServer, lb acctest.UnikornLoadBalancer, projectID string) {
	t.Helper()

	query := map[string]tftypes.Value{
		"identity_id": tftypes.NewValue(tftypes.String, projectID),
		"region":      tftypes.NewValue(tftypes.String, s.Region),
	}

	for kind, want := range map[string]struct{ id, name string }{
		"unikorn_server": {s.ServerID, s.Name}, "unikorn_loadbalancer": {lb.LoadBalancerID, lb.ID},
	} {
		found := acctest.ListResources(t, kind, query, kind == "unikorn_server")
		if len(found) != 1 || found[0].Identity["id"] != want.id || found[0].Identity["region"] != s.Region ||
			found[0].DisplayName != want.name+" ("+s.Region+")" {
			t.Fatalf("%s listed %+v; want only %s (%s) in %s", kind, found, want.name, want.id, s.Region)
		}

		if kind != "unikorn_server" {
			continue
		}

		for attr, v := range map[string]string{"id": want.id, "name": s.Name, "identity_id": projectID} {
			var got string
			if err := found[0].Resource[attr].As(&got); err != nil || got != v {
				t.Errorf("the listed server's %s is %q (%v), want %q", attr, got, err, v)
			}
		}
	}
}

// unikornImports are the import blocks of the identity (unikorn_identity.<label>, by its project
// ID), network, security group, server and load balancer (each by `REGION/ID`).
func unikornImports(label, projectID, region, networkID, groupID, serverID, lbID string) string {
	var out string

	for _, i := range []struct{ address, id string }{
		{"unikorn_identity." + label, projectID},
		{"unikorn_network." + label, region + "/" + networkID},
		{"unikorn_security_group." + label, region + "/" + groupID},
		{"unikorn_server." + label, region + "/" + serverID},
		{"unikorn_loadbalancer." + label, region + "/" + lbID},
	} {
		out += fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", i.address, i.id)
	}

	return out
}

// unikornNetworkGone is a CheckDestroy of the Unikorn network objects (network, subnet, router,
// security group, server port): asked by ID as an admin, since the identity's project is gone
// with the identity.
func unikornNetworkGone(t *testing.T, n acctest.UnikornNetwork, sg acctest.UnikornSecurityGroup, s acctest.UnikornServer) func(*terraform.State) error {
	return func(*terraform.State) error {
		ctx := context.Background()
		sc := acctest.AdminNeutron(t, n.Region)

		for what, get := range map[string]func() error{
			"network " + n.NetworkID:       func() error { return networks.Get(ctx, sc, n.NetworkID).Err },
			"subnet " + n.SubnetID:         func() error { return subnets.Get(ctx, sc, n.SubnetID).Err },
			"router " + n.RouterID:         func() error { return routers.Get(ctx, sc, n.RouterID).Err },
			"port " + s.PortID:             func() error { return ports.Get(ctx, sc, s.PortID).Err },
			"security group " + sg.GroupID: func() error { return groups.Get(ctx, sc, sg.GroupID).Err },
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
