package cloud

import (
	"context"
	"errors"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// Regions beyond the served ones. An identity or a unikorn_project may hold tenant objects in a
// region the provider served when they were made and no longer serves (its `regions` narrowed
// since); the leftovers check and force_destroy of its destroy must look there too, or Keystone's
// delete of the project orphans them. Such a region is bound here only, and only when the
// Keystone catalog has it with the services a served region must have: every other path still
// refuses a region that is not served (ResolveRegion).

// BindAnywhere binds the identity projectID in region with scope, like Tenant, whether or not
// the provider serves region, when the Keystone catalog has it; a region the catalog lacks is a
// *RegionError. For the cleanup of a region an identity was applied in, never for a write.
func (c *Client) BindAnywhere(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	if projectID == "" {
		return nil, errors.New("empty identity (project) ID")
	}

	return c.bindAnywhere(ctx, projectID, region, scope, false)
}

// BindProjectAnywhere is BindAnywhere for a unikorn_project's project (ProjectTenant).
func (c *Client) BindProjectAnywhere(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	if projectID == "" {
		return nil, errors.New("empty project ID")
	}

	return c.bindAnywhere(ctx, projectID, region, scope, true)
}

func (c *Client) bindAnywhere(ctx context.Context, projectID, region string, scope Scope, human bool) (*Tenant, error) {
	if region == "" || slices.Contains(c.regions, region) {
		return c.bind(ctx, projectID, region, scope, human)
	}

	if err := c.CatalogHas(region); err != nil {
		return nil, err
	}

	// A session is the same in every region: bind in the default region, then move the tenant.
	t, err := c.bind(ctx, projectID, "", scope, human)
	if err != nil {
		return nil, err
	}

	c.unserved.Store(region, struct{}{})
	t.region = region

	return t, nil
}

// CatalogHas checks that the Keystone catalog of the service user's token has region with an
// endpoint of every service a served region must have; a *RegionError says what is missing.
func (c *Client) CatalogHas(region string) error {
	result, ok := c.base.provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return &RegionError{Region: region, Interface: string(c.settings.availability)}
	}

	catalog, err := result.ExtractServiceCatalog()
	if err != nil {
		return err
	}

	if rerr := checkRegion(catalog, region, c.settings.availability); rerr != nil {
		return rerr
	}

	return nil
}

// sessionRegion is the region a session's service client is built for: a served one
// (ResolveRegion: "" is the default region), or one a tenant was bound in by BindAnywhere.
func (c *Client) sessionRegion(region string) (string, error) {
	if _, ok := c.unserved.Load(region); ok && region != "" {
		return region, nil
	}

	return c.ResolveRegion(region)
}
