package identity

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Keystone steps. Every function takes the Keystone client of the scope it needs: the
// manager scope for projects, users, grants and reads; the identity user's own session for
// what only the user may create (its application credential and its trust).

type applicationCredential = applicationcredentials.ApplicationCredential

// lookupProject finds the identity project in domainID: by id first (when given), then by the
// exact name unikorn-identity-<name> (when name is given). It returns nil when neither finds it.
func lookupProject(ctx context.Context, sc *gophercloud.ServiceClient, domainID, id, name string) (*projects.Project, error) {
	if id != "" {
		p, err := projects.Get(ctx, sc, id).Extract()

		switch {
		case err == nil && p.DomainID != domainID:
			return nil, fmt.Errorf("keystone project %s (%q) is in domain %s, not in the managed domain %s", p.ID, p.Name, p.DomainID, domainID)
		case err == nil:
			return p, nil
		case !errNotFound(err):
			return nil, fmt.Errorf("reading Keystone project %s: %w", id, err)
		}
	}

	if name == "" {
		return nil, nil
	}

	return findProject(ctx, sc, domainID, naming.IdentityProject(name))
}

// findProject finds the project of exactly that name in domainID; nil if there is none.
func findProject(ctx context.Context, sc *gophercloud.ServiceClient, domainID, projectName string) (*projects.Project, error) {
	return cloud.FindOne(ctx, projects.List(sc, projects.ListOpts{DomainID: domainID, Name: projectName}), projects.ExtractProjects,
		"Keystone project", projectName, func(p projects.Project) string { return p.Name }, func(p projects.Project) string { return p.ID })
}

// ensureProject creates the identity project when found (what claim found) is nil, else brings
// its description, tags and, when enable, its enabled flag to spec (an identity this provider did
// not make is left as enabled as its maker left it); either way it records regions on it (the
// served ones: internal/leftovers). Tags other than organization= and project= are left alone.
// A project is created with the identity's creation mark; a create whose answer was lost
// recovers only a project that carries it (unfinished).
func ensureProject(ctx context.Context, sc *gophercloud.ServiceClient, domainID string, spec Spec, found *projects.Project,
	regions []string, enable bool,
) (*projects.Project, error) {
	projectName := naming.IdentityProject(spec.Name)

	ours, err := naming.ProjectTags(spec.OrganizationID, spec.ProjectID)
	if err != nil {
		return nil, err
	}

	p := found
	if p == nil {
		enabled := true

		extra := createdExtra()
		maps.Copy(extra, leftovers.RecordExtra(regions, nil))

		// Keystone keeps project names unique in a domain: no twin can be made.
		p, err = cloud.Create(ctx, cloud.CreateSpec[*projects.Project]{
			Kind: "Keystone project", Name: projectName,
			Create: func(ctx context.Context) (*projects.Project, error) {
				return projects.Create(ctx, sc, projects.CreateOpts{
					DomainID:    domainID,
					Name:        projectName,
					Description: spec.Description,
					Enabled:     &enabled,
					Tags:        ours,
					Extra:       extra,
				}).Extract()
			},
			Find: func(ctx context.Context) ([]*projects.Project, error) {
				return cloud.Optional(findProject(ctx, sc, domainID, projectName))
			},
			ID:    func(p *projects.Project) string { return p.ID },
			Adopt: func(p *projects.Project) error { return cloud.Adopt(projectClaim(p)) },
		})
		if err != nil {
			return nil, fmt.Errorf("creating Keystone project %q in domain %s: %w", projectName, domainID, err)
		}

		tflog.Info(ctx, "Created the identity's project", map[string]any{"project_id": p.ID})

		return p, nil
	}

	wantTags := mergeProjectTags(p.Tags, ours)

	var opts projects.UpdateOpts

	changed := false

	if p.Description != spec.Description {
		opts.Description = &spec.Description
		changed = true
	}

	if !cloud.SameSet(p.Tags, wantTags) {
		opts.Tags = &wantTags
		changed = true
	}

	if !p.Enabled && enable {
		enabled := true
		opts.Enabled = &enabled
		changed = true
	}

	if opts.Extra = leftovers.RecordExtra(regions, p.Extra); opts.Extra != nil {
		changed = true
	}

	if !changed {
		return p, nil
	}

	updated, err := projects.Update(ctx, sc, p.ID, opts).Extract()
	if err != nil {
		return p, fmt.Errorf("updating Keystone project %s: %w", p.ID, err)
	}

	return updated, nil
}

