package server

import (
	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Servers lists the servers of an identity (the unikorn_server list resource): every Nova
// server of its project, by its display name.
var Servers = cloud.TenantListing[servers.Server]{
	What: "servers", Service: (*cloud.Tenant).Compute,
	List: func(sc *gophercloud.ServiceClient, _ string) pagination.Pager {
		return servers.List(sc, servers.ListOpts{})
	},
	Extract: servers.ExtractServers,
	Name:    func(s servers.Server) string { return s.Name },
	ID:      func(s servers.Server) string { return s.ID },
}
