package identity

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// The quota groups and values the identity's tests speak of: internal/quota holds them.
const (
	QuotaCompute      = quota.Compute
	QuotaNetwork      = quota.Network
	QuotaBlockStorage = quota.BlockStorage
	QuotaLoadBalancer = quota.LoadBalancer
)

// LeftoversError refuses to delete an identity whose project still holds tenant objects.
type LeftoversError = leftovers.Error

// Quotas is an identity's quotas.
type Quotas = quota.Set

// UnlimitedQuotas is every quota at -1.
func UnlimitedQuotas() Quotas { return quota.AllUnlimited() }

// RegionQuotas reads the quotas of projectID in every region c serves, region by region, for
// the acceptance tests' direct checks.
func RegionQuotas(ctx context.Context, c *cloud.Client, projectID string) (map[string]Quotas, error) {
	admin, err := NewService(c, nil).tenants(ctx, projectID, cloud.Admin)
	if err != nil {
		return nil, err
	}

	perRegion, err := quota.PerRegion(ctx, admin)
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
	return NewService(c, nil).listIdentityNamed(ctx, func(sc *gophercloud.ServiceClient, domainID string) ([]cloud.Located, error) {
		all, err := cloud.ListAll(ctx, users.List(sc, users.ListOpts{DomainID: domainID}), users.ExtractUsers, "the users of the managed domain")

		return located(all, err, func(u users.User) cloud.Located { return cloud.Located{ID: u.ID, Name: u.Name} })
	})
}

// DeleteUser deletes a user of the managed domain; a 404 is the caller's to judge.
func DeleteUser(ctx context.Context, c *cloud.Client, id string) error {
	sc, _, err := NewService(c, nil).manager(ctx)
	if err != nil {
		return err
	}

	return users.Delete(ctx, sc, id).ExtractErr()
}
