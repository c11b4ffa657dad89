package volume

// Finding volumes in any project of a region, through the provider's configured (admin) scope:
// for an import, a look-up by ID and the list resource.

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Locate finds a volume for an import by ID or by user-given name in region, across every
// project the provider's configured scope (an admin one) can see.
func Locate(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	sc, err := c.Base().BlockStorage(region)
	if err != nil {
		return cloud.Located{}, err
	}

	cinder := pin(sc)

	toLocated := func(vol *volumes.Volume) (cloud.Located, error) {
		user, ok := UserName(vol.Name)
		if !ok {
			return cloud.Located{}, fmt.Errorf("volume %s is called %q, which is not of the form %s<name>: it is not managed by this provider",
				vol.ID, vol.Name, naming.VolumePrefix)
		}

		return cloud.Located{ID: vol.ID, Name: user, ProjectID: vol.TenantID, InProject: inHumanProject(ctx, c, vol.TenantID)}, nil
	}

	if cloud.LooksLikeID(idOrName) {
		switch vol, ok, err := getAnywhere(ctx, cinder, region, idOrName); {
		case err != nil:
			return cloud.Located{}, err
		case ok:
			return toLocated(vol)
		}
	}

	name := naming.Volume(idOrName)

	vol, err := cloud.FindOne(ctx, volumes.List(cinder, volumes.ListOpts{AllTenants: true, Name: name}), volumes.ExtractVolumes,
		"volume", name, func(v volumes.Volume) string { return v.Name }, func(v volumes.Volume) string {
			return v.ID + " (project " + v.TenantID + ")"
		})

	switch {
	case err != nil:
		return cloud.Located{}, fmt.Errorf("looking up volume %s in region %s: %w", name, region, err)
	case vol == nil:
		return cloud.Located{}, cloud.NotLocated("volume", idOrName, region)
	}

	return toLocated(vol)
}

// getAnywhere reads volume id of region, in whatever project it is, through cinder (the
// configured scope's, pinned); ok is false when Cinder has no such volume there.
func getAnywhere(ctx context.Context, cinder *gophercloud.ServiceClient, region, id string) (vol *volumes.Volume, ok bool, err error) {
	vol, err = volumes.Get(ctx, cinder, id).Extract()

	switch {
	case err == nil:
		return vol, true, nil
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil, false, nil
	}

	return nil, false, fmt.Errorf("reading volume %s in region %s: %w", id, region, err)
}

// inHumanProject tells whether projectID is a unikorn_project's project rather than an
// identity's (an identity's project is checked first, as every tenant kind's import does).
func inHumanProject(ctx context.Context, c *cloud.Client, projectID string) bool {
	return c.CheckIdentityProject(ctx, projectID) != nil && c.CheckHumanProject(ctx, projectID) == nil
}

// ListVolumes lists the volumes of the project of identity identityID in region (the
// unikorn_volume list resource): those named volume-<name>, by their user-given name.
func ListVolumes(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := t.BlockStorage()
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, volumes.List(pin(sc), volumes.ListOpts{}), volumes.ExtractVolumes,
		"the volumes of project "+identityID+" in "+region,
		func(vol volumes.Volume) (cloud.Located, bool) {
			name, ok := UserName(vol.Name)
			return cloud.Located{ID: vol.ID, Name: name, ProjectID: identityID}, ok
		})
}
