package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Located is a load balancer found for an import, with the identity (Keystone project) it
// lives in.
type Located struct {
	ID, Name, ProjectID string
}

// LocateForImport finds the load balancer idOrName (an Octavia ID, or the user-given name of
// lb-<name>) in region, and the identity project it belongs to, which an import ID does not
// carry. It asks in the provider's own scope first (an Octavia admin there sees every
// project); when that scope cannot see it, it asks in the identity scope of every project
// whose Keystone trust names the service user.
func LocateForImport(ctx context.Context, c *cloud.Client, region, idOrName string) (Located, error) {
	octavia, err := c.Base().LoadBalancer(region)
	if err != nil {
		return Located{}, err
	}

	lb, err := (&Service{Octavia: octavia}).locate(ctx, idOrName, idOrName)
	if err == nil && lb != nil {
		return Located{ID: lb.ID, Name: lb.Name, ProjectID: lb.ProjectID}, nil
	}

	if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return Located{}, err
	}

	projects, err := trustedProjects(ctx, c)
	if err != nil {
		return Located{}, err
	}

	var found []Located

	for _, p := range projects {
		sess, err := c.Identity(ctx, p)
		if err != nil {
			continue // a trust that no longer works is not where the load balancer is
		}

		oc, err := sess.LoadBalancer(region)
		if err != nil {
			return Located{}, err
		}

		var lb *loadbalancers.LoadBalancer

		lb, err = (&Service{Octavia: oc}).locate(ctx, idOrName, idOrName)
		if err != nil {
			return Located{}, fmt.Errorf("looking for load balancer %q in project %s: %w", idOrName, p, err)
		}

		if lb != nil {
			found = append(found, Located{ID: lb.ID, Name: lb.Name, ProjectID: p})
		}
	}

	switch len(found) {
	case 0:
		return Located{}, fmt.Errorf("no load balancer with ID %q or named lb-%s in region %s, in any identity's project", idOrName, idOrName, region)
	case 1:
		return found[0], nil
	}

	ids := make([]string, len(found))
	for i, l := range found {
		ids[i] = fmt.Sprintf("%s (project %s)", l.ID, l.ProjectID)
	}

	return Located{}, fmt.Errorf("%d load balancers match %q in region %s: %s; import by ID", len(found), idOrName, region, strings.Join(ids, ", "))
}

// trustedProjects are the projects of the live trusts whose trustee is the service user.
func trustedProjects(ctx context.Context, c *cloud.Client) ([]string, error) {
	sc, err := c.Base().Keystone()
	if err != nil {
		return nil, err
	}

	pages, err := trusts.List(sc, trusts.ListOpts{TrusteeUserID: c.ServiceUserID()}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the trusts of the service user: %w", err)
	}

	all, err := trusts.ExtractTrusts(pages)
	if err != nil {
		return nil, errors.Join(errors.New("reading the trusts of the service user"), err)
	}

	var out []string
	for _, t := range all {
		if t.ProjectID != "" {
			out = append(out, t.ProjectID)
		}
	}

	slices.Sort(out)

	return slices.Compact(out), nil
}
