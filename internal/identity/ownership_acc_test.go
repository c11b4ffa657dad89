package identity_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The acceptance tests of issue 26 for the identity: a second configuration's identity of the
// same name is refused and leaves the first one as it was (item 1), dropping a role keeps the
// identity's load balancers readable and deletable (item 6), a server group that holds servers
// keeps its policy (item 7), two credentials opened at once both work (item 9), and a destroy
// looks in a region the provider no longer serves (item 11).

// TestAccIdentity_secondConfigurationRefused: workspace A applies an identity (no application
// credential, an instances quota of 7, a server group, a keypair); a second configuration's
// identity of the same name (quota 99, another policy and key) is refused before it changes
// anything. A's quota, its user's password, server group and keypair are as they were, and A's
// next plan is empty.
func TestAccIdentity_secondConfigurationRefused(t *testing.T) {
	name := acctest.IdentityName()
	keyA, keyB := acctest.SSHPublicKey(t), acctest.SSHPublicKey(t)
	password := "tf-acc-" + acctest.RandomName() + "-Pw1!"

	identityOf := func(label string, instances int, policy, key string) string {
		return acctest.IdentityHCL(label, name, fmt.Sprintf(`  application_credential = false
  quotas         = { compute = { instances = %d } }
  server_group   = { policy = %q }
  ssh_public_key = %q
`, instances, policy, key))
	}

	first := identityOf("test", 7, "anti-affinity", keyA)
	second := first + identityOf("other", 99, "affinity", keyB)

	var before map[string]string // A's attributes after its apply

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: first,
				Check: acctest.CheckAttributes(address, func(a map[string]string) error {
					before = a

					return nil
				}),
			},
			{
				PreConfig: func() { acctest.SetUserPassword(t, before["user_id"], password) },
				Config:    second,
				ExpectError: regexp.MustCompile(`(?s)` + words(`Keystone project named "`+naming.IdentityProject(name)+`" already exists`) +
					`.*` + words("it is a finished unikorn_identity of another configuration") + `.*` + words("terraform import unikorn_identity")),
			},
			{
				Config:           first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckAttributes(address, func(a map[string]string) error {
						if a["id"] != before["id"] || a["user_id"] != before["user_id"] || a["trust_id"] != before["trust_id"] {
							return fmt.Errorf("identity now %s / %s / %s, want %s / %s / %s", a["id"], a["user_id"], a["trust_id"],
								before["id"], before["user_id"], before["trust_id"])
						}

						return acctest.CheckUserPassword(t, a["user_id"], password, a["id"])
					}),
					checkIdentityInCloud(t, cloudExpect{
						userRoles: []string{"load-balancer_member", "member"},
						quotas:    map[string]map[string]int64{identity.QuotaCompute: {"instances": 7}},
						sshKey:    keyA,
						policy:    "anti-affinity",
					}),
					acctest.CheckAttributes(address, func(a map[string]string) error {
						for _, region := range acctest.Regions() {
							if key := "server_group_ids." + region; a[key] != before[key] {
								return fmt.Errorf("region %s: server group %s, want %s as before", region, a[key], before[key])
							}
						}

						return nil
					}),
				),
			},
		},
	})
}

