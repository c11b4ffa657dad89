package project_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	secgroups "github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/project"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_project", nil, sweepProjects)
}

// sweepProjects deletes, with whatever they still hold, the projects of unikorn_project whose
// names carry the test prefix, and their groups. Run with `go test ./internal/project/ -sweep=all`.
var sweepProjects = acctest.GlobalSweep("project",
	func(c *cloud.Client) (*project.Service, error) { return project.NewService(c, nil) },
	func(ctx context.Context, svc *project.Service) ([]projects.Project, error) {
		return cloud.ListAll(ctx, projects.List(svc.Keystone, projects.ListOpts{Tags: naming.HumanProjectTag}), projects.ExtractProjects, "projects")
	},
	func(p projects.Project) (string, string) { return p.Name, p.ID },
	func(ctx context.Context, svc *project.Service, p projects.Project) error {
		ref := project.Ref{ProjectID: p.ID}

		if g, err := cloud.FindOne(ctx, groups.List(svc.Keystone, groups.ListOpts{DomainID: p.DomainID, Name: naming.ProjectGroup(p.Name)}),
			groups.ExtractGroups, "group", naming.ProjectGroup(p.Name), func(g groups.Group) string { return g.Name },
			func(g groups.Group) string { return g.ID }); err == nil && g != nil {
			ref.GroupID = g.ID
		}

		return svc.Delete(ctx, ref, true)
	})

// checkDestroy is the CheckDestroy of the project tests: every unikorn_project of the state is
// gone, its group too, and the networks and security groups of the state are gone (asked as
// the service user, who sees every project, the project's own scope being gone); so are the
// volumes the test made (*volumeIDs, in the default region).
func checkDestroy(t *testing.T, volumeIDs *[]string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		ctx := context.Background()
		keystone := acctest.AdminKeystone(t)

		var left []string

		gone := func(what, id string, err error) {
			if !gophercloud.ResponseCodeIs(err, 404) {
				left = append(left, fmt.Sprintf("%s %s (%v)", what, id, err))
			}
		}

		for _, rs := range s.RootModule().Resources {
			a := rs.Primary.Attributes

			switch rs.Type {
			case "unikorn_project":
				gone("project", rs.Primary.ID, projects.Get(ctx, keystone, rs.Primary.ID).Err)

				if a["group_id"] != "" {
					gone("group", a["group_id"], groups.Get(ctx, keystone, a["group_id"]).Err)
				}
			case "unikorn_network":
				gone("network", rs.Primary.ID, networks.Get(ctx, acctest.AdminNeutron(t, a["region"]), rs.Primary.ID).Err)
			case "unikorn_security_group":
				gone("security group", rs.Primary.ID, secgroups.Get(ctx, acctest.AdminNeutron(t, a["region"]), rs.Primary.ID).Err)
			}
		}

		if volumeIDs != nil {
			sc, err := acctest.Client(t).Base().BlockStorage(acctest.Client(t).DefaultRegion())
			if err != nil {
				return err
			}

			for _, id := range *volumeIDs {
				gone("volume", id, volumes.Get(ctx, sc, id).Err)
			}
		}

		if len(left) > 0 {
			slices.Sort(left)
			return fmt.Errorf("left after destroy: %s", strings.Join(left, "; "))
		}

		return nil
	}
}
