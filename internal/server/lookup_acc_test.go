package server_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccServerLookup: the unikorn_server data source finds the server that unikorn_server made
// in the same configuration (on the shared stack), by name in its identity and by id (in every
// served region), with the resource's attributes; a name no server has is refused.
func TestAccServerLookup(t *testing.T) {
	f := sharedFixture(t)
	config := f.config(srv{}) + fmt.Sprintf(`
data "unikorn_server" "by_name" {
  identity_id = local.identity_id
  region      = %[1]q
  name        = unikorn_server.test.name
}

data "unikorn_server" "by_id" {
  id = unikorn_server.test.id
}
`, f.region)

	var checks []statecheck.StateCheck

	for _, a := range []string{
		"id", "name", "identity_id", "region", "port_id", "private_ip", "mac_address", "network_id", "flavor_id", "image_id",
		"status", "power_state", "provider_id", "security_group_ids", "metadata", "server_group", "ssh_key", "public_ip",
		"root_volume_id",
	} {
		for _, label := range []string{"by_name", "by_id"} {
			checks = append(checks, statecheck.CompareValuePairs(address, tfjsonpath.New(a),
				"data.unikorn_server."+label, tfjsonpath.New(a), compare.ValuesSame()))
		}
	}

	checks = append(checks, statecheck.ExpectKnownValue("data.unikorn_server.by_id", tfjsonpath.New("region"), knownvalue.StringExact(f.region)))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: checks},
			{
				Config:      config + fmt.Sprintf("\ndata \"unikorn_server\" \"missing\" {\n  identity_id = local.identity_id\n  name        = \"%s-none\"\n}\n", f.name),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)No server found.*No server is called "%s-none" in identity_id`, f.name)),
			},
		},
	})
}

// TestAccServerLookup_unikorn: in an identity that Unikorn's region service made, with two of its
// servers (acctest.CreateUnikornIdentity, CreateNetwork and CreateServer, which mirror uni-region's
// pkg/providers/internal/openstack/provider.go: CreateIdentity, CreateNetwork and CreateServer at
// v1.19.0: the port server-<Unikorn server ID>, the Nova server of the user's display name, Unikorn's
// metadata), the data source finds each server by its display name and one by id, on Unikorn's
// port; a provider run that reads the three look-ups lists the identity's servers once. After
// the second server is renamed to the first's name in Nova (which lets two servers share one),
// the name is refused with both IDs.
func TestAccServerLookup_unikorn(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.FirstRegion())
	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-"+f.name, "proj-"+f.name)
	n := u.CreateNetwork(t, f.region, "10.44.0.0/24")
	a := u.CreateServer(t, n, nil, f.name+"-a", f.flavor, f.image, nil)
	b := u.CreateServer(t, n, nil, f.name+"-b", f.flavor, f.image, nil)

	lookup := func(label, name string) string {
		return fmt.Sprintf("\ndata \"unikorn_server\" %q {\n  identity_id = %q\n  region      = %q\n  name        = %q\n}\n",
			label, u.ProjectID, f.region, name)
	}

	config := lookup("a", a.Name) + lookup("b", b.Name) + fmt.Sprintf("\ndata \"unikorn_server\" \"by_id\" {\n  id = %q\n}\n", a.ServerID)

	var checks []statecheck.StateCheck

	for label, s := range map[string]acctest.UnikornServer{"a": a, "b": b, "by_id": a} {
		at := "data.unikorn_server." + label
		checks = append(checks,
			statecheck.ExpectKnownValue(at, tfjsonpath.New("id"), knownvalue.StringExact(s.ServerID)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("name"), knownvalue.StringExact(s.Name)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("identity_id"), knownvalue.StringExact(u.ProjectID)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("port_id"), knownvalue.StringExact(s.PortID)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("private_ip"), knownvalue.StringExact(s.PrivateIP)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("network_id"), knownvalue.StringExact(n.NetworkID)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("metadata").AtMapKey("serverID"), knownvalue.StringExact(s.ID)),
			statecheck.ExpectKnownValue(at, tfjsonpath.New("ssh_key"), knownvalue.Bool(true)),
		)
	}

	log := acctest.NewRequestLog()

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: checks, Check: acctest.ListedOnce(t, log, 3, "Nova's servers", "/servers/detail")},
			{
				PreConfig: func() {
					_, err := servers.Update(context.Background(), acctest.AdminCompute(t, f.region), b.ServerID,
						servers.UpdateOpts{Name: a.Name}).Extract()
					if err != nil {
						t.Fatalf("renaming server %s: %v", b.ServerID, err)
					}
				},
				Config: lookup("a", a.Name),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)Several servers found.*(%[1]s.*%[2]s|%[2]s.*%[1]s)`,
					a.ServerID, b.ServerID)),
			},
		},
	})
}
