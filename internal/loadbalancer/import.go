package loadbalancer

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Locate finds the load balancer idOrName (an Octavia ID, or the user-given name of
// lb-<name>) in region, and the identity project it belongs to, which an import ID does not
// carry. It asks in the provider's own scope first (an Octavia admin there sees every
// project); when that scope may not look, it asks in the privileged scope of every project
// in which the service user holds a trust (the identities' projects, from the run's one trust
// listing). The name it returns is the user-given one.
func Locate(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	octavia, err := c.Base().LoadBalancer(region)
	if err != nil {
		return cloud.Located{}, err
	}

	lb, err := (&Service{Octavia: octavia}).locate(ctx, idOrName, idOrName)
	if err == nil && lb != nil {
		return located(lb, lb.ProjectID)
	}

	if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return cloud.Located{}, err
	}

	projects, err := c.TrustedProjects(ctx)
	if err != nil {
		return cloud.Located{}, err
	}

	var found []cloud.Located

	for _, p := range projects {
		t, err := c.Tenant(ctx, p, region, cloud.Privileged)
		if err != nil {
			continue // a project the service user cannot enter is not where the load balancer is
		}

		svc, err := NewService(t, false)
		if err != nil {
			return cloud.Located{}, err
		}

		lb, err := svc.locate(ctx, idOrName, idOrName)
		if err != nil {
			return cloud.Located{}, fmt.Errorf("looking for load balancer %q in project %s: %w", idOrName, p, err)
		}

		if lb != nil {
			l, err := located(lb, p)
			if err != nil {
				return cloud.Located{}, err
			}

			found = append(found, l)
		}
	}

	switch len(found) {
	case 0:
		return cloud.Located{}, cloud.NotLocated("load balancer", idOrName, region)
	case 1:
		return found[0], nil
	}

	ids := make([]string, len(found))
	for i, l := range found {
		ids[i] = fmt.Sprintf("%s (project %s)", l.ID, l.ProjectID)
	}

	return cloud.Located{}, fmt.Errorf("%d load balancers match %q in region %s: %s; import by ID",
		len(found), idOrName, region, strings.Join(ids, ", "))
}

// located is lb of project as an import found it.
func located(lb *loadbalancers.LoadBalancer, project string) (cloud.Located, error) {
	name, err := NameOf(lb.Name)
	if err != nil {
		return cloud.Located{}, err
	}

	return cloud.Located{ID: lb.ID, ProjectID: project, Name: name}, nil
}
