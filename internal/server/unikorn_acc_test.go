package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccUnikorn_importTenant imports, by ID, an identity, a network, a security group, a
// server and a load balancer (a listener, its pool, the server as member) that Unikorn's region
// service made (acctest.CreateUnikornObjects: Unikorn's names, its subnet layout and router,
// its linkage metadata with its own server and region IDs) with `import` blocks. The plan imports them without writing anything (checked in the cloud before
// the apply), and changes only the identity, in place: the provider needs what Unikorn did not
// make, its trust and a credential whose secret it knows (TestAccIdentity_importUnikorn). The
// others plan no change (names, rules, metadata, members as they are), and the apply leaves them as Unikorn made
// them. The same objects are first listed by the list resources, with their identities.
func TestAccUnikorn_importTenant(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	u := acctest.CreateUnikornIdentity(t, "org-"+f.name, "proj-"+f.name)
	o := acctest.CreateUnikornObjects(t, u, "org-"+f.name, "proj-"+f.name, f.region, f.name, "10.43.0.0/24", f.flavor, f.image)

	before, err := o.Snapshot(t)
	if err != nil {
		t.Fatal(err)
	}

	listUnikornObjects(t, o, u.ProjectID)

	region := acctest.RegionLine(f.region)
	config := identityHCL("test", u.Name, f.name, "") +
		acctest.NetworkHCL("test", "test", f.name, o.CIDR, region) +
		groupHCL("test", "test", region, f.name, 22) + fmt.Sprintf(`
resource "unikorn_server" "test" {
  identity_id        = unikorn_identity.test.id
  region             = %[2]q
  name               = %[1]q
  network_id         = unikorn_network.test.id
  flavor_id          = %[3]q
  image_id           = %[4]q
  security_group_ids = [unikorn_security_group.test.id]
}

resource "unikorn_loadbalancer" "test" {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = %[1]q
  network_id  = unikorn_network.test.id
  listeners = [{
    name     = "tcp"
    protocol = "TCP"
    port     = 80
    members  = [{ address = unikorn_server.test.private_ip, port = 80 }]
  }]
}
`, f.name, f.region, f.flavor, f.image) + o.TFImports("test")

	untouched := func() error {
		if err := u.Untouched(t); err != nil {
			return err
		}

		return o.Untouched(t, before)
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckIdentityDestroy(t), acctest.CheckServerDestroy(t), acctest.CheckLoadBalancerDestroy(t),
			o.CheckNetworkGone(t)),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						// The plan has imported and read everything: nothing of it was written.
						cloudCheck(untouched),
						plancheck.ExpectResourceAction("unikorn_identity.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("unikorn_network.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_security_group.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_server.test", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("unikorn_loadbalancer.test", plancheck.ResourceActionNoop),
					},
				},
				// The apply changed the identity only; the next plan is empty (the test
				// framework checks it).
				Check: func(*terraform.State) error { return o.Untouched(t, before) },
			},
		},
	})
}

// listUnikornObjects lists the servers and load balancers of the Unikorn identity (the
// unikorn_server and unikorn_loadbalancer list resources, at the protocol level): exactly the
// one of each it has, with their identities { region, id }, and the server in full when asked.
func listUnikornObjects(t *testing.T, o acctest.UnikornObjects, projectID string) {
	t.Helper()

	query := map[string]tftypes.Value{
		"identity_id": tftypes.NewValue(tftypes.String, projectID),
		"region":      tftypes.NewValue(tftypes.String, o.Region),
	}

	for kind, id := range map[string]string{"unikorn_server": o.ServerID, "unikorn_loadbalancer": o.LoadBalancerID} {
		found := acctest.ListResources(t, kind, query, kind == "unikorn_server")
		if len(found) != 1 || found[0].Identity["id"] != id || found[0].Identity["region"] != o.Region ||
			found[0].DisplayName != o.Name+" ("+o.Region+")" {
			t.Fatalf("%s listed %+v; want only %s (%s) in %s", kind, found, o.Name, id, o.Region)
		}

		if kind != "unikorn_server" {
			continue
		}

		for attr, want := range map[string]string{"id": id, "name": o.Name, "identity_id": projectID, "network_id": o.NetworkID} {
			var v string
			if err := found[0].Resource[attr].As(&v); err != nil || v != want {
				t.Errorf("the listed server's %s is %q (%v), want %q", attr, v, err, want)
			}
		}
	}
}

// cloudCheck is a plan check that fails when check, asked of the cloud, does.
type cloudCheck func() error

func (c cloudCheck) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c()
}
