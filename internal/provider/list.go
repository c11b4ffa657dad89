package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"
)

var _ provider.ProviderWithListResources = (*unikornProvider)(nil)

// ListResources lists every list resource of the provider (Terraform 1.14 and later,
// `terraform query`): the identities, and their networks, security groups, servers and load
// balancers.
func (p *unikornProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		adapter.GlobalList(identity.NewResource, func(ctx context.Context, m adapter.IdentityLister) ([]cloud.Located, error) {
			return m.ListIdentities(ctx)
		}),
		adapter.TenantList(loadbalancer.NewResource, loadbalancer.LoadBalancers.In),
		adapter.TenantList(network.NewNetworkResource, network.Networks.In),
		adapter.TenantList(network.NewSecurityGroupResource, network.SecurityGroups.In),
		adapter.TenantList(server.NewResource, server.Servers.In),
	}
}

// ListIdentities lists the identities of the managed domain: what list resources list tenant
// objects in.
func (m *Meta) ListIdentities(ctx context.Context) ([]cloud.Located, error) {
	return identity.NewService(m.cloud, m.IdentityConfig()).List(ctx)
}
