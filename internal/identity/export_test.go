package identity

import (
	"context"
	"fmt"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// RegionQuotas reads the quotas of projectID in every region c serves, region by region, for
// the acceptance tests' direct checks.
func RegionQuotas(ctx context.Context, c *cloud.Client, projectID string) (map[string]Quotas, error) {
	priv, err := c.Privileged(ctx, projectID)
	if err != nil {
		return nil, err
	}

	out := map[string]Quotas{}

	for _, region := range c.Regions() {
		out[region] = Quotas{}

		for _, g := range QuotaGroups {
			sc, err := g.client(priv, region)
			if err != nil {
				return nil, err
			}

			if out[region][g.Name], err = getQuotas(ctx, sc, g, projectID); err != nil {
				return nil, fmt.Errorf("region %s: %w", region, err)
			}
		}
	}

	return out, nil
}
