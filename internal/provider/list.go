package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/federation"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/project"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/providernetwork"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"
)

var _ provider.ProviderWithListResources = (*unikornProvider)(nil)

// ListResources lists every list resource of the provider (Terraform 1.14 and later,
// `terraform query`), one per resource: the global kinds (domains, federations, identities,
// projects, roles), the regional admin kinds (flavors, images, provider networks) and the
// identities' tenant kinds (load balancers, networks, security groups, servers, server
// snapshots).
func (p *unikornProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		adapter.GlobalList(domain.NewDomainResource, inCloud(domain.Listed)),
		adapter.GlobalList(federation.NewResource, inCloud(federation.Listed)),
		adapter.RegionalList(flavor.NewFlavorResource, flavor.Listed),
		adapter.GlobalList(identity.NewResource, func(ctx context.Context, m adapter.IdentityLister) ([]cloud.Located, error) {
			return m.ListIdentities(ctx)
		}),
		adapter.RegionalList(image.NewImageResource, image.Listed),
		adapter.TenantList(loadbalancer.NewResource, loadbalancer.List),
		adapter.TenantList(network.NewNetworkResource, network.ListNetworks),
		adapter.TenantList(network.NewSecurityGroupResource, network.ListSecurityGroups),
		adapter.GlobalList(project.NewResource, inCloud(project.Listed)),
		adapter.RegionalList(providernetwork.NewResource, providernetwork.Listed),
		adapter.GlobalList(role.NewRoleResource, inCloud(role.Listed)),
		adapter.TenantList(server.NewResource, server.List),
		adapter.TenantList(server.NewSnapshotResource, server.ListSnapshots),
	}
}

// inCloud is the lister of a global kind that is listed from the cloud alone.
func inCloud(list func(ctx context.Context, c *cloud.Client) ([]cloud.Located, error)) adapter.GlobalLister {
	return func(ctx context.Context, m adapter.IdentityLister) ([]cloud.Located, error) {
		return list(ctx, m.Cloud())
	}
}

// ListIdentities lists the identities of the managed domain: what list resources list tenant
// objects in.
func (m *Meta) ListIdentities(ctx context.Context) ([]cloud.Located, error) {
	return identity.NewService(m.cloud, m.IdentityConfig()).List(ctx)
}
