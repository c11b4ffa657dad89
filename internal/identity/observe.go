package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Ref names an identity to observe or delete: by the IDs recorded in state, or by its name (or
// a project ID or name given to import).
type Ref struct {
	ProjectID string // tried first
	Name      string // the user-given name, or "" to take it from the project
	UserID    string // tried first, then the user is found by name

	ApplicationCredentialID     string
	ApplicationCredentialSecret string // carried over when the credential still exists
	TrustID                     string

	// Roles of the identity (Delete grants them and manager to the service user again, so
	// that the privileged scope works even for an identity whose first apply died early).
	Roles []string

	// CheckNova asks Observe to look for the server group and keypair (through the trust):
	// set it when they are wanted or may exist (import).
	CheckNova bool
}

// Observe reads an identity back: the project by ID then by name, the user, its roles, the
// application credential, the trust, the quotas of every served region and, through the
// trust, the server group and keypair (of an identity this provider did not make: without the
// trust, observeForeign). It returns nil when the project is gone.
//
// Quotas are merged over the regions: a value is the one every region has, or else the first
// region's (in the order served) that differs from want, so that drift anywhere shows. want may
// be nil (import).
func (s *Service) Observe(ctx context.Context, ref Ref, want quota.Set) (*Identity, error) {
	sc, domainID, err := s.manager(ctx)
	if err != nil {
		return nil, err
	}

	project, err := s.observedProject(ctx, sc, domainID, ref)
	if err != nil || project == nil {
		return nil, err
	}

	name, err := identityName(project)
	if err != nil {
		return nil, err
	}

	out := &Identity{ProjectID: project.ID, Name: name, Description: project.Description, MadeByProvider: madeForIdentity(project.Extra)}

	if ref.ProjectID != "" && project.ID != ref.ProjectID {
		out.Notices = append(out.Notices, refoundNotice("Keystone project", project.Name, ref.ProjectID, project.ID, created(project.Extra)))
	}

	out.OrganizationID, out.UnikornProject, err = naming.ParseProjectTags(project.Tags)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", project.ID, err)
	}

	ctx = tflog.SetField(ctx, "project_id", project.ID)

	user, roles, err := s.observeUser(ctx, sc, domainID, ref.UserID, naming.IdentityUser(name), project)
	if err != nil {
		return nil, err
	}

	if user != nil {
		if ref.UserID != "" && user.ID != ref.UserID {
			out.Notices = append(out.Notices, refoundNotice("Keystone user", user.Name, ref.UserID, user.ID, created(user.Extra)))
		}

		out.UserID, out.Roles = user.ID, roles

		creds, err := s.credentials(ctx, project.ID)
		if err != nil {
			return nil, err
		}

		if err := s.observeCredentials(ctx, creds, ref, out); err != nil {
			return nil, err
		}
	}

	admin, err := s.tenants(ctx, project.ID, cloud.Admin)
	if err != nil {
		return nil, err
	}

	if out.Quotas, err = quota.Read(ctx, admin, want); err != nil {
		return nil, err
	}

	switch {
	case !out.MadeByProvider:
		// Made elsewhere: its server group and keypair are read without acting as its user, so
		// that drift shows (foreign.go).
		if err := s.observeForeign(ctx, out); err != nil {
			return nil, err
		}
	case ref.CheckNova && out.TrustID != "":
		if err := s.observeNova(ctx, out); err != nil {
			return nil, err
		}
	}

	return out, nil
}

