package server

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// List lists the servers of identity identityID in region (the unikorn_server list resource):
// every Nova server of its project, by its display name.
func List(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := t.Compute()
	if err != nil {
		return nil, err
	}

	all, err := cloud.ListAll(ctx, servers.List(sc, servers.ListOpts{}), servers.ExtractServers, "the servers of "+t.String())

	return cloud.Listed(all, identityID, "",
		func(s servers.Server) string { return s.Name }, func(s servers.Server) string { return s.ID }), err
}