// mergeProjectTags keeps every tag that is not ours and adds ours.
func mergeProjectTags(current, ours []string) []string {
	out := []string{}

	for _, tag := range current {
		key, _, _ := strings.Cut(tag, "=")
		if key == naming.ProjectTagOrganization || key == naming.ProjectTagProject {
			continue
		}

		out = append(out, tag)
	}

	return cloud.SortedSet(append(out, ours...))
}

func deleteProject(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	return cloud.Gone(projects.Delete(ctx, sc, id).ExtractErr(), "deleting Keystone project %s", id)
}

// lookupUser finds the identity user in domainID by id (when given), then by exact name (when
// given).
func lookupUser(ctx context.Context, sc *gophercloud.ServiceClient, domainID, id, userName string) (*users.User, error) {
	if id != "" {
		u, err := users.Get(ctx, sc, id).Extract()

		switch {
		case err == nil && u.DomainID == domainID:
			return u, nil
		case err == nil:
			return nil, fmt.Errorf("keystone user %s (%q) is in domain %s, not in the managed domain %s", u.ID, u.Name, u.DomainID, domainID)
		case !errNotFound(err):
			return nil, fmt.Errorf("reading Keystone user %s: %w", id, err)
		}
	}

	if userName == "" {
		return nil, nil
	}

	return cloud.FindOne(ctx, users.List(sc, users.ListOpts{DomainID: domainID, Name: userName}), users.ExtractUsers,
		"Keystone user", userName, func(u users.User) string { return u.Name }, func(u users.User) string { return u.ID })
}

// ensureUser creates the identity user when found (what claim found) is nil, else enables it
// if it is disabled. The password is returned only when the user was created now; it is never
// stored. A user is created with the identity's creation mark; a create whose answer was lost
// recovers only a user that carries it.
func ensureUser(ctx context.Context, sc *gophercloud.ServiceClient, domainID, name, projectID string, found *users.User,
) (*users.User, string, error) {
	userName := naming.IdentityUser(name)

	if u := found; u != nil {
		if !u.Enabled {
			enabled := true

			if _, err := users.Update(ctx, sc, u.ID, users.UpdateOpts{Enabled: &enabled}).Extract(); err != nil {
				return nil, "", fmt.Errorf("enabling Keystone user %s: %w", u.ID, err)
			}
		}

		return u, "", nil
	}

	password, err := randomPassword()
	if err != nil {
		return nil, "", err
	}

	enabled := true

	// Keystone keeps user names unique in a domain: no twin can be made. A user recovered
	// after a lost answer carries the password sent with it.
	u, err := cloud.Create(ctx, cloud.CreateSpec[*users.User]{
		Kind: "Keystone user", Name: userName,
		Create: func(ctx context.Context) (*users.User, error) {
			u, err := users.Create(ctx, sc, users.CreateOpts{
				Name:             userName,
				DomainID:         domainID,
				DefaultProjectID: projectID,
				Description:      "Unikorn identity " + name,
				Enabled:          &enabled,
				Password:         password,
				Options: map[users.Option]any{
					users.IgnorePasswordExpiry:             true,
					users.IgnoreChangePasswordUponFirstUse: true,
				},
				Extra: createdExtra(),
			}).Extract()

			return u, scrub(err, password)
		},
		Find: func(ctx context.Context) ([]*users.User, error) {
			return cloud.Optional(lookupUser(ctx, sc, domainID, "", userName))
		},
		ID:    func(u *users.User) string { return u.ID },
		Adopt: func(u *users.User) error { return cloud.Adopt(userClaim(u, name)) },
	})
	if err != nil {
		return nil, "", fmt.Errorf("creating Keystone user %q in domain %s: %w", userName, domainID, scrub(err, password))
	}

	tflog.Info(ctx, "Created the identity's user", map[string]any{"user_id": u.ID})

	return u, password, nil
}

// resetPassword gives the user a new password (the manager may; the old one is unknown).
func resetPassword(ctx context.Context, sc *gophercloud.ServiceClient, userID, password string) error {
	if _, err := users.Update(ctx, sc, userID, users.UpdateOpts{Password: password}).Extract(); err != nil {
		return fmt.Errorf("resetting the password of Keystone user %s: %w", userID, scrub(err, password))
	}

	return nil
}

