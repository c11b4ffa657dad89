package cloud

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// IdentityProjectError is an identity_id that names no identity of this provider: a project
// outside the managed domain, one not made by unikorn_identity, or the service user's own.
type IdentityProjectError struct {
	ProjectID, Reason string
}

func (e *IdentityProjectError) Error() string {
	return fmt.Sprintf("identity %s is not an identity of this provider: %s", e.ProjectID, e.Reason)
}

// CheckIdentityProject verifies, once per project and run, that projectID is a Keystone project
// of the managed domain made by unikorn_identity (its name carries the identity prefix) and not
// the service user's own project, so that a mistyped identity_id never acts in another tenant's
// project. A project the manager scope may not read is outside the managed domain.
func (c *Client) CheckIdentityProject(ctx context.Context, projectID string) error {
	_, err := c.IdentityProject(ctx, projectID)

	return err
}

// IdentityProject is the identity project projectID (its name, tags and description), read and
// checked (CheckIdentityProject) once per run: every server of the identity reads its tags
// from here. ForgetIdentityProject drops it after a change.
func (c *Client) IdentityProject(ctx context.Context, projectID string) (*projects.Project, error) {
	if projectID == c.baseProjectID {
		return nil, &IdentityProjectError{ProjectID: projectID, Reason: "it is the service user's own project"}
	}

	return c.identityProjects.Get(ctx, projectID, func(ctx context.Context) (*projects.Project, error) {
		return c.checkIdentityProject(ctx, projectID)
	})
}

// ForgetIdentityProject drops the project read by IdentityProject: for use after the project was
// changed (its tags or description) or deleted.
func (c *Client) ForgetIdentityProject(projectID string) {
	c.identityProjects.Forget(projectID)
}

// identityProjectName is the name of the identity project projectID (which is also its user's
// name).
func (c *Client) identityProjectName(ctx context.Context, projectID string) (string, error) {
	p, err := c.IdentityProject(ctx, projectID)
	if err != nil {
		return "", err
	}

	return p.Name, nil
}

func (c *Client) checkIdentityProject(ctx context.Context, projectID string) (*projects.Project, error) {
	domainID, sc, err := c.ManagerKeystone(ctx)
	if err != nil {
		return nil, err
	}

	p, err := projects.Get(ctx, sc, projectID).Extract()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound), gophercloud.ResponseCodeIs(err, http.StatusForbidden), err == nil && p == nil:
		return nil, &IdentityProjectError{ProjectID: projectID, Reason: "no project of the managed domain has that ID"}
	case err != nil:
		return nil, fmt.Errorf("reading project %s to check it is an identity: %w", projectID, err)
	case p.DomainID != domainID:
		return nil, &IdentityProjectError{ProjectID: projectID, Reason: fmt.Sprintf("project %q is in domain %s, not in the managed domain %s", p.Name, p.DomainID, domainID)}
	case !strings.HasPrefix(p.Name, naming.IdentityPrefix):
		return nil, &IdentityProjectError{ProjectID: projectID, Reason: fmt.Sprintf("project %q was not made by unikorn_identity (its name lacks the %q prefix)", p.Name, naming.IdentityPrefix)}
	}

	return p, nil
}

// ManagerKeystone is the managed domain's ID and the Keystone client of the manager scope: the
// opening of every Keystone call on identities.
func (c *Client) ManagerKeystone(ctx context.Context) (string, *gophercloud.ServiceClient, error) {
	domainID, err := c.ManagedDomainID(ctx)
	if err != nil {
		return "", nil, err
	}

	sess, err := c.Manager(ctx)
	if err != nil {
		return "", nil, err
	}

	sc, err := sess.Keystone()

	return domainID, sc, err
}

// identityUserID is the ID of the user of the identity project projectID: the user of the
// managed domain named like the project (DESIGN.md §5), the one trustor of its trust.
func (c *Client) identityUserID(ctx context.Context, projectID string) (string, error) {
	name, err := c.identityProjectName(ctx, projectID)
	if err != nil {
		return "", err
	}

	domainID, sc, err := c.ManagerKeystone(ctx)
	if err != nil {
		return "", err
	}

	all, err := ListAll(ctx, users.List(sc, users.ListOpts{DomainID: domainID, Name: name}), users.ExtractUsers, "the users named "+name)
	if err != nil {
		return "", err
	}

	exact := naming.Exact(all, name, func(u users.User) string { return u.Name })

	switch len(exact) {
	case 0:
		return "", fmt.Errorf("identity %s has no user %q in the managed domain: re-create the unikorn_identity that owns it", projectID, name)
	case 1:
		return exact[0].ID, nil
	}

	return "", fmt.Errorf("identity %s: %d users of the managed domain are named %q", projectID, len(exact), name)
}