// TestAccIdentity_dropRoleKeepsLoadBalancer: an identity with a load balancer drops
// load-balancer_member from its roles. Its user loses the role; the service user keeps it, so
// the load balancer is still refreshed and, at the end, destroyed (Octavia refuses both to a
// service user without the role).
func TestAccIdentity_dropRoleKeepsLoadBalancer(t *testing.T) {
	name := acctest.IdentityName()

	config := func(roles string) string {
		return acctest.IdentityHCL("test", name, roles) +
			acctest.NetworkHCL("test", "test", name, "10.0.0.0/24", "") + fmt.Sprintf(`
resource "unikorn_loadbalancer" "test" {
  identity_id = unikorn_identity.test.id
  network_id  = unikorn_network.test.id
  name        = %q
}
`, name)
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckLoadBalancerDestroy(t), acctest.CheckIdentityDestroy(t)),
		Steps: []resource.TestStep{
			{Config: config("")},
			{
				Config: config(`  roles = ["member"]` + "\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)},
					// The refresh after the apply reads the load balancer in the privileged scope.
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: acctest.CheckAttributes(address, func(a map[string]string) error {
					if got := acctest.RoleNamesOf(t, a["user_id"], a["id"]); !sameStrings(got, []string{"member"}) {
						return fmt.Errorf("identity user roles = %v, want [member]", got)
					}

					svc := acctest.RoleNamesOf(t, acctest.Client(t).ServiceUserID(), a["id"])
					for _, want := range []string{"manager", "member", "load-balancer_member"} {
						if !slices.Contains(svc, want) {
							return fmt.Errorf("service user roles on the project = %v, missing %s", svc, want)
						}
					}

					return nil
				}),
			},
		},
	})
}

// TestAccIdentity_serverGroupPolicyWithServers: the plan refuses to change the policy of a
// server group that holds a server, naming it, and the group and server stay as they were.
func TestAccIdentity_serverGroupPolicyWithServers(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.IdentityName()
	region := acctest.FirstRegion()

	config := func(policy string) string {
		return acctest.IdentityHCL("test", name, fmt.Sprintf("  server_group = { policy = %q }\n", policy)) +
			acctest.NetworkHCL("test", "test", name, "10.0.0.0/24", "") + fmt.Sprintf(`
resource "unikorn_server" "test" {
  identity_id  = unikorn_identity.test.id
  name         = %[1]q
  network_id   = unikorn_network.test.id
  flavor_id    = %[2]q
  image_id     = %[3]q
  server_group = true
}
`, name, acctest.FlavorID(t, region, acctest.ServerFlavor), acctest.ImageID(t, region, acctest.ServerImage))
	}

	group := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckServerDestroy(t), acctest.CheckIdentityDestroy(t)),
		Steps: []resource.TestStep{
			{
				Config:            config("soft-anti-affinity"),
				ConfigStateChecks: []statecheck.StateCheck{group.AddStateValue(address, tfjsonpath.New("server_group_id"))},
			},
			{
				Config: config("soft-affinity"),
				ExpectError: regexp.MustCompile(`(?s)Server group holds servers.*` + regexp.QuoteMeta(naming.IdentityServerGroup(name)) +
					`.*soft-anti-affinity.*` + regexp.QuoteMeta(name) + `\s+\(.*Replace\s+or\s+move\s+them\s+first`),
			},
			{
				// Nothing changed: the same group, still holding the server, and an empty plan.
				Config:            config("soft-anti-affinity"),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{group.AddStateValue(address, tfjsonpath.New("server_group_id"))},
				Check: func(s *terraform.State) error {
					a := s.RootModule().Resources[address].Primary.Attributes
					srv := s.RootModule().Resources["unikorn_server.test"].Primary.Attributes

					priv, err := acctest.Client(t).Privileged(context.Background(), a["id"])
					if err != nil {
						return err
					}

					compute, err := priv.Compute(region)
					if err != nil {
						return err
					}

					g, err := servergroups.Get(context.Background(), compute, a["server_group_ids."+region]).Extract()
					if err != nil {
						return err
					}

					if g.Policy == nil || *g.Policy != "soft-anti-affinity" || len(g.Members) != 1 || g.Members[0] != srv["id"] {
						return fmt.Errorf("server group %s: policy %v, members %v; want soft-anti-affinity holding %s", g.ID, g.Policy, g.Members, srv["id"])
					}

					return nil
				},
			},
		},
	})
}

