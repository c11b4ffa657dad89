package project_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

const address = "unikorn_project.test"

// people are the users and the group of the test's domain, by name, with their IDs.
type people map[string]string

func newPeople(t *testing.T, domainID string) people {
	p := people{}
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		p[name] = acctest.CreateUser(t, domainID, name)
	}

	p["auditors"] = acctest.CreateGroup(t, domainID, "auditors")

	return p
}

// projectConfig is the unikorn_project "test" in domainID, with the extra arguments and the
// other resources.
func projectConfig(domainID, name, extra, others string) string {
	return fmt.Sprintf(`
resource "unikorn_project" "test" {
  name      = %[2]q
  domain_id = %[1]q
  %[3]s
}
%[4]s`, domainID, name, extra, others)
}

// tenantObjects are a network and a security group in the project (project_id).
func tenantObjects(name string) string {
	return fmt.Sprintf(`
resource "unikorn_network" "test" {
  project_id = unikorn_project.test.id
  name       = %[1]q
  cidr       = "10.77.0.0/24"
}

resource "unikorn_security_group" "test" {
  project_id = unikorn_project.test.id
  name       = %[1]q
  rules      = [{ direction = "ingress", protocol = "tcp", port = 22 }]
}
`, name)
}

// TestAccProject_basic walks a human project in an SSO-like domain of its own through create
// (group, bindings of users and groups, tags, quotas: each checked in the cloud), import by ID
// and by DOMAIN_ID/name, an update in place (rename with its group, a binding moved from one
// user to another, quotas), a network and a security group made in it with project_id (and
// the network imported), drift (an assignment revoked out of band comes back, one made by
// someone else stays), a destroy refused while the project holds a volume, and force_destroy.
func TestAccProject_basic(t *testing.T) {
	acctest.PreCheck(t)

	domainID := acctest.TestDomain(t)
	who := newPeople(t, domainID)
	name, renamed := acctest.RandomName(), acctest.RandomName()

	var (
		projectID string
		volumeIDs []string
	)

	sameID := statecheck.CompareValue(compare.ValuesSame())

	first := projectConfig(domainID, name, fmt.Sprintf(`
  description = "research"
  tags        = ["team=research"]
  quotas      = { compute = { instances = 7 }, network = { network = 5 } }
  role_bindings = [
    { role = "member", users = ["alice"], groups = [%q] },
    { role = "reader", users = ["bob"], groups = ["auditors"] },
  ]`, naming.ProjectGroup(name)), "")

	updated := func(force bool) string {
		return projectConfig(domainID, renamed, fmt.Sprintf(`
  description   = "research, renamed"
  tags          = ["team=research", "cost-centre=42"]
  force_destroy = %t
  quotas        = { compute = { instances = 8 } }
  role_bindings = [
    { role = "member", users = ["alice"], groups = [%q] },
    { role = "reader", users = ["carol"], groups = [%q] },
  ]`, force, naming.ProjectGroup(renamed), who["auditors"]), "")
	}

	withTenantObjects := projectConfig(domainID, renamed, fmt.Sprintf(`
  description   = "research, renamed"
  tags          = ["team=research", "cost-centre=42"]
  quotas        = { compute = { instances = 8 } }
  role_bindings = [
    { role = "member", users = ["alice"], groups = [%q] },
    { role = "reader", users = ["carol"], groups = [%q] },
  ]`, naming.ProjectGroup(renamed), who["auditors"]), tenantObjects(renamed))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t, &volumeIDs),
		Steps: []resource.TestStep{
			{
				Config:            first,
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(address, tfjsonpath.New("id"))},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID(address, &projectID),
					checkKeystone(t, name, domainID, []string{"team=research"}),
					checkAssignments(t, &projectID, who, []string{"member user:alice", "member group:own", "reader user:bob", "reader group:auditors"}),
					checkQuotas(t, &projectID, map[string]map[string]int64{quota.Compute: {"instances": 7, "cores": -1}, quota.Network: {"network": 5}}),
				),
			},
			acctest.ImportStep(address, nil),
			acctest.ImportStep(address, acctest.ImportedAs(domainID+"/"+name)),
			{
				Config:            updated(false),
				ConfigPlanChecks:  acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(address, tfjsonpath.New("id"))},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkKeystone(t, renamed, domainID, []string{"cost-centre=42", "team=research"}),
					checkAssignments(t, &projectID, who, []string{"member user:alice", "member group:own", "reader user:carol", "reader group:auditors"}),
					checkQuotas(t, &projectID, map[string]map[string]int64{quota.Compute: {"instances": 8}, quota.Network: {"network": -1}}),
				),
			},
			{
				Config: withTenantObjects,
				Check:  checkTenantObjects(t, &projectID),
			},
			acctest.ImportStep("unikorn_network.test", acctest.ImportID("unikorn_network.test", "id")),
			{
				// Drift: alice's binding revoked and dave given a role by someone else.
				PreConfig: func() {
					acctest.Unassign(t, projectID, "member", who["alice"])
					acctest.Assign(t, projectID, "reader", who["dave"], false)
				},
				Config:           withTenantObjects,
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check: checkAssignments(t, &projectID, who,
					[]string{"member user:alice", "member group:own", "reader user:carol", "reader user:dave", "reader group:auditors"}),
			},
			{
				// A volume made in the project by one of its people: the destroy refuses.
				Config:    updated(false),
				PreConfig: func() { volumeIDs = append(volumeIDs, makeVolume(t, projectID)) },
			},
			{Config: updated(false), Destroy: true, ExpectError: regexp.MustCompile(`(?s)Project still holds tenant objects.*volume`)},
			{Config: updated(true)},
		},
	})
}