func deleteUser(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	return cloud.Gone(users.Delete(ctx, sc, id).ExtractErr(), "deleting Keystone user %s", id)
}

// grantRoles grants each role (by ID) to userID on projectID. Granting is idempotent.
func grantRoles(ctx context.Context, sc *gophercloud.ServiceClient, userID, projectID string, roleIDs []string) error {
	for _, id := range roleIDs {
		if err := roles.Assign(ctx, sc, id, roles.AssignOpts{UserID: userID, ProjectID: projectID}).ExtractErr(); err != nil {
			return fmt.Errorf("role %s: %w", id, err)
		}
	}

	return nil
}

// revokeRole revokes one role; a grant that is not there is fine.
func revokeRole(ctx context.Context, sc *gophercloud.ServiceClient, userID, projectID, roleID string) error {
	return cloud.Gone(roles.Unassign(ctx, sc, roleID, roles.UnassignOpts{UserID: userID, ProjectID: projectID}).ExtractErr(), "role %s", roleID)
}

// listUserRoles are the Keystone names of the roles granted directly to userID on projectID,
// and the user as the assignments name it (ID, name and domain; nil when there is none): a
// user holding a role on the project exists, so that a refresh needs no read of its own.
func listUserRoles(ctx context.Context, sc *gophercloud.ServiceClient, userID, projectID string) ([]string, *users.User, error) {
	includeNames := true

	all, err := cloud.ListAll(ctx, roles.ListAssignments(sc, roles.ListAssignmentsOpts{
		UserID: userID, ScopeProjectID: projectID, IncludeNames: &includeNames,
	}), roles.ExtractRoleAssignments, fmt.Sprintf("the role assignments of user %s on project %s", userID, projectID))
	if err != nil {
		return nil, nil, err
	}

	var (
		names []string
		user  *users.User
	)

	for _, a := range all {
		if a.User.ID == userID && a.Scope.Project.ID == projectID && a.Role.Name != "" {
			names = append(names, a.Role.Name)
			user = &users.User{ID: a.User.ID, Name: a.User.Name, DomainID: a.User.Domain.ID}
		}
	}

	return cloud.SortedSet(names), user, nil
}

// forbiddenLagBudget bounds how long a read that Keystone refuses with a 403 is retried.
const forbiddenLagBudget = 20 * time.Second

// getApplicationCredential reads one credential of userID; nil when it does not exist.
//
// Under load Keystone has been seen to refuse this read with a 403 for a moment (the same lag
// as in createAsUser): a 403 is retried for up to forbiddenLagBudget.
func getApplicationCredential(ctx context.Context, sc *gophercloud.ServiceClient, userID, id string) (*applicationCredential, error) {
	waitCtx, cancel := context.WithTimeout(ctx, forbiddenLagBudget)
	defer cancel()

	var err error

	ac, pollErr := cloud.Poll(waitCtx, cloud.PollSpec{
		Pending:     []string{"forbidden"},
		Target:      []string{"answered"},
		MinInterval: 500 * time.Millisecond,
		MaxInterval: 2 * time.Second,
	}, func(ctx context.Context) (*applicationcredentials.ApplicationCredential, string, string, error) {
		var got *applicationcredentials.ApplicationCredential

		got, err = applicationcredentials.Get(ctx, sc, userID, id).Extract()
		if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return nil, "forbidden", "", nil
		}

		return got, "answered", "", nil
	})
	if pollErr != nil && err == nil {
		err = pollErr
	}

	switch {
	case errNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading application credential %s of user %s: %w", id, userID, err)
	}

	ac.Secret = ""

	return ac, nil
}

// findApplicationCredentials lists the credentials of userID named exactly name (Keystone
// keeps credential names unique per user; more than one is left for the caller to judge).
func findApplicationCredentials(ctx context.Context, sc *gophercloud.ServiceClient, userID, name string) ([]applicationCredential, error) {
	all, err := cloud.ListAll(ctx, applicationcredentials.List(sc, userID, applicationcredentials.ListOpts{Name: name}),
		applicationcredentials.ExtractApplicationCredentials, fmt.Sprintf("the application credentials of user %s named %q", userID, name))
	if err != nil {
		return nil, err
	}

	out := naming.Exact(all, name, func(ac applicationCredential) string { return ac.Name })
	for i := range out {
		out[i].Secret = ""
	}

	return out, nil
}

