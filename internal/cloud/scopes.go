package cloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// scopeKind is one of the credential scopes of DESIGN.md §4 (plus the configured one).
type scopeKind int

const (
	scopeBase       scopeKind = iota // as configured, usually the service user's own project
	scopeManager                     // service user, domain-scoped to the managed domain
	scopePrivileged                  // service user, project-scoped to an identity's project
	scopeIdentity                    // service user acting for the identity's user through a trust
	scopeUser                        // another user with a password held for a moment (UserSession)
)

func (k scopeKind) String() string {
	switch k {
	case scopeManager:
		return "manager"
	case scopePrivileged:
		return "privileged"
	case scopeIdentity:
		return "identity"
	case scopeUser:
		return "user"
	}

	return "base"
}

type sessionKey struct {
	kind    scopeKind
	project string
}

// errNoDomain is a configuration without a managed domain.
var errNoDomain = errors.New("no managed Keystone domain is configured: set domain (UNIKORN_DOMAIN)")

// Manager is the service user scoped to the managed domain: projects, users, role
// assignments. It authenticates scoped to the domain as configured (by name or by ID): the
// token names the domain's ID and the service user's roles there, so that neither costs a
// request of its own (ManagedDomainID, CheckGrants).
func (c *Client) Manager(ctx context.Context) (*Session, error) {
	if c.settings.domain == "" {
		return nil, errNoDomain
	}

	return c.sessions.Get(ctx, sessionKey{kind: scopeManager}, c.newManagerSession)
}

// newManagerSession authenticates scoped to the managed domain, by name and by ID (the ID first
// when the setting has the form of one). When neither works it says why as precisely as the
// configured scope can tell: no such domain, or no role on it.
func (c *Client) newManagerSession(ctx context.Context) (*Session, error) {
	want := c.settings.domain

	scopes := []*gophercloud.AuthScope{{DomainName: want}, {DomainID: want}}
	if keystoneIDPattern.MatchString(want) {
		scopes[0], scopes[1] = scopes[1], scopes[0]
	}

	var errs []error

	for _, scope := range scopes {
		pc, res, err := c.authenticate(ctx, scope)
		if err != nil {
			errs = append(errs, err)
			continue
		}

		d, err := res.ExtractDomain()
		if err != nil || d == nil || d.ID == "" {
			errs = append(errs, fmt.Errorf("the token scoped to domain %q names no domain (%v)", want, err))
			continue
		}

		roles, _ := res.ExtractRoles()

		tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Authenticated a credential scope", map[string]any{
			"scope": scopeManager.String(), "domain_id": d.ID,
		})

		return &Session{client: c, kind: scopeManager, provider: pc, domainID: d.ID, roles: roleNames(roles)}, nil
	}

	if _, err := c.domainID.Get(ctx, struct{}{}, c.resolveDomain); err != nil {
		return nil, err
	}

	return nil, errors.Join(errs...)
}

// keystoneIDPattern is the form of Keystone's IDs (32 hex digits).
var keystoneIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// roleNames are the names of a token's roles, sorted.
func roleNames(roles []tokens.Role) []string {
	out := make([]string, 0, len(roles))
	for _, r := range roles {
		out = append(out, r.Name)
	}

	slices.Sort(out)

	return slices.Compact(out)
}

// Privileged is the service user scoped to projectID: quotas, networks, security groups.
func (c *Client) Privileged(ctx context.Context, projectID string) (*Session, error) {
	if projectID == "" {
		return nil, errors.New("privileged scope: empty project ID")
	}

	return c.sessions.Get(ctx, sessionKey{kind: scopePrivileged, project: projectID}, func(ctx context.Context) (*Session, error) {
		return c.newSession(ctx, scopePrivileged, projectID, &gophercloud.AuthScope{ProjectID: projectID})
	})
}

// Identity acts as the identity's own user inside projectID through the Keystone trust whose
// trustee is the service user and whose project is projectID. The trust is re-found, never
// stored; the service user authenticates with its password and the trust scope.
func (c *Client) Identity(ctx context.Context, projectID string) (*Session, error) {
	if projectID == "" {
		return nil, errors.New("identity scope: empty project ID")
	}

	return c.sessions.Get(ctx, sessionKey{kind: scopeIdentity, project: projectID}, func(ctx context.Context) (*Session, error) {
		if trustID, trustor := c.recordedTrust(ctx, projectID); trustID != "" {
			if sess, err := c.trustSession(ctx, projectID, trustID); err == nil {
				c.trustorProven(projectID, trustor)
				return sess, nil
			}
		}

		trustID, err := c.findTrust(ctx, projectID)
		if err != nil {
			return nil, err
		}

		sess, err := c.trustSession(ctx, projectID, trustID)
		if err == nil {
			return sess, nil
		}

		// The listing may be older than the trust's deletion or replacement: list once more.
		c.ForgetTrusts()

		again, findErr := c.findTrust(ctx, projectID)
		if findErr != nil || again == trustID {
			return nil, errors.Join(err, findErr)
		}

		return c.trustSession(ctx, projectID, again)
	})
}