// checkKeystone asks Keystone for the project and its group: the state's ID, name, domain and
// tags (with the provider's mark), and the group <name>-members in the same domain.
func checkKeystone(t *testing.T, name, domainID string, tags []string) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		ctx := context.Background()
		sc := acctest.AdminKeystone(t)

		p, err := projects.Get(ctx, sc, a["id"]).Extract()
		if err != nil {
			return err
		}

		wantTags := append(slices.Clone(tags), naming.HumanProjectTag)
		slices.Sort(wantTags)
		slices.Sort(p.Tags)

		if p.Name != name || p.DomainID != domainID || !p.Enabled || p.Description != a["description"] || !slices.Equal(p.Tags, wantTags) {
			return fmt.Errorf("project %+v; want %s in %s with tags %v", p, name, domainID, wantTags)
		}

		g, err := groups.Get(ctx, sc, a["group_id"]).Extract()
		if err != nil || g.Name != naming.ProjectGroup(name) || g.DomainID != domainID || a["group_name"] != g.Name {
			return fmt.Errorf("group %+v (%v); want %s in %s", g, err, naming.ProjectGroup(name), domainID)
		}

		return nil
	})
}

// checkAssignments asks Keystone for the role assignments on the project: want (names of
// who, "own" for the project's group) and the service user's manager, member and
// load-balancer_member, nothing else.
func checkAssignments(t *testing.T, projectID *string, who people, want []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		svc := acctest.Client(t).ServiceUserID()
		exp := []string{"load-balancer_member user:" + svc, "manager user:" + svc, "member user:" + svc}

		for _, w := range want {
			var role, kind, ref string
			if _, err := fmt.Sscanf(regexp.MustCompile(`[ :]`).ReplaceAllString(w, " "), "%s %s %s", &role, &kind, &ref); err != nil {
				return err
			}

			id := who[ref]
			if ref == "own" {
				id = s.RootModule().Resources[address].Primary.Attributes["group_id"]
			}

			exp = append(exp, fmt.Sprintf("%s %s:%s", role, kind, id))
		}

		slices.Sort(exp)

		got, err := acctest.Assignments(context.Background(), t, *projectID)
		if err != nil {
			return err
		}

		if !slices.Equal(got, exp) {
			return fmt.Errorf("assignments on project %s:\n  got  %v\n  want %v", *projectID, got, exp)
		}

		return nil
	}
}

// checkQuotas reads the project's quotas in every served region and compares the given ones.
func checkQuotas(t *testing.T, projectID *string, want map[string]map[string]int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		c := acctest.Client(t)

		for _, region := range c.Regions() {
			admin := cloud.NewTenant(c.Base(), *projectID, region)

			got, err := quota.PerRegion(ctx, []*cloud.Tenant{admin})
			if err != nil {
				return err
			}

			for g, fields := range want {
				for k, v := range fields {
					if got[0][g][k] != v {
						return fmt.Errorf("quota %s.%s in %s is %d, want %d", g, k, region, got[0][g][k], v)
					}
				}
			}
		}

		return nil
	}
}

// checkTenantObjects asks Neutron that the network and security group of the state are in the
// project.
func checkTenantObjects(t *testing.T, projectID *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ctx := context.Background()

		for _, addr := range []string{"unikorn_network.test", "unikorn_security_group.test"} {
			a := s.RootModule().Resources[addr].Primary.Attributes
			if a["project_id"] != *projectID || a["identity_id"] != "" {
				return fmt.Errorf("%s: project_id %q identity_id %q, want project %s", addr, a["project_id"], a["identity_id"], *projectID)
			}
		}

		a := s.RootModule().Resources["unikorn_network.test"].Primary.Attributes

		n, err := networks.Get(ctx, acctest.AdminNeutron(t, a["region"]), a["id"]).Extract()
		if err != nil || n.ProjectID != *projectID || n.Name != naming.Network(a["name"]) {
			return fmt.Errorf("network %+v (%v); want it in project %s", n, err, *projectID)
		}

		return nil
	}
}

// makeVolume makes a 1 GiB volume in the project in the default region, as one of its users
// would, and returns its ID.
func makeVolume(t *testing.T, projectID string) string {
	t.Helper()

	c := acctest.Client(t)

	tenant, err := c.ProjectTenant(context.Background(), projectID, "", cloud.Privileged)
	if err != nil {
		t.Fatal(err)
	}

	sc, err := tenant.BlockStorage()
	if err != nil {
		t.Fatal(err)
	}

	v, err := volumes.Create(context.Background(), sc, volumes.CreateOpts{Size: 1, Name: acctest.RandomName()}, nil).Extract()
	if err != nil {
		t.Fatalf("creating a volume in project %s: %v", projectID, err)
	}

	return v.ID
}
