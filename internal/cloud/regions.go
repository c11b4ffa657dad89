package cloud

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// Regions beyond the served ones. An identity or a unikorn_project may hold tenant objects in a
// region the provider served when they were made and no longer serves (its `regions` narrowed
// since); the leftovers check and force_destroy of its destroy must look there too, or Keystone's
// delete of the project orphans them. Such a region is bound here only, and only when the
// Keystone catalog has it with the services a served region must have: every other path still
// refuses a region that is not served (ResolveRegion).

// BindAnywhere binds the identity projectID in region with scope, like Tenant, whether or not
// the provider serves region, when the Keystone catalog has it; a region the catalog lacks is a
// *RegionError. For the cleanup of a region an identity was applied in, never for a write.
func (c *Client) BindAnywhere(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	if projectID == "" {
		return nil, errors.New("empty identity (project) ID")
	}

	return c.bindAnywhere(ctx, projectID, region, scope, false)
}

// BindProjectAnywhere is BindAnywhere for a unikorn_project's project (ProjectTenant).
func (c *Client) BindProjectAnywhere(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	if projectID == "" {
		return nil, errors.New("empty project ID")
	}

	return c.bindAnywhere(ctx, projectID, region, scope, true)
}

func (c *Client) bindAnywhere(ctx context.Context, projectID, region string, scope Scope, human bool) (*Tenant, error) {
	if region == "" || slices.Contains(c.regions, region) {
		return c.bind(ctx, projectID, region, scope, human)
	}

	if err := c.CatalogHas(region); err != nil {
		return nil, err
	}

	// A session is the same in every region: bind in the default region, then move the tenant.
	t, err := c.bind(ctx, projectID, "", scope, human)
	if err != nil {
		return nil, err
	}

	c.unserved.Store(region, struct{}{})
	t.region = region

	return t, nil
}

// CatalogHas checks that the Keystone catalog of the service user's token has region with an
// endpoint of every service a served region must have; a *RegionError says what is missing.
func (c *Client) CatalogHas(region string) error {
	result, ok := c.base.provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return &RegionError{Region: region, Interface: string(c.settings.availability)}
	}

	catalog, err := result.ExtractServiceCatalog()
	if err != nil {
		return err
	}

	if rerr := checkRegion(catalog, region, c.settings.availability); rerr != nil {
		return rerr
	}

	return nil
}

// sessionRegion is the region a session's service client is built for: a served one
// (ResolveRegion: "" is the default region), or one a tenant was bound in by BindAnywhere.
func (c *Client) sessionRegion(region string) (string, error) {
	if _, ok := c.unserved.Load(region); ok && region != "" {
		return region, nil
	}

	return c.ResolveRegion(region)
}

// ErrNotLocated is what a locator (an import's, a look-up's) wraps when the object it was asked
// for is not in the region it looked in, so that a search across regions can tell "not here"
// from a failure.
var ErrNotLocated = errors.New("not found")

// NotLocated is the error of a locator that found no object of kind with ID or name idOrName in
// region ("" for a kind without regions); it is ErrNotLocated (errors.Is).
func NotLocated(kind, idOrName, region string) error {
	if region == "" {
		return notLocated(fmt.Sprintf("no %s with ID or name %q", kind, idOrName))
	}

	return notLocated(fmt.Sprintf("no %s with ID or name %q in region %s", kind, idOrName, region))
}

// notLocated is an ErrNotLocated that says what was not found where.
type notLocated string

func (e notLocated) Error() string { return string(e) }

// Is makes errors.Is(e, ErrNotLocated) true.
func (e notLocated) Is(target error) bool { return target == ErrNotLocated }

// SearchOrder is the order in which an object given by ID without a region is looked for: the
// default region first, then every other served region in the configured order (the order in
// which OpenStack's cloud controller manager tries the regions of its configuration).
func (c *Client) SearchOrder() []string {
	out := []string{c.defaultRegion}
	for _, r := range c.regions {
		if r != c.defaultRegion {
			out = append(out, r)
		}
	}

	return out
}

// InEveryRegion finds the object of kind with ID id, given without a region, by asking find in
// every region of the search order (SearchOrder); find answers ErrNotLocated (wrapped) where the
// object is not. It returns what was found and its region. Found nowhere: an error wrapping
// ErrNotLocated that names the regions searched; found in several: an error naming them (IDs are
// unique in one region only, so the region must then be given); any other failure of find: that
// failure.
func InEveryRegion[O any](ctx context.Context, c *Client, kind, id string,
	find func(ctx context.Context, region string) (O, error),
) (O, string, error) {
	var (
		found   O
		where   []string
		regions = c.SearchOrder()
	)

	for _, region := range regions {
		o, err := find(ctx, region)

		switch {
		case errors.Is(err, ErrNotLocated):
			continue
		case err != nil:
			return found, "", err
		}

		if len(where) == 0 {
			found = o
		}

		where = append(where, region)
	}

	switch len(where) {
	case 0:
		return found, "", notLocated(fmt.Sprintf("no %s with ID %q in any served region (%s)", kind, id,
			strings.Join(regions, ", ")))
	case 1:
		return found, where[0], nil
	}

	var none O

	return none, "", fmt.Errorf("a %s with ID %q exists in several regions (%s): give the region", kind, id,
		strings.Join(where, ", "))
}
