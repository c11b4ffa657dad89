package provider

import (
	"context"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
)

// Meta is the typed client bundle that Configure hands to every resource and data source.
// Concept packages do not import this package: each declares the small interface it needs
// (for example `interface{ Cloud() *cloud.Client }`) and Meta satisfies them all.
// Concept settings files embed their own part (catalogMeta, identityMeta, networkMeta, ...).
type Meta struct {
	catalogMeta
	identityMeta
	networkMeta
	loadbalancerMeta
	serverMeta
	volumeMeta

	cloud *cloud.Client
}

// Cloud is the authenticated OpenStack client shared by the whole run.
func (m *Meta) Cloud() *cloud.Client {
	return m.cloud
}

// ListIdentities lists the identities of the managed domain: what list resources list tenant
// objects in.
func (m *Meta) ListIdentities(ctx context.Context) ([]cloud.Located, error) {
	return identity.NewService(m.cloud, m.IdentityConfig()).List(ctx)
}
