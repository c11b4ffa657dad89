package cloud

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The service user's grants (DESIGN.md §4). Stock policy reserves some calls for `admin`:
// quota updates in Nova, Neutron, Cinder and Octavia, deleting Neutron's `default` security
// groups, VLAN provider networks, Nova's hypervisors and Placement (the pinned servers'
// preflight), and host-targeted server creates (ProjectAdminRefusal: those must be made inside
// the identity's project, so only the inherited model, or a policy that lets manager do them,
// allows them). The provider supports two grant models:
//
//   - cloud admin (the common case): `admin` on the service user's own project and `admin` or
//     `manager` on the managed domain, nothing inherited. Admin-only calls are made in the
//     service user's own project scope, naming the target project in the call.
//   - domain-inherited admin: `admin` on the managed domain, inherited to its projects. The
//     service user is then admin inside every identity's project, and admin-only calls are made
//     in the privileged scope there.
//
// Configure reads the service user's effective role assignments once (one request) and checks
// them against what the configured features need.

// GrantModel is how the service user holds `admin` for the admin-only calls.
type GrantModel int

const (
	// GrantsUnchecked is a client whose grants were not read (tests against fake clouds): the
	// admin-only calls use the privileged scope, as the inherited model does.
	GrantsUnchecked GrantModel = iota
	// CloudAdmin: admin on the service user's own project.
	CloudAdmin
	// InheritedAdmin: admin on the managed domain, inherited to its projects.
	InheritedAdmin
)

func (m GrantModel) String() string {
	return [...]string{"unchecked", "cloud admin", "domain-inherited admin"}[m]
}

// Grants are the service user's effective role assignments that the provider cares about.
type Grants struct {
	// Model is how admin-only calls are made.
	Model GrantModel
	// Domain are the roles on the managed domain itself; Inherited the roles inherited from it
	// to its projects; Home the roles on the service user's own (configured) project.
	Domain, Inherited, Home []string
}

// Feature is something configured that needs a grant beyond the managed domain's.
type Feature string

// Features the grant check knows.
const (
	// FeatureQuotas is unikorn_identity's quotas (every identity sets them).
	FeatureQuotas Feature = "identity quotas (Nova, Neutron, Cinder, Octavia quota updates) and removing Neutron's default security groups"
	// FeatureProviderNetwork is VLAN provider networks (the provider's provider_network).
	FeatureProviderNetwork Feature = "VLAN provider networks (provider_network)"
)

// GrantError names every missing grant, the feature that needs it and the command that adds it.
type GrantError struct {
	User    string
	Missing []MissingGrant
}

// MissingGrant is one grant the configuration needs.
type MissingGrant struct {
	Grant, NeededFor, Command string
}

func (e *GrantError) Error() string {
	var b strings.Builder

	fmt.Fprintf(&b, "the service user %s lacks grants the configuration needs:", e.User)

	for _, m := range e.Missing {
		fmt.Fprintf(&b, "\n  - %s, needed for %s; add it with:\n      %s", m.Grant, m.NeededFor, m.Command)
	}

	return b.String()
}

// assignment is a role assignment as Keystone returns it, with what gophercloud's
// RoleAssignment drops: with effective=true an assignment inherited from a domain is expanded
// per project and its link names the domain's OS-INHERIT assignment; without it, the scope
// says what it is inherited to.
type assignment struct {
	Role struct {
		Name string `json:"name"`
	} `json:"role"`
	Scope struct {
		Domain struct {
			ID string `json:"id"`
		} `json:"domain"`
		Project struct {
			ID string `json:"id"`
		} `json:"project"`
		InheritedTo string `json:"OS-INHERIT:inherited_to"`
	} `json:"scope"`
	Links struct {
		Assignment string `json:"assignment"`
	} `json:"links"`
}

// inherited tells whether a is inherited from domainID to its projects.
func (a assignment) inherited(domainID string) bool {
	return strings.Contains(a.Links.Assignment, "/OS-INHERIT/domains/"+domainID+"/") ||
		(a.Scope.InheritedTo != "" && a.Scope.Domain.ID == domainID)
}

