package image

import (
	"context"
	"crypto/ecdsa"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Listing is the classified image listing of one scope (region and
// organization): the accepted images oldest → newest and the rejected ones
// with their reasons (see Classify).
type Listing struct {
	Images   []Image
	Rejected []Rejected
}

// Cache is the image listing of one provider process. Every image data
// source of a region shares one Glance list: visibility=public for data
// sources without an organization, and one visibility=all list shared by
// every organization (List explains both). The first caller lists, concurrent
// callers wait for it, and the result is kept for the life of the process (one
// Terraform command). A failed listing is not kept: the next caller tries
// again. Classification (schema and signature checks) is done once per region
// and organization, too.
//
// The signing key is fixed at construction (it is provider configuration).
type Cache struct {
	key        *ecdsa.PublicKey
	glance     cloud.OnceCache[glanceKey, []images.Image]
	classified cloud.OnceCache[scopeKey, Listing]
	// byID holds the images read one by one because the public listing does not hold them
	// (private, shared or community images, or images made after the listing), so that each
	// is read once per run however many servers name it.
	byID cloud.ByID[Facts]
	// organizations holds the projects of each organization (Organization.Projects), by ID.
	organizations cloud.OnceCache[string, map[string]bool]
}

type glanceKey struct {
	region            string
	withOrganizations bool
}

type scopeKey struct {
	region         string
	organizationID string
}

// NewCache returns an empty cache that checks signatures with key (nil: no
// signature checks).
func NewCache(key *ecdsa.PublicKey) *Cache {
	return &Cache{key: key, byID: cloud.ByID[Facts]{Kind: "image"}}
}

// Images returns the classified images of region (a resolved region name)
// for org (org.ID "" for public images only), listed with imageClient
// (that region's Glance client) on the first call for the region and scope.
// An image carrying the organization's property that a tenant may have
// planted is rejected (organization.go). The result is shared: callers must
// not modify it.
func (c *Cache) Images(ctx context.Context, region string, org Organization, imageClient *gophercloud.ServiceClient) (Listing, error) {
	organizationID := org.ID
	ctx = tflog.SetField(ctx, "region", region)
	ctx = tflog.SetField(ctx, "organization_id", organizationID)

	return c.classified.Get(ctx, scopeKey{region: region, organizationID: organizationID}, func(ctx context.Context) (Listing, error) {
		key := glanceKey{region: region, withOrganizations: organizationID != ""}

		all, err := cloud.ListOnce(ctx, &c.glance, key, "Glance images", "images", map[string]any{"with_organizations": key.withOrganizations},
			func(ctx context.Context) ([]images.Image, error) {
				return listGlance(ctx, imageClient, key.withOrganizations)
			})
		if err != nil {
			return Listing{}, err
		}

		owned, planted := c.organizationImages(ctx, inScope(all, organizationID), org)
		accepted, rejected := Classify(owned, c.key)
		rejected = sortRejected(append(rejected, planted...))

		tflog.Debug(ctx, "Classified Glance images", map[string]any{
			"accepted":          len(accepted),
			"rejected":          len(rejected),
			"signature_checked": c.key != nil,
		})

		return Listing{Images: accepted, Rejected: rejected}, nil
	})
}
