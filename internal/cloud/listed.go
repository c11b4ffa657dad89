package cloud

import (
	"context"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/pagination"
)

// TenantListing says how the objects of a tenant kind are listed in a project (for the kind's
// list resource): with which service client, request and extraction, and which of them are the
// provider's (named <Prefix><name>; Prefix "" keeps them all).
type TenantListing[T any] struct {
	What     string // "networks", in messages
	Service  func(*Tenant) (*gophercloud.ServiceClient, error)
	List     func(sc *gophercloud.ServiceClient, projectID string) pagination.Pager
	Extract  func(pagination.Page) ([]T, error)
	Prefix   string
	Name, ID func(T) string
}

// In lists the objects of the kind in project projectID (an identity's) in region, bound in the
// privileged scope; Located.Name is the <name>.
func (l TenantListing[T]) In(ctx context.Context, c *Client, projectID, region string) ([]Located, error) {
	t, err := c.Tenant(ctx, projectID, region, Privileged)
	if err != nil {
		return nil, err
	}

	sc, err := l.Service(t)
	if err != nil {
		return nil, err
	}

	all, err := ListAll(ctx, l.List(sc, projectID), l.Extract, "the "+l.What+" of "+t.String())
	if err != nil {
		return nil, err
	}

	var out []Located

	for _, o := range all {
		if name, ok := strings.CutPrefix(l.Name(o), l.Prefix); ok && name != "" {
			out = append(out, Located{ID: l.ID(o), ProjectID: projectID, Name: name})
		}
	}

	return out, nil
}
