package network

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// ListNetworks lists the networks of identity identityID in region (the unikorn_network list
// resource): its Neutron networks named network-<name>.
func ListNetworks(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := t.Network()
	if err != nil {
		return nil, err
	}

	all, err := cloud.ListAll(ctx, networks.List(sc, networks.ListOpts{ProjectID: identityID}), networks.ExtractNetworks,
		"the networks of "+t.String())

	return cloud.Listed(all, identityID, naming.NetworkPrefix,
		func(n networks.Network) string { return n.Name }, func(n networks.Network) string { return n.ID }), err
}

// ListSecurityGroups lists the security groups of identity identityID in region (the
// unikorn_security_group list resource): its Neutron security groups named
// securitygroup-<name>.
func ListSecurityGroups(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := t.Network()
	if err != nil {
		return nil, err
	}

	all, err := cloud.ListAll(ctx, groups.List(sc, groups.ListOpts{ProjectID: identityID}), groups.ExtractGroups,
		"the security groups of "+t.String())

	return cloud.Listed(all, identityID, naming.SecurityGroupPrefix,
		func(g groups.SecGroup) string { return g.Name }, func(g groups.SecGroup) string { return g.ID }), err
}