// observedProject is the identity's project: the run's one read of it (cloud.Client.IdentityProject,
// which the identity's servers and networks share) when the recorded ID is an identity project,
// else looked up by ID, then by name. A project of the name that is not the recorded one is
// taken only when a create of an identity could adopt it (cloud.Owns: what an interrupted create
// left); a finished identity's, Unikorn's or a person's is not this one, which is then gone
// (nil), so that the plan shows a create, which refuses it.
func (s *Service) observedProject(ctx context.Context, sc *gophercloud.ServiceClient, domainID string, ref Ref) (*projects.Project, error) {
	if ref.ProjectID != "" {
		p, err := s.cloud.IdentityProject(ctx, ref.ProjectID)

		var notIdentity *cloud.IdentityProjectError

		switch {
		case err == nil:
			return p, nil
		case !errors.As(err, &notIdentity):
			return nil, err
		}
	}

	p, err := lookupProject(ctx, sc, domainID, ref.ProjectID, ref.Name)
	if err != nil || p == nil || ref.ProjectID == "" || p.ID == ref.ProjectID {
		return p, err
	}

	if m := naming.MarkOf(p.Extra); !cloud.Owns(Type, m) {
		tflog.Warn(ctx, "The identity's project is gone; the project of its name is not this identity's", map[string]any{
			"gone_project_id": ref.ProjectID, "other_project_id": p.ID, "marks": m.String(),
		})

		return nil, nil
	}

	return p, nil
}

// refoundNotice announces that the object recorded as oldID is gone and the one of its name,
// newID, is taken for it: before a plan acts on it.
func refoundNotice(kind, name, oldID, newID, when string) Notice {
	return Notice{
		Summary: "Identity found again by name",
		Detail: fmt.Sprintf("The %s %s recorded in the state is gone; the %s of the same name %q, %s (%s), is recorded "+
			"instead. If that is not this identity, remove it from the state (terraform state rm) before applying.",
			kind, oldID, kind, name, newID, when),
	}
}

// Locate finds an identity for import by its Keystone project ID, its name or its project's
// name (unikorn-identity-<name>), in the managed domain: the ID is tried first. The Located
// ID and ProjectID are the project's ID; Name is the identity's name.
func (s *Service) Locate(ctx context.Context, idOrName string) (cloud.Located, error) {
	project, name, err := s.locateProject(ctx, idOrName)
	if err != nil {
		return cloud.Located{}, err
	}

	return cloud.Located{ID: project.ID, ProjectID: project.ID, Name: name}, nil
}

// locateProject is Locate's project and the identity's name.
func (s *Service) locateProject(ctx context.Context, idOrName string) (*projects.Project, string, error) {
	sc, domainID, err := s.manager(ctx)
	if err != nil {
		return nil, "", err
	}

	name := ""
	if n := strings.TrimPrefix(idOrName, naming.IdentityPrefix); NamePattern.MatchString(n) {
		name = n
	}

	project, err := lookupProject(ctx, sc, domainID, idOrName, name)
	if err != nil {
		return nil, "", err
	}

	if project == nil {
		return nil, "", fmt.Errorf("no identity project with the ID or name %q in the managed domain", idOrName)
	}

	if name, err = identityName(project); err != nil {
		return nil, "", err
	}

	return project, name, nil
}

// List lists the identities of the managed domain: its projects named unikorn-identity-<name>.
func (s *Service) List(ctx context.Context) ([]cloud.Located, error) {
	return s.listIdentityNamed(ctx, func(sc *gophercloud.ServiceClient, domainID string) ([]cloud.Located, error) {
		all, err := cloud.ListAll(ctx, projects.List(sc, projects.ListOpts{DomainID: domainID}), projects.ExtractProjects,
			"the Keystone projects of the managed domain")

		return located(all, err, func(p projects.Project) cloud.Located { return cloud.Located{ID: p.ID, ProjectID: p.ID, Name: p.Name} })
	})
}

// listIdentityNamed lists, with list in the manager scope, Keystone objects of the managed
// domain, and keeps those named unikorn-identity-<name>, with Name the <name>.
func (s *Service) listIdentityNamed(ctx context.Context, list func(sc *gophercloud.ServiceClient, domainID string) ([]cloud.Located, error),
) ([]cloud.Located, error) {
	sc, domainID, err := s.manager(ctx)
	if err != nil {
		return nil, err
	}

	all, err := list(sc, domainID)
	if err != nil {
		return nil, err
	}

	out := make([]cloud.Located, 0, len(all))

	for _, l := range all {
		if name, ok := strings.CutPrefix(l.Name, naming.IdentityPrefix); ok {
			l.Name = name
			out = append(out, l)
		}
	}

	return out, nil
}

