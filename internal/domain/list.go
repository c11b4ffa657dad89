package domain

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listed lists the Keystone domains (the unikorn_domain list resource).
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	a, err := NewAdmin(c)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, domains.List(a.Keystone, nil), domains.ExtractDomains, "the domains",
		func(d domains.Domain) (cloud.Located, bool) { return cloud.Located{ID: d.ID, Name: d.Name}, true })
}
