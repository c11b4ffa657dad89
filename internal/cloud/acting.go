package cloud

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// How the provider acts in a project: the one place that says which scope, which credential and
// which check a tenant is bound with, and why (DESIGN.md §4). Every tenant core takes the
// *Tenant that Client.Tenant (an identity's project, identity_id) or Client.ProjectTenant (a
// unikorn_project's, project_id) binds.
//
//	asked for    project             credential                                  check
//	----------   -----------------   -----------------------------------------   ----------------------------
//	Privileged   identity / human    service user, scoped to the project (in an  IdentityProject / human tag
//	                                 identity made elsewhere, after granting it
//	                                 the privileged roles it lacks there)
//	Admin        identity / human    service user where admin holds (grants.go)  the same
//	AsIdentity   identity, trusted   service user through the identity's trust   the trust's token, else
//	                                 (acts as the identity's user)               IdentityProject (below)
//	AsIdentity   identity made       service user, scoped to the project, after  IdentityProject
//	             elsewhere (no       granting itself the privileged roles there
//	             trust, unmarked)    (ServiceUserRoles) when it lacks them
//
// Why:
//   - Privileged serves every read and delete, so that a broken or missing trust never blocks a
//     refresh or a destroy.
//   - AsIdentity is for what should belong to the identity's own user (servers, ports, floating
//     IPs, load balancers, keypairs). The trust is made by unikorn_identity; it is re-found from
//     the run's one trust listing, from the trustor a resource recorded (trustor.go) or the user
//     named like the project, never from another user.
//   - An identity this provider did not make (Unikorn's: no creation mark on its project, and no
//     trust to the service user) is never entered as its user: Unikorn logs in with the password
//     it stored, so resetting it would break Unikorn. The provider acts there as the service user
//     in the project, as Unikorn itself does for networks, security groups and pinned servers;
//     what it makes is then the service user's (Tenant.AsServiceUser). Stock policy needs member
//     roles for that (Unikorn grants its service user only manager): the provider grants its own
//     service user the missing ones, the only write it makes in such a project that the
//     configuration did not ask for, and one that touches no object of Unikorn's.
//   - An identity this provider made whose trust is gone is an error (*NoTrustError): acting as
//     the service user there would silently change who owns what it makes.

// Scope is the credential scope a tenant is bound with (DESIGN.md §4).
type Scope int

const (
	// Privileged is the service user inside the identity's project: enough to read and delete
	// every tenant object, and independent of the identity's trust, so that a broken or
	// missing trust never blocks a refresh or a destroy.
	Privileged Scope = iota
	// AsIdentity acts as the identity's own user through its Keystone trust: what is created
	// with it is owned by that user (ports, servers, floating IPs, load balancers).
	AsIdentity
	// Admin is where the calls that stock policy reserves for admin are made on the
	// identity's behalf (quota updates, Neutron's default security group, VLAN provider
	// networks): the service user's own project under the cloud-admin grant model, naming the
	// identity's project in the call; the privileged scope under the inherited model.
	Admin
)

func (s Scope) String() string {
	switch s {
	case AsIdentity:
		return scopeIdentity.String()
	case Admin:
		return "admin"
	}

	return scopePrivileged.String()
}

// Tenant is an identity's project in one served region, bound to one credential scope: the
// one value every tenant core takes. It hands out the service clients of that scope and
// region; the region is resolved once, when the tenant is bound.
type Tenant struct {
	session   *Session
	projectID string
	region    string
	// human says that the project is a unikorn_project's (ProjectTenant), not an identity's.
	human bool
	// serviceUser says that an AsIdentity bind acts as the service user: the identity was not
	// made by this provider and has no trust (AsServiceUser).
	serviceUser bool
}

// Tenant binds the identity whose Keystone project is projectID in region ("" = the
// provider's default region) with scope.
func (c *Client) Tenant(ctx context.Context, projectID, region string, scope Scope) (*Tenant, error) {
	if projectID == "" {
		return nil, errors.New("empty identity (project) ID")
	}

	return c.bind(ctx, projectID, region, scope, false)
}

