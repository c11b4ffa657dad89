package image

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// visibilityAll asks Glance (image API ≥ 2.5) for every image the caller can
// see: public, community, shared and its own private ones.
const visibilityAll images.ImageVisibility = "all"

// pageLimit is the page size asked of Glance. Glance caps it at its
// api_limit_max (1000 by default) instead of failing, and the default page
// of 25 would turn one listing into many requests.
const pageLimit = 1000

// List returns the Glance images in scope, unvalidated (pass them to Classify):
//
//   - without organizationID: one listing with visibility=public, keeping the
//     public images that carry no unikorn:organization:id;
//   - with organizationID: one listing with visibility=all (everything the
//     client's project can see, whatever way the organization's images were
//     shared with it), keeping those public images plus every image whose
//     unikorn:organization:id equals organizationID exactly.
//
// Asking Glance to filter on the custom property instead would need a second
// request (public images, then the organization's), and gophercloud's
// ListOpts has no field for it; so the property is compared client-side
// (InScope), which also keeps the listing shareable between data sources. An image owned by another organization is never in scope, even
// when public: organization images are exempt from signature checks, so
// letting them through would let any organization bypass the signing key.
func List(ctx context.Context, imageClient *gophercloud.ServiceClient, organizationID string) ([]images.Image, error) {
	all, err := listGlance(ctx, imageClient, organizationID != "")
	if err != nil {
		return nil, err
	}

	return inScope(all, organizationID), nil
}

// listGlance is the Glance listing under List: visibility=public, or
// visibility=all when withOrganizations. The same listing serves every
// organization (InScope tells them apart), which is what lets Cache share it.
func listGlance(ctx context.Context, imageClient *gophercloud.ServiceClient, withOrganizations bool) ([]images.Image, error) {
	opts := images.ListOpts{Visibility: images.ImageVisibilityPublic, Limit: pageLimit}
	if withOrganizations {
		opts.Visibility = visibilityAll
	}

	pages, err := images.List(imageClient, opts).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Glance images: %w", err)
	}

	all, err := images.ExtractImages(pages)
	if err != nil {
		return nil, fmt.Errorf("reading Glance images: %w", err)
	}

	return all, nil
}

// inScope keeps the images of all that are InScope for organizationID.
func inScope(all []images.Image, organizationID string) []images.Image {
	var result []images.Image

	for _, img := range all {
		if InScope(img, organizationID) {
			result = append(result, img)
		}
	}

	return result
}

// InScope reports whether an image belongs to the listing for organizationID
// (empty: no organization): public images without unikorn:organization:id,
// and, for an organization, its own images whatever their visibility.
func InScope(img images.Image, organizationID string) bool {
	owner, _ := img.Properties[PropertyOrganizationID].(string)

	if owner == "" {
		return img.Visibility == images.ImageVisibilityPublic
	}

	return organizationID != "" && owner == organizationID
}