// listAssignments lists the role assignments that match opts.
func listAssignments(ctx context.Context, sc *gophercloud.ServiceClient, opts roles.ListAssignmentsOpts) ([]assignment, error) {
	var all []assignment

	err := roles.ListAssignments(sc, opts).EachPage(ctx, func(_ context.Context, page pagination.Page) (bool, error) {
		p, ok := page.(roles.RoleAssignmentPage)
		if !ok {
			return false, fmt.Errorf("unexpected page type %T", page)
		}

		var s struct {
			RoleAssignments []assignment `json:"role_assignments"`
		}

		if err := p.ExtractInto(&s); err != nil {
			return false, err
		}

		all = append(all, s.RoleAssignments...)

		return true, nil
	})

	return all, err
}

// CheckGrants reads the service user's role assignments where the grant models put them (two
// requests, names included): effective on its own project (group and implied roles count), and
// direct on the managed domain, where an inherited assignment says what it is inherited to. It
// checks them against what features need beside the managed domain's role, and records the
// grant model that admin-only calls then follow. (One effective listing of everything would be
// one request, but it expands the user's roles in every identity project, and Keystone fails it
// with 404 while a project is being deleted.)
func (c *Client) CheckGrants(ctx context.Context, features ...Feature) (*Grants, error) {
	if g, ok := c.grantsFromTokens(ctx); ok && c.checkGrants(g, features) == nil {
		c.setGrants(g)

		tflog.Debug(ctx, "Checked the service user's grants from its tokens", map[string]any{
			"model": g.Model.String(), "domain_roles": g.Domain, "home_roles": g.Home,
		})

		return g, nil
	}

	// Under load Keystone has been seen to refuse, or to answer without a grant the user
	// holds, for a moment: a missing grant is reported only once it is missing three times.
	var (
		g   *Grants
		err error
	)

	for attempt := range grantReadAttempts {
		if attempt > 0 {
			if sleepErr := Sleep(ctx, time.Duration(attempt)*grantReadPause); sleepErr != nil {
				return g, err
			}
		}

		g, err = c.checkGrantsOnce(ctx, features)

		var missing *GrantError
		if err == nil || !errors.As(err, &missing) {
			return g, err
		}
	}

	return g, err
}

// grantsFromTokens are the grants of the cloud-admin model as the tokens of the configured scope
// and of the manager scope name them (their roles are the effective ones, group and implied
// roles included), at no request beyond the manager scope's token, which the run needs anyway:
// admin on the service user's own project, admin or manager on the managed domain. ok is false
// when the tokens do not show both: the role assignments are then read (checkGrantsOnce),
// which also tells the inherited model and names what is missing.
func (c *Client) grantsFromTokens(ctx context.Context) (*Grants, bool) {
	if c.baseProjectID == "" || !slices.Contains(c.baseRoles, "admin") {
		return nil, false
	}

	mgr, err := c.Manager(ctx)
	if err != nil || (!slices.Contains(mgr.roles, "admin") && !slices.Contains(mgr.roles, "manager")) {
		return nil, false
	}

	return &Grants{Model: CloudAdmin, Domain: slices.Clone(mgr.roles), Home: slices.Clone(c.baseRoles)}, true
}

// How often and how patiently CheckGrants reads before it reports a missing grant.
const (
	grantReadAttempts = 3
	grantReadPause    = 2 * time.Second
)

