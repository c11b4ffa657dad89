package role

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

// Listed lists Keystone's global roles (the unikorn_role list resource).
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	return domain.ListKeystone(ctx, c, func(sc *gophercloud.ServiceClient) pagination.Pager { return roles.List(sc, roles.ListOpts{}) },
		roles.ExtractRoles, "the roles",
		func(r roles.Role) (cloud.Located, bool) {
			return cloud.Located{ID: r.ID, Name: r.Name}, r.DomainID == ""
		})
}
