package project

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Listed lists the projects that unikorn_project made, in any domain: those with its Keystone
// tag (the unikorn_project list resource).
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	return domain.ListKeystone(ctx, c, func(sc *gophercloud.ServiceClient) pagination.Pager {
		return projects.List(sc, projects.ListOpts{Tags: naming.HumanProjectTag})
	}, projects.ExtractProjects, "the projects tagged "+naming.HumanProjectTag,
		func(p projects.Project) (cloud.Located, bool) { return cloud.Located{ID: p.ID, Name: p.Name}, true })
}
