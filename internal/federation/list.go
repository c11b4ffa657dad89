package federation

import (
	"context"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Listed lists the federations (the unikorn_federation list resource): one per Keystone
// mapping <idp_id>-mapping, known by the identity provider's ID.
func Listed(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
	return domain.ListKeystone(ctx, c, federation.ListMappings, federation.ExtractMappings, "the mappings",
		func(m federation.Mapping) (cloud.Located, bool) {
			idp, ok := strings.CutSuffix(m.ID, naming.FederationMappingSuffix)
			return cloud.Located{ID: idp}, ok && idp != ""
		})
}
