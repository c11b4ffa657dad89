package image

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// An image counts as an organization's (and is then exempt from the signature check) only when
// no tenant can have planted it. The property unikorn:organization:id alone says nothing: any
// tenant may set it on an image of its own project and share it, or make it a community image,
// which the admin's visibility=all listing then holds. An image is the organization's when its
// property names the organization and:
//
//   - it is public: only an admin may publicize an image on stock policy (Unikorn's own
//     organization images and snapshots are public in Glance);
//   - or it is owned by the service user's own project (where unikorn_image makes them);
//   - or it is owned by a project that belongs to the organization: a Keystone project tagged
//     organization=<id> (an identity of the organization, whose snapshots unikorn_server_snapshot
//     keeps private in its project). Only an admin can tag a project.
//
// Any other image carrying the property is left out, with a warning that says why.

// Organization is the scope of an image listing for an organization.
type Organization struct {
	// ID is the organization ("": no organization, public images only).
	ID string
	// ServiceProjectID is the service user's own project, whose images are the region's.
	ServiceProjectID string
	// Projects lists the IDs of the projects that belong to the organization (tagged
	// organization=<ID>); asked only when an image needs it, once per run and organization.
	Projects func(ctx context.Context, organizationID string) ([]string, error)
}

// OrganizationOf is the scope of organizationID ("": none) on the provider's client: the
// service user's own project, and its cloud-admin scope's Keystone to list the organization's
// projects.
func OrganizationOf(c *cloud.Client, organizationID string) (Organization, error) {
	org := Organization{ID: organizationID, ServiceProjectID: c.Base().ProjectID()}
	if organizationID == "" {
		return org, nil
	}

	keystone, err := c.Base().Keystone()
	if err != nil {
		return org, err
	}

	org.Projects = OrganizationProjects(keystone)

	return org, nil
}

// OrganizationProjects is Organization.Projects on a Keystone client that may list every
// project (the service user's cloud-admin scope): the projects tagged organization=<id>.
func OrganizationProjects(keystone *gophercloud.ServiceClient) func(ctx context.Context, organizationID string) ([]string, error) {
	return func(ctx context.Context, organizationID string) ([]string, error) {
		all, err := cloud.ListAll(ctx, projects.List(keystone, projects.ListOpts{Tags: "organization=" + organizationID}),
			projects.ExtractProjects, "the projects tagged organization="+organizationID)
		if err != nil {
			return nil, err
		}

		ids := make([]string, 0, len(all))

		for _, p := range all {
			if slices.Contains(p.Tags, "organization="+organizationID) { // post-filter
				ids = append(ids, p.ID)
			}
		}

		return ids, nil
	}
}

// organizationImages keeps, of the images in the scope of org (InScope), those that may count
// as org's, and returns the others carrying org's property as rejected, with the reason.
func (c *Cache) organizationImages(ctx context.Context, all []images.Image, org Organization) ([]images.Image, []Rejected) {
	var (
		kept     []images.Image
		rejected []Rejected
		owners   map[string]bool
		ownerErr error
		listed   bool
	)

	for _, img := range all {
		prop, _ := img.Properties[PropertyOrganizationID].(string)

		switch {
		case org.ID == "" || prop == "" || img.Visibility == images.ImageVisibilityPublic || img.Owner == org.ServiceProjectID:
			kept = append(kept, img)
			continue
		case !listed:
			owners, ownerErr = c.organizationProjects(ctx, org)
			listed = true
		}

		if owners[img.Owner] {
			kept = append(kept, img)
			continue
		}

		reason := fmt.Sprintf("organization: the image carries %s = %q but is %s in project %s, which does not belong to "+
			"organization %s (not tagged organization=%s): a tenant may set the property on its own image, so it is not "+
			"taken for the organization's", PropertyOrganizationID, prop, img.Visibility, img.Owner, org.ID, org.ID)
		if ownerErr != nil {
			reason = fmt.Sprintf("organization: the image carries %s = %q but is %s in project %s, and the projects of "+
				"organization %s could not be listed (%v), so it is not taken for the organization's",
				PropertyOrganizationID, prop, img.Visibility, img.Owner, org.ID, ownerErr)
		}

		rejected = append(rejected, Rejected{ID: img.ID, Name: img.Name, Reason: reason, Image: Translate(img)})
	}

	return kept, rejected
}

// organizationProjects are the projects of org, listed once per run and organization.
func (c *Cache) organizationProjects(ctx context.Context, org Organization) (map[string]bool, error) {
	if org.Projects == nil {
		return nil, nil
	}

	owners, err := c.organizations.Get(ctx, org.ID, func(ctx context.Context) (map[string]bool, error) {
		ids, err := org.Projects(ctx, org.ID)
		if err != nil {
			return nil, err
		}

		set := make(map[string]bool, len(ids))
		for _, id := range ids {
			set[id] = true
		}

		return set, nil
	})
	if err != nil {
		tflog.Warn(ctx, "Could not list the organization's projects: its images outside the service project are left out",
			map[string]any{"organization_id": org.ID, "error": err.Error()})
	}

	return owners, err
}

// Unikorn's provenance tags of an organization's image: its image handler writes them (as
// unikorn:tag: properties) on every image it imports for an organization, and on every
// snapshot, beside unikorn:organization:id (uni-region pkg/constants ImageSourceTag,
// ImageOrganizationIDTag; pkg/handler/image CreateImage, pkg/handler/server CreateV2Snapshot,
// v1.14.0 and later).
const (
	// PropertySourceTag says how the image came to be: SourceImport or SourceSnapshot.
	PropertySourceTag = PropertyTagPrefix + "images.unikorn-cloud.org:source"
	// PropertyOrganizationTag repeats the organization the image was made for.
	PropertyOrganizationTag = PropertyTagPrefix + "images.unikorn-cloud.org:organization-id"

	// SourceImport is the source of an image imported from a URL.
	SourceImport = "import"
	// SourceSnapshot is the source of a server's snapshot.
	SourceSnapshot = "snapshot"
)

// organizationProperties are the properties that make an image organizationID's in Unikorn's
// shape: unikorn:organization:id and the two provenance tags, source SourceImport (none for "").
func organizationProperties(organizationID string) map[string]string {
	if organizationID == "" {
		return nil
	}

	return map[string]string{
		PropertyOrganizationID:  organizationID,
		PropertyOrganizationTag: organizationID,
		PropertySourceTag:       SourceImport,
	}
}

// isProvenanceKey tells whether key is one of Unikorn's provenance tags, which a unikorn_image
// writes from its organization_id.
func isProvenanceKey(key string) bool {
	return key == PropertySourceTag || key == PropertyOrganizationTag
}

// keepProvenance is spec with the source tag img already carries, when spec makes an
// organization image: an image that came to be otherwise than by an import (a Unikorn snapshot
// taken over with terraform import) keeps saying so.
func keepProvenance(spec Spec, img *images.Image) Spec {
	have, _ := img.Properties[PropertySourceTag].(string)
	if _, org := spec.Properties[PropertySourceTag]; !org || have == "" || have == spec.Properties[PropertySourceTag] {
		return spec
	}

	spec.Properties = maps.Clone(spec.Properties)
	spec.Properties[PropertySourceTag] = have

	return spec
}