// located maps what a listing found (or its error) onto cloud.Located.
func located[T any](all []T, err error, as func(T) cloud.Located) ([]cloud.Located, error) {
	if err != nil {
		return nil, err
	}

	out := make([]cloud.Located, len(all))
	for i, v := range all {
		out[i] = as(v)
	}

	return out, nil
}

// identityName is the identity's name of its project: the project's name without the prefix.
func identityName(p *projects.Project) (string, error) {
	name, ok := strings.CutPrefix(p.Name, naming.IdentityPrefix)
	if !ok {
		return "", fmt.Errorf("keystone project %s (%q) is not an identity project: its name does not start with %q",
			p.ID, p.Name, naming.IdentityPrefix)
	}

	return name, nil
}

// userRoles are the role names (of the mapping) directly granted to userID on projectID.
func (s *Service) userRoles(ctx context.Context, sc *gophercloud.ServiceClient, userID, projectID string) ([]string, error) {
	keystoneNames, _, err := listUserRoles(ctx, sc, userID, projectID)
	if err != nil {
		return nil, err
	}

	return s.unikornRoles(keystoneNames), nil
}

// unikornRoles are the identity roles among keystoneNames (Keystone role names), sorted.
func (s *Service) unikornRoles(keystoneNames []string) []string {
	var names []string

	for _, kn := range keystoneNames {
		if name, ok := s.config.roleOf(kn); ok {
			names = append(names, name)
		}
	}

	return cloud.SortedSet(names)
}

// observeUser is the identity's user and its roles on its project p. The recorded user (userID)
// is known by its role assignments there, one listing that names the user, so that a refresh
// needs no read of the user; a user without any role there is read by ID, else found by name
// (userName), and its roles listed; nil when there is none. When the recorded user is gone, a
// user of its name is taken only when it was made for an identity, if p was (as a create would
// judge it: claim).
func (s *Service) observeUser(ctx context.Context, sc *gophercloud.ServiceClient, domainID, userID, userName string,
	p *projects.Project,
) (*users.User, []string, error) {
	projectID := p.ID

	if userID != "" {
		keystoneNames, user, err := listUserRoles(ctx, sc, userID, projectID)
		if err != nil {
			return nil, nil, err
		}

		if user != nil && user.DomainID == domainID {
			return user, s.unikornRoles(keystoneNames), nil
		}
	}

	user, err := lookupUser(ctx, sc, domainID, userID, userName)
	if err != nil || user == nil {
		return nil, nil, err
	}

	if userID != "" && user.ID != userID && madeForIdentity(p.Extra) && !madeForIdentity(user.Extra) {
		// The recorded user is gone, and the one of its name was not made for an identity.
		tflog.Warn(ctx, "The identity's user is gone; the user of its name is not this identity's", map[string]any{
			"gone_user_id": userID, "other_user_id": user.ID,
		})

		return nil, nil, nil
	}

	roles, err := s.userRoles(ctx, sc, user.ID, projectID)
	if err != nil {
		return nil, nil, err
	}

	return user, roles, nil
}

