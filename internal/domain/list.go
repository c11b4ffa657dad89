package domain

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listed lists the Keystone domains (the unikorn_domain list resource).
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	return ListKeystone(ctx, c, func(sc *gophercloud.ServiceClient) pagination.Pager { return domains.List(sc, nil) },
		domains.ExtractDomains, "the domains",
		func(d domains.Domain) (cloud.Located, bool) { return cloud.Located{ID: d.ID, Name: d.Name}, true })
}

// ListKeystone lists, for the list resource of a global Keystone kind, what pager finds through
// the cloud-admin Keystone client of c (what names it in errors), as located keeps it.
func ListKeystone[T any](ctx context.Context, c *cloud.Client, pager func(*gophercloud.ServiceClient) pagination.Pager,
	extract func(pagination.Page) ([]T, error), what string, located func(T) (cloud.Located, bool),
) ([]cloud.Located, error) {
	a, err := NewAdmin(c)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, pager(a.Keystone), extract, what, located)
}
