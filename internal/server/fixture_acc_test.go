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

// fixture is what a server test needs around its servers: a fresh name for its servers (and
// for the identity, network and security groups it makes, unless it builds on the shared
// stack), a region, and the flavor and image it boots.
type fixture struct {
	name string
	// identity is the identity's name: Unikorn's organization is org-<identity>, its project
	// proj-<identity>.
	identity string
	region   string
	flavor   string
	image    string
	sshKey   string
	// bare makes the identity without a server group and keypair.
	bare bool
	// defaultRegion leaves region unset everywhere: the provider's default region applies.
	defaultRegion bool
	// stack are the outputs of the shared stack when the test builds on it (sharedFixture):
	// its configurations then hold only their servers, which name the stack's identity,
	// network and groups by ID.
	stack map[string]string
}

// shared is the identity (with a server group and a keypair), network and security groups a
// and b, in the first region, that most server tests build on: made once per run of the
// package instead of once per test (an identity and a network cost Keystone and Neutron more
// than the servers on them). The tests that prove something about the identity or the network
// themselves, or need another region or a bare identity, make their own (newFixture).
var shared = &acctest.SharedStack{Config: func(name string) string {
	key, err := acctest.NewSSHPublicKey()
	if err != nil {
		panic(err)
	}

	region := acctest.FirstRegion()
	f := fixture{name: name, identity: name, region: region, sshKey: key}

	return f.around() + fmt.Sprintf(`
output "identity_id" { value = unikorn_identity.test.id }
output "identity_name" { value = unikorn_identity.test.name }
output "user_id" { value = unikorn_identity.test.user_id }
output "server_group_id" { value = unikorn_identity.test.server_group_ids[%q] }
output "network_id" { value = unikorn_network.test.id }
output "group_a" { value = unikorn_security_group.a.id }
output "group_b" { value = unikorn_security_group.b.id }
`, region)
}}

// sharedFixture is newFixture in the first region on the shared stack: a fresh name for the
// servers, the stack's identity, network and groups.
func sharedFixture(t *testing.T) fixture {
	t.Helper()
	acctest.PreCheck(t)

	f := newFixture(t, acctest.FirstRegion())
	f.stack = shared.Outputs(t)
	f.identity = f.stack["identity_name"]

	return f
}

func newFixture(t *testing.T, region string) fixture {
	t.Helper()

	name := acctest.IdentityName()

	return fixture{
		name:     name,
		identity: name,
		region:   region,
		flavor:   acctest.FlavorID(t, region, acctest.ServerFlavor),
		image:    acctest.ImageID(t, region, acctest.ServerImage),
		sshKey:   acctest.SSHPublicKey(t),
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

// around is the identity (with server group and keypair unless bare), the network and the two
// security groups the servers of a test go in.
func (f fixture) around() string {
	nova := fmt.Sprintf("  server_group       = {}\n  ssh_public_key     = %q\n", f.sshKey)
	if f.bare {
		nova = ""
	}

	region := f.regionLine()

	return identityHCL("test", f.identity, f.identity, nova) +
		acctest.NetworkHCL("test", "test", f.name, "10.42.0.0/24", region) +
		groupHCL("a", "test", region, f.name+"-a", 22) +
		groupHCL("b", "test", region, f.name+"-b", 443)
}

// locals names what the servers go in, for every configuration of the test: local.identity_id,
// local.network_id, local.group_a and local.group_b are the resources of around, or the IDs of
// the shared stack.
func (f fixture) locals() string {
	if f.stack == nil {
		return `
locals {
  identity_id = unikorn_identity.test.id
  network_id  = unikorn_network.test.id
  group_a     = unikorn_security_group.a.id
  group_b     = unikorn_security_group.b.id
}
`
	}

	return fmt.Sprintf(`
locals {
  identity_id = %q
  network_id  = %q
  group_a     = %q
  group_b     = %q
}
`, f.stack["identity_id"], f.stack["network_id"], f.stack["group_a"], f.stack["group_b"])
}

// config is around (unless the test is on the shared stack), the locals and the given servers.
func (f fixture) config(servers ...srv) string {
	var b strings.Builder

	if f.stack == nil {
		b.WriteString(f.around())
	}

	b.WriteString(f.locals())

	for _, s := range servers {
		fmt.Fprintf(&b, `
resource "unikorn_server" %[1]q {
  identity_id = local.identity_id
%[2]s  name        = %[3]q
  network_id  = %[4]s
  flavor_id   = %[5]s
  image_id    = %[6]q
%[7]s
}
`, or(s.label, "test"), f.regionLine(), or(s.name, f.name), or(s.network, "local.network_id"),
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
func (f fixture) record(ids *fixtureIDs) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		identity, err := f.identityAttrs(s)
		if err != nil {
			return err
		}

		ids.project = identity["id"]

		if ids.network, err = f.networkID(s); err != nil {
			return err
		}

		ids.group, err = f.groupID(s, "a")

		return err
	}
}

// identityAttrs are the attributes of the test's identity: its state, or (on the shared stack)
// its id, user_id and server_group_ids.<region>.
func (f fixture) identityAttrs(s *terraform.State) (map[string]string, error) {
	if f.stack == nil {
		return acctest.Attributes(s, "unikorn_identity.test")
	}

	return map[string]string{
		"id":                           f.stack["identity_id"],
		"user_id":                      f.stack["user_id"],
		"server_group_ids." + f.region: f.stack["server_group_id"],
	}, nil
}

// networkID is the ID of the test's network.
func (f fixture) networkID(s *terraform.State) (string, error) {
	if f.stack != nil {
		return f.stack["network_id"], nil
	}

	a, err := acctest.Attributes(s, "unikorn_network.test")

	return a["id"], err
}

// groupID is the ID of the test's security group label (a or b).
func (f fixture) groupID(s *terraform.State, label string) (string, error) {
	if f.stack != nil {
		return f.stack["group_"+label], nil
	}

	a, err := acctest.Attributes(s, "unikorn_security_group."+label)

	return a["id"], err
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