// bind binds projectID in region with scope, once the project passed its check: an identity's
// (CheckIdentityProject), or a unikorn_project's when human (CheckHumanProject).
func (c *Client) bind(ctx context.Context, projectID, region string, scope Scope, human bool) (*Tenant, error) {
	resolved, err := c.ResolveRegion(region)
	if err != nil {
		return nil, err
	}

	if scope == AsIdentity && !human {
		sess, err := c.checkedIdentity(ctx, projectID)
		if err == nil {
			return &Tenant{session: sess, projectID: projectID, region: resolved}, nil
		}

		if sess, err = c.foreignIdentity(ctx, projectID, err); err != nil {
			return nil, err
		}

		return &Tenant{session: sess, projectID: projectID, region: resolved, serviceUser: true}, nil
	}

	check := c.CheckIdentityProject
	if human {
		check = c.CheckHumanProject
	}

	if err := check(ctx, projectID); err != nil {
		return nil, err
	}

	var sess *Session

	switch scope {
	case AsIdentity:
		sess, err = c.Identity(ctx, projectID)
	case Admin:
		sess, err = c.adminSession(ctx, projectID)
	default:
		if !human {
			if err := c.enterForeign(ctx, projectID); err != nil {
				return nil, err
			}
		}

		sess, err = c.Privileged(ctx, projectID)
	}

	if err != nil {
		return nil, err
	}

	return &Tenant{session: sess, projectID: projectID, region: resolved, human: human}, nil
}

// checkedIdentity is the identity scope of projectID once the project passed its check
// (CheckIdentityProject). A trust's token names its project and the project's domain; when they
// show an identity of the managed domain (identityByToken), that is the check, and acting as an
// identity takes no manager-scope request. Anything else, a project the identity scope cannot be
// had for included, is checked in the manager scope, which says best why a project is no
// identity.
func (c *Client) checkedIdentity(ctx context.Context, projectID string) (*Session, error) {
	if projectID == c.baseProjectID {
		return nil, c.CheckIdentityProject(ctx, projectID)
	}

	sess, err := c.Identity(ctx, projectID)
	if err != nil {
		if checkErr := c.CheckIdentityProject(ctx, projectID); checkErr != nil {
			return nil, checkErr
		}

		return nil, err
	}

	if !c.identityByToken(sess) {
		if err := c.CheckIdentityProject(ctx, projectID); err != nil {
			return nil, err
		}
	}

	return sess, nil
}

// identityByToken tells whether the token of sess, an identity scope, shows by itself what
// CheckIdentityProject checks: its project is named like an identity's and is in the managed
// domain as configured (by ID or name). Keystone's token says it as surely as the project read
// in the manager scope does; that read still comes when the run wants the project (its tags).
func (c *Client) identityByToken(sess *Session) bool {
	return sess.domainID != "" && strings.HasPrefix(sess.projectName, naming.IdentityPrefix) &&
		(c.settings.domain == sess.domainID || c.settings.domain == sess.domainName)
}

// NoTrustError is an identity scope that cannot be had: the service user holds no live trust
// from the identity's user on the project.
type NoTrustError struct {
	ProjectID, ServiceUserID string
}

func (e *NoTrustError) Error() string {
	return fmt.Sprintf("no Keystone trust to the service user %s on project %s: the identity's trust is missing "+
		"or expired (re-create the unikorn_identity that owns the project)", e.ServiceUserID, e.ProjectID)
}

// ServiceUserRoles are the roles the service user holds in an identity's project for the
// privileged scope: manager (Unikorn's policy packages let it act for the identity) and the
// member roles that stock policy wants (Nova, Neutron, Cinder: member; Octavia:
// load-balancer_member).
var ServiceUserRoles = []string{"load-balancer_member", "manager", "member"}

// foreignIdentity is the scope of an AsIdentity bind in projectID when the identity scope
// failed with err: the service user in the project (after enterForeign), when the project is an
// identity this provider did not make and the failure is that it has no trust; err otherwise.
func (c *Client) foreignIdentity(ctx context.Context, projectID string, err error) (*Session, error) {
	var noTrust *NoTrustError
	if !errors.As(err, &noTrust) {
		return nil, err
	}

	foreign, perr := c.madeElsewhere(ctx, projectID)

	switch {
	case perr != nil:
		return nil, perr
	case !foreign:
		return nil, err // made by this provider: its trust is to be re-made, not gone round
	}

	if err := c.enterForeign(ctx, projectID); err != nil {
		return nil, err
	}

	tflog.Debug(ctx, "Acting as the service user in an identity this provider did not make", map[string]any{"project_id": projectID})

	return c.Privileged(ctx, projectID)
}