// TestAccIdentity_narrowedRegions: a server with a volume attached, made in the second region,
// which the provider then no longer serves (its regions narrowed to the first): destroy still
// finds both there and refuses; with force_destroy it deletes them there (the server first, which
// frees the volume), then the identity. Nova is asked for the server and Cinder lists the
// project's volumes: none is left.
func TestAccIdentity_narrowedRegions(t *testing.T) {
	acctest.PreCheck(t)

	kept, dropped := acctest.FirstRegion(), acctest.SecondRegion(t)
	name := acctest.IdentityName()
	narrowed := func(force bool) string {
		return fmt.Sprintf("provider \"unikorn\" {\n  regions = [%q]\n}\n", kept) +
			identityArgs{forceDestroy: force}.config(name)
	}

	var projectID, serverID, volumeID string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckIdentityDestroy(t),
			func(*terraform.State) error {
				if serverID == "" {
					return nil // the test stopped before making it
				}

				if _, err := acctest.Server(t, dropped, serverID); !gophercloud.ResponseCodeIs(err, 404) {
					return fmt.Errorf("server %s is still in %s (err %v): orphaned", serverID, dropped, err)
				}

				if volumeID == "" {
					return nil
				}

				left, err := acctest.ProjectVolumes(t, dropped, projectID)
				if err != nil || len(left) > 0 {
					return fmt.Errorf("Cinder still has volumes %+v of project %s in %s (err %v): orphaned", left, projectID, dropped, err)
				}

				return nil
			},
		),
		Steps: []resource.TestStep{
			{
				Config: identityArgs{}.config(name),
				Check:  acctest.CaptureID(address, &projectID),
			},
			{
				PreConfig: func() {
					serverID = acctest.PreCreateServerWithNetwork(t, projectID, dropped, name)
					volumeID = acctest.CreateVolume(t, acctest.IdentityCinder(t, projectID, dropped), dropped, name+"-data", nil)
					acctest.AttachVolume(t, dropped, serverID, volumeID)
				},
				Config:  narrowed(false),
				Destroy: true,
				ExpectError: regexp.MustCompile(`(?s)still\s+holds.*in\s+region\s+` + regexp.QuoteMeta(dropped) +
					`:.*server\s+"` + regexp.QuoteMeta(name) + `".*volume\s+"` + regexp.QuoteMeta(name+"-data") + `"`),
			},
			{
				Config:           narrowed(true),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
			},
		},
	})
}

// TestAccIdentityCredential_parallelOpens: two unikorn_identity_credential of one identity are
// opened at once (in the plan and again in the apply of one run); each configures a provider
// that authenticates with it.
func TestAccIdentityCredential_parallelOpens(t *testing.T) {
	name := acctest.IdentityName()

	identityOnly := fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name                   = %[1]q
  application_credential = false
}
`, name)

	config := identityOnly + fmt.Sprintf(`
ephemeral "unikorn_identity_credential" "a" {
  identity_id = unikorn_identity.test.id
  ttl         = "10m"
}

ephemeral "unikorn_identity_credential" "b" {
  identity_id = unikorn_identity.test.id
  ttl         = "10m"
}

provider "probe" {
  alias       = "a"
  clouds_yaml = ephemeral.unikorn_identity_credential.a.clouds_yaml
  cloud       = %[2]q
}

provider "probe" {
  alias       = "b"
  clouds_yaml = ephemeral.unikorn_identity_credential.b.clouds_yaml
  cloud       = %[2]q
}

data "probe_token" "a" {
  provider = probe.a
}

data "probe_token" "b" {
  provider = probe.b
}
`, name, naming.IdentityProject(name))

	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   acctest.EphemeralCLI,
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.WithProbe(),
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{Config: identityOnly},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("data.probe_token.a", tfjsonpath.New("user_id"), address, tfjsonpath.New("user_id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.probe_token.b", tfjsonpath.New("user_id"), address, tfjsonpath.New("user_id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.probe_token.a", tfjsonpath.New("project_id"), address, tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.probe_token.b", tfjsonpath.New("project_id"), address, tfjsonpath.New("id"), compare.ValuesSame()),
				},
				// Both short-lived credentials are closed (deleted) by the end of the run.
				Check: checkCredentials(t, 0),
			},
		},
	})
}

// words is a pattern of the words of s as Terraform prints them: any space may be a line break.
func words(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		fields[i] = regexp.QuoteMeta(f)
	}

	return strings.Join(fields, `\s+`)
}