// ActAsIdentity makes user — a UserSession of the identity's own user in its project projectID,
// which the run authenticated anyway to make the identity's trust or application credential
// (Keystone lets only the user do either) — the identity scope of projectID for the rest of
// the run, instead of one more token through the trust: the same user (the trust impersonates
// it), in the same project, with the roles the trust delegates (Keystone refuses to delegate a
// role the token lacks). The session holds no password: near its token's end it authenticates
// through the trust, as the identity scope always does. A later ForgetProject drops it.
func (c *Client) ActAsIdentity(ctx context.Context, projectID string, user *Session) {
	if projectID == "" || user == nil || user.kind != scopeUser || user.projectID != projectID || user.provider == nil {
		return
	}

	// A client of its own, holding a copy of the user's token: its re-authentication through
	// the trust never changes the user's session (which the run may still use as the user).
	pc, err := c.newProviderClient()
	if err != nil {
		return
	}

	pc.CopyTokenFrom(user.provider)
	pc.EndpointLocator = user.provider.EndpointLocator
	pc.ReauthBeforeTokenExpiration = tokenRefreshMargin
	pc.ReauthFunc = func(ctx context.Context) error {
		trustID, err := c.findTrust(ctx, projectID)
		if err != nil {
			return err
		}

		fresh, _, err := c.authenticate(ctx, &gophercloud.AuthScope{TrustID: trustID})
		if err != nil {
			return err
		}

		pc.CopyTokenFrom(fresh)

		return nil
	}

	c.sessions.Put(sessionKey{kind: scopeIdentity, project: projectID},
		&Session{client: c, kind: scopeIdentity, projectID: projectID, provider: pc})

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Acting as the identity with its user's own token", map[string]any{
		"scope": scopeIdentity.String(), "project_id": projectID,
	})
}

// ForgetProject drops the cached Privileged and Identity sessions of projectID, so that the
// next call authenticates again: for use after the project's trust or role grants were
// replaced, since a token keeps the roles (and trust) it was issued with; the trust listing
// and the project as read (IdentityProject) are taken again too. The scope as configured (the
// service user's own project) is kept.
func (c *Client) ForgetProject(projectID string) {
	if projectID != c.baseProjectID {
		c.sessions.Forget(sessionKey{kind: scopePrivileged, project: projectID})
		c.forgetProjectTokens(projectID)
	}

	c.sessions.Forget(sessionKey{kind: scopeIdentity, project: projectID})
	c.ForgetTrusts()
	c.ForgetIdentityProject(projectID)
}

// ManagedDomainID is the ID of the managed Keystone domain (configured by name or ID): the one
// the manager scope's token names, else (the scope cannot be had) as listed.
func (c *Client) ManagedDomainID(ctx context.Context) (string, error) {
	if c.settings.domain == "" {
		return "", errNoDomain
	}

	if sess, err := c.Manager(ctx); err == nil {
		return sess.domainID, nil
	}

	return c.domainID.Get(ctx, struct{}{}, c.resolveDomain)
}

// resolveDomain finds the managed domain by exact name, then by ID.
func (c *Client) resolveDomain(ctx context.Context) (string, error) {
	want := c.settings.domain

	sc, err := c.base.Keystone()
	if err != nil {
		return "", err
	}

	var byName error

	pages, err := domains.List(sc, domains.ListOpts{Name: want}).AllPages(ctx)
	if err == nil {
		var found []domains.Domain

		found, err = domains.ExtractDomains(pages)
		if err == nil {
			var ids []string

			for _, d := range found {
				if d.Name == want {
					ids = append(ids, d.ID)
				}
			}

			switch len(ids) {
			case 1:
				return ids[0], nil
			case 0:
			default:
				return "", fmt.Errorf("managed domain %q: %d domains carry that name (%s)", want, len(ids), strings.Join(ids, ", "))
			}
		}
	}

	if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return "", fmt.Errorf("looking up the managed domain %q by name: %w", want, err)
	}

	byName = err

	d, err := domains.Get(ctx, sc, want).Extract()

	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		// A service user that may not read domains where it is configured (the inherited
		// model: only member on its own project) still holds a role on the managed domain:
		// a token scoped to it names its ID.
		if id, scopedErr := c.domainIDFromScope(ctx, want); scopedErr == nil {
			return id, nil
		}
	}

	switch {
	case err == nil:
		return d.ID, nil
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound) && byName == nil:
		return "", fmt.Errorf("managed domain %q not found: no Keystone domain has that name or ID (domain / UNIKORN_DOMAIN)", want)
	default:
		return "", fmt.Errorf("looking up the managed domain %q: %w", want, errors.Join(byName, err))
	}
}