// observeCredentials finds the application credential and the trust of out's user.
func (s *Service) observeCredentials(ctx context.Context, sc *gophercloud.ServiceClient, ref Ref, out *Identity) error {
	c := s.cloud

	var found *applicationCredential

	if ref.ApplicationCredentialID != "" {
		ac, err := getApplicationCredential(ctx, sc, out.UserID, ref.ApplicationCredentialID)
		if err != nil {
			return err
		}

		found = ac
	}

	if found == nil {
		all, err := identityCredentials(ctx, sc, out.UserID, out.Name)
		if err != nil {
			return err
		}

		if len(all) > 1 {
			return &naming.DuplicateError{Kind: "application credential", Name: naming.IdentityApplicationCredential(out.Name), IDs: acIDs(all)}
		}

		if len(all) == 1 {
			found = &all[0]
		}
	}

	if found != nil && found.ProjectID == out.ProjectID {
		out.ApplicationCredentialID = found.ID
		out.ExpiresAt = timePtr(found.ExpiresAt)

		if found.ID == ref.ApplicationCredentialID {
			out.ApplicationCredentialSecret = ref.ApplicationCredentialSecret
		}
	}

	base, err := c.Base().Keystone()
	if err != nil {
		return err
	}

	trusts, err := findTrusts(ctx, base, c.ServiceUserID(), out.UserID, out.ProjectID)
	if err != nil {
		return err
	}

	switch len(trusts) {
	case 0:
	case 1:
		out.TrustID = trusts[0].ID
	default:
		ids := make([]string, len(trusts))
		for i, t := range trusts {
			ids[i] = t.ID
		}

		slices.Sort(ids)

		return fmt.Errorf("consistency error: %d Keystone trusts from user %s to the service user on project %s: %s; "+
			"delete the extra ones", len(trusts), out.UserID, out.ProjectID, strings.Join(ids, ", "))
	}

	return nil
}

// observeNova reads the server group and keypair of every served region through the trust.
func (s *Service) observeNova(ctx context.Context, out *Identity) error {
	ts := s.usableIdentityScope(ctx, out.ProjectID)
	if ts == nil {
		// The trust exists but cannot be used (e.g. its roles were revoked): report what
		// can be seen, and let the next apply repair the trust.
		out.TrustID = ""

		return nil
	}

	out.NovaChecked = true
	out.ServerGroups = map[string]string{}

	for i, t := range ts {
		compute, err := t.Compute()
		if err != nil {
			return err
		}

		if err := out.noteServerGroup(ctx, compute, t.Region(), i == 0); err != nil {
			return err
		}

		kp, err := getKeypair(ctx, compute, naming.KeypairName)
		if err != nil {
			return fmt.Errorf("keypair in region %s: %w", t.Region(), err)
		}

		out.noteKeypair(t.Region(), kp)
	}

	return nil
}

// noteServerGroup records the identity's server group in region, read with compute: its ID, and
// its policy when first (the first region's wins) or when none is known yet.
func (out *Identity) noteServerGroup(ctx context.Context, compute *gophercloud.ServiceClient, region string, first bool) error {
	sg, err := findServerGroup(ctx, compute, naming.IdentityServerGroup(out.Name))
	if err != nil {
		return fmt.Errorf("server group in region %s: %w", region, err)
	}

	if sg != nil {
		out.ServerGroups[region] = sg.ID
		if first || out.ServerGroupPolicy == "" {
			out.ServerGroupPolicy = serverGroupPolicy(*sg)
		}
	}

	return nil
}

// noteKeypair records the user's keypair kp of region (nil when there is none): the first key
// found is the identity's, and region holds it when its key is that one.
func (out *Identity) noteKeypair(region string, kp *keypairs.KeyPair) {
	if kp == nil {
		return
	}

	if out.SSHPublicKey == "" {
		out.SSHPublicKey = strings.TrimSpace(kp.PublicKey)
	}

	if sameKey(kp.PublicKey, out.SSHPublicKey) {
		out.Keypairs = append(out.Keypairs, region)
	}
}

// usableIdentityScope binds the identity's project in every served region through the trust,
// or is nil (logged) when the trust cannot be used.
func (s *Service) usableIdentityScope(ctx context.Context, projectID string) []*cloud.Tenant {
	ts, err := s.tenants(ctx, projectID, cloud.AsIdentity)
	if err != nil {
		tflog.Warn(ctx, "Cannot act in the identity scope", map[string]any{"error": err.Error()})

		return nil
	}

	return ts
}
