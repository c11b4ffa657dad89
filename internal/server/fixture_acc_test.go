package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

const address = "unikorn_server.test"

// fixture is what a server test needs around its servers: a fresh name for the identity,
// network and security groups, a region, and the flavor and image it boots.
type fixture struct {
	name   string
	region string
	flavor string
	image  string
	sshKey string
	// bare makes the identity without a server group and keypair.
	bare bool
	// defaultRegion leaves region unset everywhere: the provider's default region applies.
	defaultRegion bool
}

func newFixture(t *testing.T, region string) fixture {
	t.Helper()

	return fixture{
		name:   acctest.IdentityName(),
		region: region,
		flavor: acctest.FlavorID(t, region, acctest.ServerFlavor),
		image:  acctest.ImageID(t, region, acctest.ServerImage),
		sshKey: acctest.SSHPublicKey(t),
	}
}

// srv is one unikorn_server of a test configuration. Empty fields take the fixture's.
type srv struct {
	label, name, flavor, image string
	// network and flavorExpr are HCL expressions for network_id (default: the fixture's
	// network) and flavor_id (default: flavor, quoted).
	network, flavorExpr string
	// extra are further HCL lines.
	extra string
}

// regionLine is the region argument of the fixture's resources ("" when the default applies).
func (f fixture) regionLine() string {
	if f.defaultRegion {
		return ""
	}

	return acctest.RegionLine(f.region)
}

// identityHCL is acctest.IdentityHCL of Unikorn's organization org-<org> and project
// proj-<org>, with the further argument lines extra.
func identityHCL(label, name, org, extra string) string {
	unikorn := fmt.Sprintf("  organization_id    = \"org-%[1]s\"\n  unikorn_project_id = \"proj-%[1]s\"\n", org)

	return acctest.IdentityHCL(label, name, unikorn+extra)
}

// groupHCL is the unikorn_security_group label of the identity owner, called name, that lets in
// TCP on port; region is its region argument line (acctest.RegionLine, or "" for the
// provider's default).
func groupHCL(label, owner, region, name string, port int) string {
	return fmt.Sprintf(`
resource "unikorn_security_group" %[1]q {
  identity_id = unikorn_identity.%[2]s.id
%[3]s  name        = %[4]q
  rules       = [{ direction = "ingress", protocol = "tcp", port = %[5]d }]
}
`, label, owner, region, name, port)
}

// config is the identity (with server group and keypair unless bare), the network, two
// security groups and the given servers.
func (f fixture) config(servers ...srv) string {
	var b strings.Builder

	nova := fmt.Sprintf("  server_group       = {}\n  ssh_public_key     = %q\n", f.sshKey)
	if f.bare {
		nova = ""
	}

	region := f.regionLine()

	b.WriteString(identityHCL("test", f.name, f.name, nova) +
		acctest.NetworkHCL("test", "test", f.name, "10.42.0.0/24", region) +
		groupHCL("a", "test", region, f.name+"-a", 22) +
		groupHCL("b", "test", region, f.name+"-b", 443))

	for _, s := range servers {
		fmt.Fprintf(&b, `
resource "unikorn_server" %[1]q {
  identity_id = unikorn_identity.test.id
%[2]s  name        = %[3]q
  network_id  = %[4]s
  flavor_id   = %[5]s
  image_id    = %[6]q
%[7]s
}
`, or(s.label, "test"), f.regionLine(), or(s.name, f.name), or(s.network, "unikorn_network.test.id"),
			or(s.flavorExpr, strconv.Quote(or(s.flavor, f.flavor))), or(s.image, f.image), s.extra)
	}

	return b.String()
}

// or is s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}

	return s
}

// settled are the checks after every apply: nothing left to do, and a refresh reads back
// exactly what the apply recorded (what `plan -refresh-only` would show is empty).
func settled() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
	}
}

func updatesInPlace() resource.ConfigPlanChecks {
	c := settled()
	c.PreApply = []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)}

	return c
}

func checkDestroy(t *testing.T) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(acctest.CheckServerDestroy(t), acctest.CheckIdentityDestroy(t))
}

// step is one configuration of a test on one server.
type step struct {
	server srv
	// plan are further checks of the plan before the apply.
	plan  []plancheck.PlanCheck
	state []statecheck.StateCheck
	check resource.TestCheckFunc
}

// inPlace is the test case of steps on one server: the first makes it, every later one updates
// it in place; every step keeps the server's ID and its port, and ends settled.
func (f fixture) inPlace(t *testing.T, steps ...step) resource.TestCase {
	serverID := statecheck.CompareValue(compare.ValuesSame())
	portID := statecheck.CompareValue(compare.ValuesSame())

	out := make([]resource.TestStep, 0, len(steps))

	for i, s := range steps {
		plan := settled()
		if i > 0 {
			plan = updatesInPlace()
		}

		plan.PreApply = append(plan.PreApply, s.plan...)

		out = append(out, resource.TestStep{
			Config:           f.config(s.server),
			ConfigPlanChecks: plan,
			ConfigStateChecks: append([]statecheck.StateCheck{
				serverID.AddStateValue(address, tfjsonpath.New("id")),
				portID.AddStateValue(address, tfjsonpath.New("port_id")),
			}, s.state...),
			Check: s.check,
		})
	}

	return resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps:                    out,
	}
}

// fixtureIDs are the IDs of the fixture's identity (its project), network and security group a.
type fixtureIDs struct {
	project, network, group string
}

// record is a check that records the fixture's IDs into ids.
func (ids *fixtureIDs) record(s *terraform.State) error {
	for addr, id := range map[string]*string{
		"unikorn_identity.test": &ids.project, "unikorn_network.test": &ids.network, "unikorn_security_group.a": &ids.group,
	} {
		a, err := acctest.Attributes(s, addr)
		if err != nil {
			return err
		}

		*id = a["id"]
	}

	return nil
}

// nova checks the server unikorn_server.test as Nova holds it.
func nova(t *testing.T, check func(srv *servers.Server, a map[string]string, s *terraform.State) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := acctest.Attributes(s, address)
		if err != nil {
			return err
		}

		srv, err := acctest.Server(t, a["region"], a["id"])
		if err != nil {
			return fmt.Errorf("reading server %s: %w", a["id"], err)
		}

		return check(srv, a, s)
	}
}
