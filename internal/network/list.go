package network

import (
	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Networks lists the networks of an identity (the unikorn_network list resource): its Neutron
// networks named network-<name>.
var Networks = cloud.TenantListing[networks.Network]{
	What: "networks", Service: (*cloud.Tenant).Network, Prefix: naming.NetworkPrefix,
	List: func(sc *gophercloud.ServiceClient, projectID string) pagination.Pager {
		return networks.List(sc, networks.ListOpts{ProjectID: projectID})
	},
	Extract: networks.ExtractNetworks,
	Name:    func(n networks.Network) string { return n.Name },
	ID:      func(n networks.Network) string { return n.ID },
}

// SecurityGroups lists the security groups of an identity (the unikorn_security_group list
// resource): its Neutron security groups named securitygroup-<name>.
var SecurityGroups = cloud.TenantListing[groups.SecGroup]{
	What: "security groups", Service: (*cloud.Tenant).Network, Prefix: naming.SecurityGroupPrefix,
	List: func(sc *gophercloud.ServiceClient, projectID string) pagination.Pager {
		return groups.List(sc, groups.ListOpts{ProjectID: projectID})
	},
	Extract: groups.ExtractGroups,
	Name:    func(g groups.SecGroup) string { return g.Name },
	ID:      func(g groups.SecGroup) string { return g.ID },
}
