package server

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// List lists the servers of identity identityID in region (the unikorn_server list resource):
// every Nova server of its project, by its display name, listed as the run's listing of
// servers lists them.
func List(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	t, err := c.Tenant(ctx, identityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return serverListing.Located(ctx, t, "", func(s servers.Server) string { return s.Name },
		func(s servers.Server) string { return s.ID })
}

// ListSnapshots lists the server snapshot images of identity identityID in region (the
// unikorn_server_snapshot list resource): the Glance images its project owns whose image_type
// is snapshot.
func ListSnapshots(ctx context.Context, c *cloud.Client, identityID, region string) ([]cloud.Located, error) {
	glance, err := c.Base().Image(region)
	if err != nil {
		return nil, err
	}

	return cloud.ListLocated(ctx, images.List(glance, images.ListOpts{Owner: identityID}), images.ExtractImages,
		"the images of project "+identityID+" in "+region,
		func(i images.Image) (cloud.Located, bool) {
			kind, _ := i.Properties[propertyImageType].(string)
			return cloud.Located{ID: i.ID, Name: i.Name, ProjectID: identityID}, kind == imageTypeSnapshot
		})
}
