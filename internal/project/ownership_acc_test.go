package project_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/project"
)

// handMadeProject makes a project called name in domainID out of band, tagged "team", with the
// extra attributes (marks), and deletes it when the test ends.
func handMadeProject(t *testing.T, domainID, name string, extra map[string]any) string {
	t.Helper()

	sc := acctest.AdminKeystone(t)

	p, err := projects.Create(context.Background(), sc, projects.CreateOpts{Name: name, DomainID: domainID, Tags: []string{"team"},
		Extra: extra}).Extract()
	if err != nil {
		t.Fatalf("creating project %s: %v", name, err)
	}

	t.Cleanup(func() {
		if err := projects.Delete(context.Background(), sc, p.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting project %s: %v", p.ID, err)
		}
	})

	return p.ID
}

// untouched asks Keystone that project id (named name, in domainID) is as it was made by hand:
// tagged "team" only, unmarked, with no role assignment (the service user was granted nothing),
// and that no group of its group's name was made.
func untouched(t *testing.T, id, domainID, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		ctx := context.Background()

		p, err := projects.Get(ctx, acctest.AdminKeystone(t), id).Extract()
		if err != nil || !slices.Equal(p.Tags, []string{"team"}) || naming.MarkOf(p.Extra).Marked() {
			return fmt.Errorf("project %s: %+v (%v), want it untouched (tagged team only, unmarked)", id, p, err)
		}

		if got, err := acctest.Assignments(ctx, t, id); err != nil || len(got) != 0 {
			return fmt.Errorf("project %s has the role assignments %v (%v), want none", id, got, err)
		}

		g, err := cloud.FindOne(ctx, groups.List(acctest.AdminKeystone(t), groups.ListOpts{DomainID: domainID, Name: naming.ProjectGroup(name)}),
			groups.ExtractGroups, "group", naming.ProjectGroup(name), func(g groups.Group) string { return g.Name },
			func(g groups.Group) string { return g.ID })
		if err != nil || g != nil {
			return fmt.Errorf("group %s: %+v (%v), want none made", naming.ProjectGroup(name), g, err)
		}

		return nil
	}
}

// TestAccProject_existingRefused: a project of the name made by hand in the domain is refused by
// a unikorn_project of that name before anything is written: not tagged, nothing granted, no
// group made (issue 26, item 2).
func TestAccProject_existingRefused(t *testing.T) {
	acctest.PreCheck(t)

	domainID, name := acctest.TestDomain(t), acctest.RandomName()
	id := handMadeProject(t, domainID, name, nil)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDestroy(t, nil), untouched(t, id, domainID, name)),
		Steps: []resource.TestStep{{
			Config:      projectConfig(domainID, name, "", ""),
			ExpectError: regexp.MustCompile(`(?s)Project exists already.*` + id + `.*did\s+not\s+make\s+it.*terraform\s+import\s+unikorn_project`),
		}},
	})
}

// TestAccProject_identityNameRefused: an identity's project (unikorn-identity-…, in the managed
// domain) is never taken by a unikorn_project of its name: the plan fails, and the project is
// neither tagged nor granted, nor given a group (issue 26, item 12).
func TestAccProject_identityNameRefused(t *testing.T) {
	acctest.PreCheck(t)

	managed, err := acctest.Client(t).ManagedDomainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	name := naming.IdentityProject(acctest.RandomName())
	id := handMadeProject(t, managed, name, nil)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDestroy(t, nil), untouched(t, id, managed, name)),
		Steps: []resource.TestStep{
			{
				Config:      fmt.Sprintf("resource \"unikorn_project\" \"test\" {\n  name = %q\n}\n", name),
				ExpectError: regexp.MustCompile(`(?s)Not a project for unikorn_project.*identities`),
			},
			{
				// Nor with the domain given.
				Config:      projectConfig(managed, name, "", ""),
				ExpectError: regexp.MustCompile(`(?s)Not a project for unikorn_project.*identities`),
			},
		},
	})
}

// TestAccProject_interruptedCreateAdopted: a project made directly with the creation mark of
// unikorn_project and no completion mark (what a create killed after its POST leaves) is adopted
// by the unikorn_project of its name: same ID, tagged and granted, marked finished.
func TestAccProject_interruptedCreateAdopted(t *testing.T) {
	acctest.PreCheck(t)

	domainID, name := acctest.TestDomain(t), acctest.RandomName()
	id := handMadeProject(t, domainID, name, naming.MadeFor(project.TypeName).Extra())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t, nil),
		Steps: []resource.TestStep{{
			Config:            projectConfig(domainID, name, `tags = ["team"]`, ""),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(id))},
			Check: func(*terraform.State) error {
				p, err := projects.Get(context.Background(), acctest.AdminKeystone(t), id).Extract()
				if err != nil || !slices.Contains(p.Tags, naming.HumanProjectTag) || naming.MarkOf(p.Extra) != naming.MadeFor(project.TypeName).Done() {
					return fmt.Errorf("project %s: %+v (%v), want it tagged and marked finished", id, p, err)
				}

				return nil
			},
		}},
	})
}
