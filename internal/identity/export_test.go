package identity

import (
	"context"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// RegionQuotas reads the quotas of projectID in every region c serves, region by region, for
// the acceptance tests' direct checks.
func RegionQuotas(ctx context.Context, c *cloud.Client, projectID string) (map[string]Quotas, error) {
	perRegion, err := NewService(c, nil).regionQuotas(ctx, projectID)
	if err != nil {
		return nil, err
	}

	out := map[string]Quotas{}
	for i, region := range c.Regions() {
		out[region] = perRegion[i]
	}

	return out, nil
}

// Users lists the users of the managed domain named unikorn-identity-<name> (Name is the
// <name>), for the sweeper of the users that an identity's deletion left behind.
func Users(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	sc, domainID, err := NewService(c, nil).manager(ctx)
	if err != nil {
		return nil, err
	}

	all, err := cloud.ListAll(ctx, users.List(sc, users.ListOpts{DomainID: domainID}), users.ExtractUsers, "the users of the managed domain")
	if err != nil {
		return nil, err
	}

	var out []cloud.Located

	for _, u := range all {
		if name, ok := strings.CutPrefix(u.Name, naming.IdentityPrefix); ok {
			out = append(out, cloud.Located{ID: u.ID, Name: name})
		}
	}

	return out, nil
}

// DeleteUser deletes a user of the managed domain; a 404 is the caller's to judge.
func DeleteUser(ctx context.Context, c *cloud.Client, id string) error {
	sc, _, err := NewService(c, nil).manager(ctx)
	if err != nil {
		return err
	}

	return users.Delete(ctx, sc, id).ExtractErr()
}