// NewTenant binds a tenant to a session of its own, for tests against fake endpoints and for
// callers that already hold the session.
func NewTenant(sess *Session, projectID, region string) *Tenant {
	return &Tenant{session: sess, projectID: projectID, region: region}
}

// IdentityProject is the tenant's identity project as the run read it once
// (Client.IdentityProject); ok is false for a tenant without a cloud behind it (tests on fakes).
func (t *Tenant) IdentityProject(ctx context.Context) (*projects.Project, bool, error) {
	if t == nil || t.session == nil || t.session.client == nil {
		return nil, false, nil
	}

	p, err := t.session.client.IdentityProject(ctx, t.projectID)

	return p, true, err
}

// As is the same project and region bound with another scope.
func (t *Tenant) As(ctx context.Context, scope Scope) (*Tenant, error) {
	if t.human {
		return t.session.client.ProjectTenant(ctx, t.projectID, t.region, scope)
	}

	return t.session.client.Tenant(ctx, t.projectID, t.region, scope)
}

// AdminRefusal is Client.AdminRefusal for a call made in this tenant's admin scope; err as it
// is for a tenant without a cloud behind it (tests).
func (t *Tenant) AdminRefusal(service, call string, err error) error {
	if t == nil || t.session == nil {
		return err
	}

	return t.session.client.AdminRefusal(service, call, err)
}

// ProjectAdminRefusal is Client.ProjectAdminRefusal for a call made in this tenant's privileged
// scope; err as it is for a tenant without a cloud behind it (tests).
func (t *Tenant) ProjectAdminRefusal(service, call string, err error) error {
	if t == nil || t.session == nil {
		return err
	}

	return t.session.client.ProjectAdminRefusal(service, call, err)
}

// ProjectID is the identity's Keystone project (also under the Admin scope, whose token may
// be scoped elsewhere: calls name this project).
func (t *Tenant) ProjectID() string { return t.projectID }

// Region is the resolved region.
func (t *Tenant) Region() string { return t.region }

// Session is the credential scope the tenant is bound with.
func (t *Tenant) Session() *Session { return t.session }

// String names the tenant for messages: "project P, region R".
func (t *Tenant) String() string {
	return fmt.Sprintf("project %s, region %s", t.projectID, t.region)
}

// Compute is the tenant's Nova client.
func (t *Tenant) Compute() (*gophercloud.ServiceClient, error) { return t.session.Compute(t.region) }

// Network is the tenant's Neutron client.
func (t *Tenant) Network() (*gophercloud.ServiceClient, error) { return t.session.Network(t.region) }

// Image is the tenant's Glance client.
func (t *Tenant) Image() (*gophercloud.ServiceClient, error) { return t.session.Image(t.region) }

// LoadBalancer is the tenant's Octavia client.
func (t *Tenant) LoadBalancer() (*gophercloud.ServiceClient, error) {
	return t.session.LoadBalancer(t.region)
}

// BlockStorage is the tenant's Cinder client.
func (t *Tenant) BlockStorage() (*gophercloud.ServiceClient, error) {
	return t.session.BlockStorage(t.region)
}

// Placement is the tenant's Placement client.
func (t *Tenant) Placement() (*gophercloud.ServiceClient, error) {
	return t.session.Placement(t.region)
}

// Keystone is the Keystone client of the tenant's scope (global).
func (t *Tenant) Keystone() (*gophercloud.ServiceClient, error) { return t.session.Keystone() }

// Located is a tenant object found for import: its ID, the identity (project) that owns it
// and its user-given name (the linkage prefix stripped).
type Located struct {
	ID        string
	ProjectID string
	Name      string
	// InProject says that ProjectID is a unikorn_project's project, not an identity's.
	InProject bool
}

// uuidPattern is the form of the IDs of Nova, Neutron, Octavia and Glance objects.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// LooksLikeID tells whether s has the form of an OpenStack object ID (a UUID), so that an
// import argument is tried as an ID before it is tried as a name.
func LooksLikeID(s string) bool {
	return uuidPattern.MatchString(s)
}