// checkGrantsOnce is one read and check of the grants.
func (c *Client) checkGrantsOnce(ctx context.Context, features []Feature) (*Grants, error) {
	domainID, err := c.ManagedDomainID(ctx)
	if err != nil {
		return nil, err
	}

	sc, err := c.base.Keystone()
	if err != nil {
		return nil, err
	}

	effective, names := true, true
	listings := []roles.ListAssignmentsOpts{
		{UserID: c.serviceUserID, ScopeProjectID: c.baseProjectID, Effective: &effective, IncludeNames: &names},
		{UserID: c.serviceUserID, ScopeDomainID: domainID, IncludeNames: &names},
	}

	var all []assignment

	for _, opts := range listings {
		found, err := listAssignments(ctx, sc, opts)
		if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			// Not admin where it is configured (the inherited model): ask from the managed domain.
			if mgr, mgrErr := c.Manager(ctx); mgrErr == nil {
				if msc, scErr := mgr.Keystone(); scErr == nil {
					sc = msc
					found, err = listAssignments(ctx, sc, opts)
				}
			}
		}

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
			return nil, &GrantError{User: c.settings.userDisplay(), Missing: []MissingGrant{{
				Grant:     "admin on the service user's own project " + c.baseProjectDisplay(),
				NeededFor: "reading its own role assignments (the grant check) and every admin-only call",
				Command:   c.roleAddAdmin("--project " + c.baseProjectDisplay()),
			}}}
		case err != nil:
			return nil, fmt.Errorf("reading the role assignments of the service user %s: %w", c.settings.userDisplay(), err)
		}

		all = append(all, found...)
	}

	g := grantsOf(all, domainID, c.baseProjectID)

	if err := c.checkGrants(g, features); err != nil {
		return g, err
	}

	c.setGrants(g)

	tflog.Debug(ctx, "Checked the service user's grants", map[string]any{
		"model": g.Model.String(), "domain_roles": g.Domain, "inherited_roles": g.Inherited, "home_roles": g.Home,
	})

	return g, nil
}

// grantsOf sorts effective assignments into the roles the checks read.
func grantsOf(all []assignment, domainID, homeProjectID string) *Grants {
	g := &Grants{}

	add := func(list *[]string, role string) {
		if role != "" && !slices.Contains(*list, role) {
			*list = append(*list, role)
		}
	}

	for _, a := range all {
		switch {
		case a.inherited(domainID):
			add(&g.Inherited, a.Role.Name)
		case a.Scope.Domain.ID == domainID:
			add(&g.Domain, a.Role.Name)
		case a.Scope.Project.ID != "" && a.Scope.Project.ID == homeProjectID:
			add(&g.Home, a.Role.Name)
		}
	}

	for _, l := range []*[]string{&g.Domain, &g.Inherited, &g.Home} {
		slices.Sort(*l)
	}

	switch {
	case slices.Contains(g.Home, "admin"):
		g.Model = CloudAdmin
	case slices.Contains(g.Inherited, "admin"):
		g.Model = InheritedAdmin
	}

	return g
}

// checkGrants names what is missing for the managed domain and for features.
func (c *Client) checkGrants(g *Grants, features []Feature) error {
	var missing []MissingGrant

	if !slices.Contains(g.Domain, "admin") && !slices.Contains(g.Domain, "manager") {
		missing = append(missing, MissingGrant{
			Grant:     fmt.Sprintf("admin (or manager) on the managed domain %s", c.settings.domain),
			NeededFor: "identities (projects, users, role grants and trusts in the managed domain)",
			Command:   c.roleAddAdmin("--domain " + c.settings.domain),
		})
	}

	if g.Model == GrantsUnchecked {
		for _, f := range features {
			missing = append(missing, MissingGrant{
				Grant:     "admin on the service user's own project " + c.baseProjectDisplay() + " (or admin on the managed domain, inherited to its projects)",
				NeededFor: string(f),
				Command:   c.roleAddAdmin("--project " + c.baseProjectDisplay()),
			})
		}
	}

	if len(missing) == 0 {
		return nil
	}

	return &GrantError{User: c.settings.userDisplay(), Missing: missing}
}

// roleAddAdmin is the openstack CLI command that grants admin to the service user on target.
func (c *Client) roleAddAdmin(target string) string {
	user := "--user " + shellWord(c.settings.userName)
	if c.settings.userName == "" {
		user = "--user " + c.serviceUserID
	} else if d := cmp.Or(c.settings.userDomainName, c.settings.userDomainID); d != "" {
		user += " --user-domain " + shellWord(d)
	}

	return fmt.Sprintf("openstack role add %s %s admin", user, target)
}