// liveTrusts lists the live trusts whose trustee is the service user, once per run: every
// identity scope and every import reads that one listing (no request per project). fresh
// drops the cached listing first, for a trust made or deleted since it was taken.
func (c *Client) liveTrusts(ctx context.Context, fresh bool) ([]trusts.Trust, error) {
	if fresh {
		c.trusts.Forget(struct{}{})
	}

	return c.trusts.Get(ctx, struct{}{}, func(ctx context.Context) ([]trusts.Trust, error) {
		sc, err := c.base.Keystone()
		if err != nil {
			return nil, err
		}

		pages, err := trusts.List(sc, trusts.ListOpts{TrusteeUserID: c.serviceUserID}).AllPages(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing the Keystone trusts of the service user %s: %w", c.serviceUserID, err)
		}

		all, err := trusts.ExtractTrusts(pages)
		if err != nil {
			return nil, fmt.Errorf("reading the Keystone trusts of the service user %s: %w", c.serviceUserID, err)
		}

		now := time.Now()
		live := all[:0]

		for _, t := range all {
			if t.TrusteeUserID != "" && t.TrusteeUserID != c.serviceUserID {
				continue
			}

			if !t.ExpiresAt.IsZero() && !t.ExpiresAt.After(now) {
				continue
			}

			live = append(live, t)
		}

		return live, nil
	})
}

// TrustedProjects lists the projects in which the service user holds a live trust: the
// identities' projects, for finding a tenant object whose project is not known (import).
func (c *Client) TrustedProjects(ctx context.Context) ([]string, error) {
	live, err := c.liveTrusts(ctx, false)
	if err != nil {
		return nil, err
	}

	seen := map[string]bool{}

	var projects []string

	for _, t := range live {
		if t.ProjectID != "" && !seen[t.ProjectID] {
			seen[t.ProjectID] = true
			projects = append(projects, t.ProjectID)
		}
	}

	return projects, nil
}

// ForgetTrusts drops the cached trust listing: for use after a trust was made or deleted.
func (c *Client) ForgetTrusts() {
	c.trusts.Forget(struct{}{})
}

// domainIDFromScope authenticates scoped to the domain want (a name, else an ID) and returns
// the ID the token names.
func (c *Client) domainIDFromScope(ctx context.Context, want string) (string, error) {
	var errs []error

	for _, scope := range []*gophercloud.AuthScope{{DomainName: want}, {DomainID: want}} {
		_, res, err := c.authenticate(ctx, scope)
		if err != nil {
			errs = append(errs, err)
			continue
		}

		d, err := res.ExtractDomain()
		if err == nil && d != nil && d.ID != "" {
			return d.ID, nil
		}

		errs = append(errs, fmt.Errorf("the token scoped to domain %q names no domain (%v)", want, err))
	}

	return "", errors.Join(errs...)
}

// findTrust returns the one live trust from the identity's own user (the user named like the
// project: DESIGN.md §4) to the service user on projectID, so that a trust someone else made on
// the project is never acted through. It reads the run's trust listing, and lists again once when the project has none there (a trust
// made after the listing was taken).
func (c *Client) findTrust(ctx context.Context, projectID string) (string, error) {
	trustor, err := c.identityUserID(ctx, projectID)
	if err != nil {
		return "", err
	}

	var ids []string

	for _, fresh := range []bool{false, true} {
		if ids, err = c.trustsFrom(ctx, projectID, trustor, fresh); err != nil || len(ids) > 0 {
			break
		}
	}

	if err != nil {
		return "", err
	}

	switch len(ids) {
	case 1:
		c.trustorProven(projectID, trustor)

		return ids[0], nil
	case 0:
		return "", &NoTrustError{ProjectID: projectID, ServiceUserID: c.serviceUserID}
	}

	return "", fmt.Errorf("%d Keystone trusts to the service user %s on project %s (%s): expected exactly one; "+
		"delete the extra ones", len(ids), c.serviceUserID, projectID, strings.Join(ids, ", "))
}

// trustsFrom are the IDs of the live trusts from trustor to the service user on projectID, as
// the run's trust listing names them (fresh: listed again first).
func (c *Client) trustsFrom(ctx context.Context, projectID, trustor string, fresh bool) ([]string, error) {
	live, err := c.liveTrusts(ctx, fresh)
	if err != nil {
		return nil, err
	}

	var ids []string

	for _, t := range live {
		if t.ProjectID == projectID && t.TrustorUserID == trustor {
			ids = append(ids, t.ID)
		}
	}

	return ids, nil
}

// newSession authenticates a new scope.
func (c *Client) newSession(ctx context.Context, kind scopeKind, projectID string, scope *gophercloud.AuthScope) (*Session, error) {
	pc, _, err := c.authenticate(ctx, scope)
	if err != nil {
		return nil, err
	}

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Authenticated a credential scope", map[string]any{
		"scope":      kind.String(),
		"project_id": projectID,
	})

	return &Session{client: c, kind: kind, projectID: projectID, provider: pc}, nil
}
