package project

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Listed lists the projects that unikorn_project made, in any domain: those with its Keystone tag
// (the unikorn_project list resource).
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	a, err := domain.NewAdmin(c)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, projects.List(a.Keystone, projects.ListOpts{Tags: naming.HumanProjectTag}), projects.ExtractProjects,
		"the projects tagged "+naming.HumanProjectTag,
		func(p projects.Project) (cloud.Located, bool) { return cloud.Located{ID: p.ID, Name: p.Name}, true })
}