// madeElsewhere tells whether the identity project projectID carries no creation mark: Unikorn,
// a person, or this provider before it marked what it makes.
func (c *Client) madeElsewhere(ctx context.Context, projectID string) (bool, error) {
	p, err := c.IdentityProject(ctx, projectID)
	if err != nil {
		return false, err
	}

	return !naming.MarkOf(p.Extra).Marked(), nil
}

// enterForeign makes sure, before the privileged scope is had in an identity project made
// elsewhere, that the service user holds its roles there (ensureServiceUserRoles); nothing for an
// identity this provider made (it granted them when it made it).
func (c *Client) enterForeign(ctx context.Context, projectID string) error {
	foreign, err := c.madeElsewhere(ctx, projectID)
	if err != nil || !foreign {
		return err
	}

	return c.ensureServiceUserRoles(ctx, projectID)
}

// ensureServiceUserRoles grants the service user, in the manager scope, the roles of
// ServiceUserRoles it lacks on projectID (once per project and run; a grant makes the project's
// cached privileged scope go, since a token keeps the roles it was issued with).
func (c *Client) ensureServiceUserRoles(ctx context.Context, projectID string) error {
	_, err := c.serviceRoles.Get(ctx, projectID, func(ctx context.Context) (struct{}, error) {
		_, sc, err := c.ManagerKeystone(ctx)
		if err != nil {
			return struct{}{}, err
		}

		effective, names := true, true

		have, err := listAssignments(ctx, sc, roles.ListAssignmentsOpts{
			UserID: c.serviceUserID, ScopeProjectID: projectID, Effective: &effective, IncludeNames: &names,
		})
		if err != nil {
			// Not a reason to stop: the scope may well hold already (a manager scope that may not
			// list assignments, an older Keystone); when it does not, authenticating it says so.
			tflog.Debug(ctx, "Could not read the service user's roles in an identity made elsewhere; not granting any",
				map[string]any{"project_id": projectID, "error": err.Error()})

			return struct{}{}, nil //nolint:nilerr // tolerated: authenticating the scope says whether it holds
		}

		held := map[string]bool{} // by name: effective assignments (inherited, implied) count
		for _, a := range have {
			held[a.Role.Name] = true
		}

		ids, err := c.roleIDs(ctx, sc)
		if err != nil {
			return struct{}{}, err
		}

		granted := false

		for _, name := range ServiceUserRoles {
			id, ok := ids[name]
			if !ok || held[name] {
				continue
			}

			if err := roles.Assign(ctx, sc, id, roles.AssignOpts{UserID: c.serviceUserID, ProjectID: projectID}).ExtractErr(); err != nil {
				return struct{}{}, fmt.Errorf("granting the service user the role %s on project %s (an identity this provider "+
					"did not make): %w", name, projectID, err)
			}

			granted = true

			tflog.Info(ctx, "Granted the service user a role it needs in an identity this provider did not make",
				map[string]any{"project_id": projectID, "role": name})
		}

		if granted {
			c.sessions.Forget(sessionKey{kind: scopePrivileged, project: projectID})
			c.forgetProjectTokens(projectID)
		}

		return struct{}{}, nil
	})

	return err
}

// roleIDs maps the names of ServiceUserRoles onto Keystone's role IDs (roles the cloud lacks are
// left out: stock Keystone before 2024.1 may have no manager role).
func (c *Client) roleIDs(ctx context.Context, sc *gophercloud.ServiceClient) (map[string]string, error) {
	all, err := ListAll(ctx, roles.List(sc, roles.ListOpts{}), roles.ExtractRoles, "Keystone roles")
	if err != nil {
		return nil, err
	}

	out := map[string]string{}

	for _, r := range all {
		if slices.Contains(ServiceUserRoles, r.Name) && r.DomainID == "" {
			out[r.Name] = r.ID
		}
	}

	return out, nil
}

// AsServiceUser tells whether the tenant, bound AsIdentity, acts as the service user (an
// identity this provider did not make): what it makes is then the service user's, and nothing
// that only the identity's user has (its keypair) can be used.
func (t *Tenant) AsServiceUser() bool { return t != nil && t.serviceUser }
