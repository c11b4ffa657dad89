package cloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// A human project is a Keystone project made by unikorn_project (in the managed domain or
// another one, such as an SSO domain): networks and security groups may live in it
// (project_id), worked on in the privileged scope as in an identity's project; servers and
// load balancers may not, since it has no trust (no identity scope).

// keystoneDefaultDomainID is Keystone's own domain, which holds the service users and the
// cloud's service projects: never a human project's.
const keystoneDefaultDomainID = "default"

// ProjectError is a project_id that names no project of unikorn_project.
type ProjectError struct {
	ProjectID, Reason string
}

func (e *ProjectError) Error() string {
	return fmt.Sprintf("project %s is not a project made by unikorn_project: %s", e.ProjectID, e.Reason)
}

// ProjectTenant binds the human project projectID in region ("" = the provider's default
// region) with scope: Privileged or Admin. A human project has no identity scope.
func (c *Client) ProjectTenant(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	switch {
	case projectID == "":
		return nil, errors.New("empty project ID")
	case scope == AsIdentity:
		return nil, &ProjectError{ProjectID: projectID, Reason: "a human project has no identity scope: " +
			"servers and load balancers live in a unikorn_identity's project (identity_id)"}
	}

	return c.bind(ctx, projectID, region, scope, true)
}

// CheckHumanProject verifies, once per project and run, the rule that keeps a mistyped
// project_id from acting in someone else's project: projectID must be a Keystone project that
// carries the tag naming.HumanProjectTag (which unikorn_project writes), is not in Keystone's
// Default domain (the service users' and the cloud's own projects), is not an identity's
// project (those are identity_id's), and is not the service user's own. It is read in the
// provider's configured scope, which holds the cloud-admin grant that unikorn_project needs.
func (c *Client) CheckHumanProject(ctx context.Context, projectID string) error {
	if projectID == c.baseProjectID {
		return &ProjectError{ProjectID: projectID, Reason: "it is the service user's own project"}
	}

	_, err := c.humanProjects.Get(ctx, projectID, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.checkHumanProject(ctx, projectID)
	})

	return err
}

func (c *Client) checkHumanProject(ctx context.Context, projectID string) error {
	sc, err := c.base.Keystone()
	if err != nil {
		return err
	}

	p, err := projects.Get(ctx, sc, projectID).Extract()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound), gophercloud.ResponseCodeIs(err, http.StatusForbidden), err == nil && p == nil:
		return &ProjectError{ProjectID: projectID, Reason: "no project the service user may read has that ID"}
	case err != nil:
		return fmt.Errorf("reading project %s to check it is a unikorn_project's: %w", projectID, err)
	case p.DomainID == keystoneDefaultDomainID:
		return &ProjectError{ProjectID: projectID, Reason: fmt.Sprintf("project %q is in Keystone's Default domain", p.Name)}
	case strings.HasPrefix(p.Name, naming.IdentityPrefix):
		return &ProjectError{ProjectID: projectID, Reason: fmt.Sprintf("project %q is an identity's: refer to it with identity_id", p.Name)}
	case !slices.Contains(p.Tags, naming.HumanProjectTag):
		return &ProjectError{ProjectID: projectID, Reason: fmt.Sprintf("project %q lacks the tag %q that unikorn_project writes", p.Name, naming.HumanProjectTag)}
	}

	return nil
}
