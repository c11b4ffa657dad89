package network

import (
	"context"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// ListNetworks lists the networks of identity identityID in region (the unikorn_network list
// resource): the project's Neutron networks named network-<name>, listed as the run's listing
// of networks lists them.
func ListNetworks(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	s, err := listService(ctx, c, identityID, region)
	if err != nil {
		return nil, err
	}

	l, err := s.networks(ctx)
	if err != nil {
		return nil, err
	}

	return l.located(ctx, naming.NetworkPrefix)
}

// ListSecurityGroups lists the security groups of identity identityID in region (the
// unikorn_security_group list resource): the project's Neutron security groups named
// securitygroup-<name>, listed as the run's listing of security groups lists them.
func ListSecurityGroups(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	s, err := listService(ctx, c, identityID, region)
	if err != nil {
		return nil, err
	}

	return s.groupIn().located(ctx, naming.SecurityGroupPrefix)
}

// listService is the core of the identity's project in region, bound in the privileged scope.
func listService(ctx context.Context, c *cloud.Client, identityID, region string) (*Service, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return NewService(t, nil)
}

// located lists the objects of l's run listing that are named <prefix><name>.
func (l lookup[T]) located(ctx context.Context, prefix string) ([]cloud.Located, error) {
	return l.listing.Located(ctx, l.tenant, prefix, l.name, l.id)
}
