package server_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccServer_pinned: servers pinned to a compute host. As the domain-inherited admin service
// user (the only grant model under which stock Nova policy lets the privileged scope target a
// host), the plan refuses a pinned_only flavor without host, a host Nova does not know, a host
// whose Placement inventory has no room for the flavor (naming the shortfall) and ssh_key on a
// pinned server; then a pinned server is made, on that host in Nova, by the service user in the
// identity's project.
//
// The service user is the clouds.yaml entry acctest.InheritedCloud (the local cloud's
// unikorn-inherited): admin inside every identity's project, where pinned servers are created.
func TestAccServer_pinned(t *testing.T) {
	acctest.PreCheck(t)

	inherited := acctest.NeedInheritedCloud(t)

	f := newFixture(t, acctest.FirstRegion())
	f.bare = true
	host := acctest.ComputeHost(t, f.region)
	pinnedOnly := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 512, DiskGB: 1})
	huge := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 4000000, DiskGB: 1})

	provider := fmt.Sprintf(`
provider "unikorn" {
  cloud   = %[1]q
  flavors = [{ id = %[2]q, pinned_only = true }]
}
`, inherited, pinnedOnly)

	steps := []resource.TestStep{{Config: provider + f.config()}}

	steps = append(steps, f.refusals(true, provider,
		rejected{server: srv{flavor: pinnedOnly}, err: says("Flavor requires a host", "is for pinned servers only")},
		rejected{server: pinned(f.flavor, "tf-acc-no-such-host", ""), err: says("Unknown host", "Nova has no compute host tf-acc-no-such-host in region "+f.region, host)},
		rejected{server: pinned(huge, host, ""), err: says("Host has no room for the flavor", "host "+host+" in region "+f.region, "MEMORY_MB: the flavor needs 4000000")},
		rejected{server: pinned(pinnedOnly, host, "  ssh_key = true"), err: says("ssh_key on a pinned server", "user_data")},
	)...)

	steps = append(steps, resource.TestStep{
		Config:           provider + f.config(pinned(pinnedOnly, host, "")),
		ConfigPlanChecks: settled(),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(address, tfjsonpath.New("host"), knownvalue.StringExact(host)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("ACTIVE")),
		},
		Check: nova(t, func(srv *servers.Server, _ map[string]string, s *terraform.State) error {
			id, err := acctest.Attributes(s, "unikorn_identity.test")
			if err != nil {
				return err
			}

			switch user := acctest.CloudUserID(t, inherited); {
			case srv.Host != host:
				return fmt.Errorf("server %s runs on host %q, want %q", srv.ID, srv.Host, host)
			case srv.UserID != user || srv.TenantID != id["id"]:
				return fmt.Errorf("server %s made by user %s in project %s, want the service user %s in the identity's project %s",
					srv.ID, srv.UserID, srv.TenantID, user, id["id"])
			}

			return nil
		}),
	})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps:                    steps,
	})
}

// TestAccServer_pinnedRefused: as the cloud-admin service user, which holds no admin inside
// the identity's project, stock Nova policy refuses the host-targeted create after the
// Placement preflight passed: the error names the policy and what allows it, and the port made
// for the server is deleted again, so nothing of the server is left. Another cloud's policy
// may well allow it (legacy rules let an admin anywhere target a host).
func TestAccServer_pinnedRefused(t *testing.T) {
	acctest.PreCheck(t)
	acctest.LocalBedOnly(t, "stock Nova policy with the new defaults, which refuses a host-targeted create to the service user")

	f := newFixture(t, acctest.FirstRegion())
	f.bare = true
	host := acctest.ComputeHost(t, f.region)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{Config: f.config()},
			{
				Config: f.config(pinned(f.flavor, host, "")),
				ExpectError: regexp.MustCompile(says("Nova refused a server create on host "+host,
					"compute:servers:create:requested_destination", "--inherited admin")),
			},
			{
				Config: f.config(),
				Check: acctest.CheckAttributes("unikorn_identity.test", func(a map[string]string) error {
					return acctest.ServerLeftovers(t, f.region, a["id"], f.name)
				}),
			},
		},
	})
}

// pinned is a server of flavor pinned to host, with extra HCL lines.
func pinned(flavor, host, extra string) srv {
	return srv{flavor: flavor, extra: fmt.Sprintf("  host = %q\n%s", host, extra)}
}