// baseProjectDisplay names the service user's own project for messages and commands.
func (c *Client) baseProjectDisplay() string {
	if c.settings.projectName != "" {
		return shellWord(c.settings.projectName)
	}

	return c.baseProjectID
}

func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$`\\") {
		return s
	}

	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// GrantModel is the grant model Configure found (GrantsUnchecked before CheckGrants).
func (c *Client) GrantModel() GrantModel {
	c.grantsMu.Lock()
	defer c.grantsMu.Unlock()

	if c.grants == nil {
		return GrantsUnchecked
	}

	return c.grants.Model
}

// grantModelOnce is the grant model, read once when Configure did not read it (a client made
// for tests or sweepers); a failed read leaves GrantsUnchecked, whose admin-only calls use the
// privileged scope.
func (c *Client) grantModelOnce(ctx context.Context) GrantModel {
	if m := c.GrantModel(); m != GrantsUnchecked || c.settings.domain == "" {
		return m
	}

	model, _ := c.grantCheck.Get(ctx, struct{}{}, func(ctx context.Context) (GrantModel, error) {
		g, err := c.CheckGrants(ctx)
		if g == nil {
			tflog.Debug(ctx, "Could not read the service user's grants", map[string]any{"error": fmt.Sprint(err)})
			return GrantsUnchecked, nil
		}

		c.setGrants(g)

		return g.Model, nil
	})

	return model
}

func (c *Client) setGrants(g *Grants) {
	c.grantsMu.Lock()
	defer c.grantsMu.Unlock()

	c.grants = g
}

// adminSession is the session of the Admin scope for projectID: the service user's own project
// under the cloud admin model (the call names the target project), the privileged scope inside
// projectID under the inherited model (and before the grants were checked).
func (c *Client) adminSession(ctx context.Context, projectID string) (*Session, error) {
	if c.grantModelOnce(ctx) == CloudAdmin {
		return c.base, nil
	}

	return c.Privileged(ctx, projectID)
}

// AdminRefusal wraps the error of an admin-only call that was refused anyway (policies differ
// per cloud) so that it names the service, the call, the scope used and the grant that would
// allow it; other errors are returned as they are.
func (c *Client) AdminRefusal(service, call string, err error) error {
	if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return err
	}

	scope := "the identity's project (privileged scope)"
	allow := "admin on the managed domain, inherited to its projects: " +
		c.roleAddAdmin("--domain "+c.settings.domain+" --inherited")

	if c.GrantModel() == CloudAdmin {
		scope = "the service user's own project " + c.baseProjectDisplay() + " (admin)"
		allow = "a " + service + " policy that lets admin do it (the stock policy does)"
	}

	return fmt.Errorf("%s refused %s in %s: %w; what allows it: %s", service, call, scope, err, allow)
}

// ProjectAdminRefusal wraps the error of a call that stock policy reserves for admin but that
// must be made inside the identity's project, in the privileged scope, because it makes an
// object there (a server on a named host: Nova's host targeting). No cloud-admin detour exists
// for it: it needs admin (or a role that the service's policy accepts in its place) inside the
// project. A refusal names the service, the call, the scope and what would allow it; other
// errors are returned as they are.
func (c *Client) ProjectAdminRefusal(service, call string, err error) error {
	if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return err
	}

	return fmt.Errorf("%s refused %s in the identity's project (privileged scope, %s grant model): %w; it is admin-only "+
		"under stock policy and must be made inside the project; what allows it: admin on the managed domain, inherited "+
		"to its projects (%s), or a %s policy that lets the service user's manager role do it (as Unikorn's regions have)",
		service, call, c.GrantModel(), err, c.roleAddAdmin("--domain "+c.settings.domain+" --inherited"), service)
}