// createApplicationCredential issues a restricted credential for the roles, as the user
// itself (usc is the user's own session: Keystone lets nobody else do it).
func createApplicationCredential(ctx context.Context, usc *gophercloud.ServiceClient, userID, name string, roleIDs []string,
	expiresAt *time.Time,
) (*applicationCredential, error) {
	rs := make([]applicationcredentials.Role, len(roleIDs))
	for i, id := range roleIDs {
		rs[i] = applicationcredentials.Role{ID: id}
	}

	ac, err := applicationcredentials.Create(ctx, usc, userID, applicationcredentials.CreateOpts{
		Name:         name,
		Description:  "Unikorn identity credential, managed by Terraform",
		Unrestricted: false,
		Roles:        rs,
		ExpiresAt:    expiresAt,
	}).Extract()
	if err != nil {
		return nil, fmt.Errorf("creating application credential %q of user %s: %w", name, userID, err)
	}

	return ac, nil
}

func deleteApplicationCredential(ctx context.Context, sc *gophercloud.ServiceClient, userID, id string) error {
	return cloud.Gone(applicationcredentials.Delete(ctx, sc, userID, id).ExtractErr(), "deleting application credential %s of user %s", id, userID)
}

func acIDs(acs []applicationCredential) []string {
	ids := make([]string, len(acs))
	for i, ac := range acs {
		ids[i] = ac.ID
	}

	slices.Sort(ids)

	return ids
}

// findTrusts lists the live trusts from trustorID to trusteeID on projectID (on any project
// when projectID is ""). sc must be a session of the trustee (it lists its own trusts).
func findTrusts(ctx context.Context, sc *gophercloud.ServiceClient, trusteeID, trustorID, projectID string) ([]trusts.Trust, error) {
	all, err := cloud.ListAll(ctx, trusts.List(sc, trusts.ListOpts{TrusteeUserID: trusteeID}), trusts.ExtractTrusts, fmt.Sprintf("the Keystone trusts of the service user %s", trusteeID))
	if err != nil {
		return nil, err
	}

	now := time.Now()

	var out []trusts.Trust

	for _, t := range all {
		if t.TrustorUserID != trustorID || (projectID != "" && t.ProjectID != projectID) ||
			(t.TrusteeUserID != "" && t.TrusteeUserID != trusteeID) {
			continue
		}

		if !t.ExpiresAt.IsZero() && !t.ExpiresAt.After(now) {
			continue
		}

		out = append(out, t)
	}

	return out, nil
}

// createTrust makes the identity trust as its trustor (usc is the trustor's own session).
func createTrust(ctx context.Context, usc *gophercloud.ServiceClient, trustorID, trusteeID, projectID string, roleIDs []string) (*trusts.Trust, error) {
	rs := make([]trusts.Role, len(roleIDs))
	for i, id := range roleIDs {
		rs[i] = trusts.Role{ID: id}
	}

	t, err := trusts.Create(ctx, usc, trusts.CreateOpts{
		Impersonation: true,
		TrustorUserID: trustorID,
		TrusteeUserID: trusteeID,
		ProjectID:     projectID,
		Roles:         rs,
	}).Extract()
	if err != nil {
		return nil, fmt.Errorf("creating the Keystone trust from user %s to the service user %s on project %s: %w",
			trustorID, trusteeID, projectID, err)
	}

	return t, nil
}

// getTrust reads one trust; nil when it does not exist.
func getTrust(ctx context.Context, sc *gophercloud.ServiceClient, id string) (*trusts.Trust, error) {
	t, err := trusts.Get(ctx, sc, id).Extract()

	return present(t, err, "reading Keystone trust %s", id)
}

func deleteTrust(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	return cloud.Gone(trusts.Delete(ctx, sc, id).ExtractErr(), "deleting Keystone trust %s", id)
}

func trustRoleIDs(t trusts.Trust) []string {
	ids := make([]string, len(t.Roles))
	for i, r := range t.Roles {
		ids[i] = r.ID
	}

	return ids
}

// scrub removes the password from what an error can print. An HTTP error keeps its type (with
// the secret cut out of the body it carries), so that its status code can still be read.
func scrub(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}

	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		code.Body = []byte(strings.ReplaceAll(string(code.Body), secret, "<redacted>"))
		if !strings.Contains(code.Error(), secret) {
			return code
		}
	}

	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), secret, "<redacted>"))
}
