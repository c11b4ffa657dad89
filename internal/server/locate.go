package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Locate finds, for an import, the server given by ID or by name in region, in whatever
// project it is, through the provider's configured scope (which must see every project's
// servers, as an admin's does).
func Locate(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	sc, err := c.Base().Compute(region)
	if err != nil {
		return cloud.Located{}, err
	}

	if cloud.LooksLikeID(idOrName) {
		if loc, ok, err := locateID(ctx, sc, region, idOrName); err != nil || ok {
			return loc, err
		}
	}

	all, err := listServers(ctx, sc, servers.ListOpts{Name: nameFilter(idOrName), AllTenants: true})
	if err != nil {
		return cloud.Located{}, fmt.Errorf("looking up server %q in region %s: %w", idOrName, region, err)
	}

	srv, ok, err := naming.One("server", idOrName, all,
		func(s servers.Server) string { return s.Name },
		func(s servers.Server) string { return s.ID + " (project " + s.TenantID + ")" })

	switch {
	case err != nil:
		return cloud.Located{}, fmt.Errorf("%w: import it by ID instead", err)
	case !ok:
		return cloud.Located{}, cloud.NotLocated("server", idOrName, region)
	}

	return cloud.Located{ID: srv.ID, Name: srv.Name, ProjectID: srv.TenantID}, nil
}

// locateID finds server id of region, in whatever project it is, through sc (the configured
// scope's Nova); ok is false when Nova has no such server there.
func locateID(ctx context.Context, sc *gophercloud.ServiceClient, region, id string) (loc cloud.Located, ok bool, err error) {
	srv, err := servers.Get(ctx, sc, id).Extract()

	switch {
	case err == nil:
		return cloud.Located{ID: srv.ID, Name: srv.Name, ProjectID: srv.TenantID}, true, nil
	case !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return cloud.Located{}, false, fmt.Errorf("reading server %s in region %s: %w", id, region, err)
	}

	return cloud.Located{}, false, nil
}
