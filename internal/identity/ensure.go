package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Ensure makes the cloud hold the identity of spec, adopting every object that already
// carries its deterministic name, and returns what it holds afterwards. On error the returned
// Identity holds what exists so far (at least the project ID once the project exists), so that
// the caller can record it.
func (s *Service) Ensure(ctx context.Context, spec Spec, prior Prior) (*Identity, error) {
	// Until a step runs, what the earlier apply recorded stands: a failed update must not
	// drop a credential it never reached.
	out := &Identity{
		Name:                        spec.Name,
		UserID:                      prior.UserID,
		Roles:                       slices.Clone(prior.Roles),
		ApplicationCredentialID:     prior.ApplicationCredentialID,
		ApplicationCredentialSecret: prior.ApplicationCredentialSecret,
		ExpiresAt:                   prior.ExpiresAt,
		TrustID:                     prior.TrustID,
		Quotas:                      prior.Quotas.Clone(),
	}

	e := &ensurer{svc: s, spec: spec, prior: prior, out: out}
	defer e.releaseUser()

	err := e.run(ctx)
	if err != nil {
		return e.out, err
	}

	return e.out, nil
}

// ensurer is one run of Ensure.
type ensurer struct {
	svc   *Service
	spec  Spec
	prior Prior
	out   *Identity

	manager  *gophercloud.ServiceClient // Keystone, manager scope
	creds    *gophercloud.ServiceClient // Keystone for credentials and trusts (Service.credentials)
	domainID string
	roleIDs  map[string]string          // role name → ID, for spec roles and manager
	password string                     // the user's password, known only during this run
	user     *gophercloud.ServiceClient // Keystone as the identity's user, once authenticated
	userSess *cloud.Session             // the session of user
	// unlock releases the user's lock (asuser.go), held from the first authentication as the
	// user to the end of the run; nil while not held.
	unlock func()
	// made is set when this run created the project (it carries the creation mark).
	made bool
	// foreign is set when the project is an identity this provider did not make: it is adopted
	// read-only (foreign.go), and held is what it holds (read before any write).
	foreign bool
	held    *Identity
}

func (e *ensurer) run(ctx context.Context) error {
	c := e.svc.cloud
	name := e.spec.Name
	ctx = tflog.SetField(ctx, "identity", name)

	var err error

	if e.manager, e.domainID, err = e.svc.manager(ctx); err != nil {
		return err
	}

	wantRoles := serviceUserRoles(e.spec.Roles)
	if e.roleIDs, err = e.svc.config.roleIDsFor(ctx, e.manager, wantRoles); err != nil {
		return err
	}

	// 1. What carries the identity's names, judged before anything is written.
	found, foundUser, err := e.claim(ctx)
	if err != nil {
		return err
	}

	// An identity this provider did not make (imported): what it holds is read, and what the
	// spec asks for that would break its maker is refused, before anything is written.
	if found != nil && !madeForIdentity(found.Extra) {
		if err := e.enterForeign(ctx, found, foundUser); err != nil {
			return err
		}
	}

	// 2. Project, with the served regions recorded on it before the first write in any of them
	// (the leftovers check of its destroy looks in every one: internal/leftovers).
	project, err := ensureProject(ctx, e.manager, e.domainID, e.spec, found, c.Regions(), !e.foreign)
	if err != nil {
		return err
	}

	e.made = found == nil
	e.out.MadeByProvider = !e.foreign
	e.out.ProjectID = project.ID
	e.out.Description = project.Description
	c.ForgetIdentityProject(project.ID) // its tags or description may have changed: read it again

	if e.creds, err = e.svc.credentials(ctx, project.ID); err != nil {
		return err
	}

	e.out.OrganizationID, e.out.UnikornProject, _ = naming.ParseProjectTags(project.Tags)
	ctx = tflog.SetField(ctx, "project_id", project.ID)

	// 3. The service user's grants: manager, the member roles and the identity's roles; it keeps
	// them whatever the identity's roles become (serviceUserRoles).
	svcRoles := e.ids(wantRoles)
	if err := grantRoles(ctx, e.manager, c.ServiceUserID(), project.ID, svcRoles); err != nil {
		return fmt.Errorf("granting the service user its roles on project %s: %w", project.ID, err)
	}

	revoked, err := e.revokeDropped(ctx, c.ServiceUserID(), project.ID, e.prior.Roles, wantRoles)
	if err != nil {
		return fmt.Errorf("revoking the service user's dropped roles on project %s: %w", project.ID, err)
	}

	if revoked {
		// A revocation also revokes the service user's tokens on the project issued within
		// the same second: drop the cached ones and let the second pass.
		c.ForgetProject(project.ID)

		if err := cloud.Sleep(ctx, revocationGrace); err != nil {
			return err
		}
	}

	// 4. Quotas in every served region (admin scope: stock policy reserves quota updates for
	// admin, and lets admin read and set any project's).
	if e.prior.Quotas == nil || !e.prior.Quotas.Equal(e.spec.Quotas) {
		admin, err := e.svc.tenants(ctx, project.ID, cloud.Admin)
		if err != nil {
			return err
		}

		if e.out.Quotas, err = quota.Apply(ctx, admin, e.spec.Quotas); err != nil {
			return err
		}
	} else {
		e.out.Quotas = e.spec.Quotas.Clone()
	}

	// 5. User (in an identity made elsewhere, the one found: enterForeign).
	user, password := foundUser, ""
	if !e.foreign {
		if user, password, err = ensureUser(ctx, e.manager, e.domainID, name, project.ID, foundUser); err != nil {
			return err
		}
	}

	e.out.UserID = user.ID
	e.password = password
	ctx = tflog.SetField(ctx, "user_id", user.ID)

	// 6. The user's grants: exactly the identity's roles (in an identity made elsewhere, only
	// those it lacks are granted).
	if err := grantRoles(ctx, e.manager, user.ID, project.ID, e.ids(e.missingRoles())); err != nil {
		return fmt.Errorf("granting user %s its roles on project %s: %w", user.ID, project.ID, err)
	}

	rolesChanged, err := e.revokeDropped(ctx, user.ID, project.ID, e.userRolesBefore(), e.spec.Roles)
	if err != nil {
		return fmt.Errorf("revoking dropped roles of user %s on project %s: %w", user.ID, project.ID, err)
	}

	if rolesChanged {
		// As above, for the user's (and the trust's) tokens.
		c.ForgetProject(project.ID)

		if err := cloud.Sleep(ctx, revocationGrace); err != nil {
			return err
		}
	}

	rolesChanged = rolesChanged || !cloud.SameSet(e.prior.Roles, e.spec.Roles)
	e.out.Roles = cloud.SortedSet(e.spec.Roles)

	if e.foreign {
		// No trust, server group, keypair or credential is made in it: what it holds stands.
		return e.keepForeign(ctx, user.ID)
	}

	// 7. Trust (which forgets the project's cached scopes itself whenever it changes a trust).
	if err := e.ensureTrust(ctx, user.ID, project.ID); err != nil {
		return err
	}

	if rolesChanged {
		// Tokens keep the roles they were issued with.
		c.ForgetProject(project.ID)
	}

	if e.userSess != nil && e.out.TrustID != "" {
		// The user's own token, just taken for the trust (so it holds every role the trust
		// delegates), is the identity scope of the rest of the run: no token through the trust.
		c.ActAsIdentity(ctx, project.ID, e.userSess)
	}

	// 8. Server group and keypair, in every served region, in the identity scope. Nothing to
	// do when neither is wanted nor was made before.
	if e.spec.ServerGroupPolicy != "" || e.spec.SSHPublicKey != "" || e.prior.CheckNova {
		if err := e.ensureNova(ctx, project.ID); err != nil {
			return err
		}
	}

	// 9. Application credential, or none when the spec says so.
	if e.spec.NoApplicationCredential {
		err = e.dropApplicationCredentials(ctx, user.ID)
	} else {
		err = e.ensureApplicationCredential(ctx, user.ID, project.ID, rolesChanged)
	}

	if err != nil {
		return err
	}

	// 10. The completion mark, last: until it is written, the identity is what an interrupted
	// create left, which the next create adopts; from then on it is a finished one, which no
	// other create takes over.
	return e.complete(ctx, project)
}

func (e *ensurer) notice(n Notice) {
	e.out.Notices = append(e.out.Notices, n)
}

// enterForeign reads what the identity's project p, which this provider did not make, holds
// (its user u, the user's roles, its credential and trust, its server group and keypair), and
// refuses what the spec asks for that would break its maker (foreignRefusals), before anything
// is written.
func (e *ensurer) enterForeign(ctx context.Context, p *projects.Project, u *users.User) error {
	e.foreign = true
	who := subjectOf(e.spec.Name, p.ID)

	if u == nil {
		return fmt.Errorf("identity %s, which this provider did not make, has no user %s: this provider makes no user in an "+
			"identity it did not make", who, naming.IdentityUser(e.spec.Name))
	}

	held, err := e.svc.holding(ctx, p, u.ID, e.prior.Ref)
	if err != nil {
		return err
	}

	e.held = held

	tflog.Info(ctx, "Applying an identity this provider did not make: read-only for what belongs to its user", map[string]any{
		"project_id": p.ID, "user_id": u.ID, "application_credential_id": held.ApplicationCredentialID,
	})

	return foreignRefusals(who, e.spec, heldOf(held))
}

// missingRoles are the roles of the spec to grant the identity's user: all of them (granting is
// idempotent), in an identity made elsewhere only those it lacks.
func (e *ensurer) missingRoles() []string {
	if !e.foreign {
		return e.spec.Roles
	}

	var out []string

	for _, r := range e.spec.Roles {
		if !slices.Contains(e.held.Roles, r) {
			out = append(out, r)
		}
	}

	return out
}

// keepForeign ends the run of an identity made elsewhere: its trust, server group and keypair
// are recorded as found, its application credential is kept (its secret known only when the
// state carried it), or deleted when the spec keeps none (the one write of what its user holds
// that the configuration may ask for: explicitly).
func (e *ensurer) keepForeign(ctx context.Context, userID string) error {
	h := e.held
	e.out.TrustID = h.TrustID
	e.out.NovaChecked, e.out.ServerGroups, e.out.ServerGroupPolicy = h.NovaChecked, h.ServerGroups, h.ServerGroupPolicy
	e.out.Keypairs, e.out.SSHPublicKey = h.Keypairs, h.SSHPublicKey

	if e.spec.NoApplicationCredential {
		return e.dropApplicationCredentials(ctx, userID)
	}

	e.out.ApplicationCredentialID, e.out.ApplicationCredentialSecret, e.out.ExpiresAt =
		h.ApplicationCredentialID, h.ApplicationCredentialSecret, h.ExpiresAt

	return nil
}

// claim looks up the project and the user that carry the identity's names (by the recorded IDs
// first) and judges what it finds by the one ownership rule (cloud.Adopt), before anything is
// written, so that a refusal leaves nothing behind. An object of the name that is not the
// recorded one is adopted only as what an interrupted create of an identity left: a project
// with the identity's creation mark and no completion mark, a user with the identity's creation
// mark. Anything else — Unikorn's identities, a person's, another configuration's finished one,
// an object made for another resource type — is refused with the *cloud.ExistsError, which
// names it and the import that takes it over. The user of a recorded project that this
// provider did not make (one imported: the import took it over) is taken by its name.
func (e *ensurer) claim(ctx context.Context) (*projects.Project, *users.User, error) {
	p, err := lookupProject(ctx, e.manager, e.domainID, e.prior.ProjectID, e.spec.Name)
	if err != nil {
		return nil, nil, err
	}

	adopted := p != nil && p.ID != e.prior.ProjectID
	if adopted {
		if err := cloud.Adopt(projectClaim(p)); err != nil {
			return nil, nil, err
		}
	}

	u, err := lookupUser(ctx, e.manager, e.domainID, e.prior.UserID, naming.IdentityUser(e.spec.Name))
	if err != nil {
		return nil, nil, err
	}

	foundUser := u != nil && u.ID != e.prior.UserID
	if foundUser && (p == nil || adopted || madeForIdentity(p.Extra)) {
		if err := cloud.Adopt(userClaim(u, e.spec.Name)); err != nil {
			return nil, nil, err
		}
	}

	if adopted {
		tflog.Info(ctx, "Adopted the project of an interrupted create of the identity", map[string]any{"project_id": p.ID})
		e.notice(adoptedNotice("Keystone project", p.Name, p.ID, created(p.Extra)))
	}

	if foundUser {
		tflog.Info(ctx, "Adopted the identity's existing user", map[string]any{"user_id": u.ID})
		e.notice(adoptedNotice("Keystone user", u.Name, u.ID, created(u.Extra)))
	}

	return p, u, nil
}

// complete writes the completion mark on the identity's project p: the last step of its create.
// Only a project made for an identity and not yet complete gets it (an imported one is never
// marked, a finished one is left as it is).
func (e *ensurer) complete(ctx context.Context, p *projects.Project) error {
	if m := naming.MarkOf(p.Extra); !e.made && (m.Kind != Type || m.Completed) {
		return nil
	}

	done := map[string]any{naming.MarkCompletedKey: naming.MarkCompletedValue}
	if _, err := projects.Update(cloud.Repeatable(ctx), e.manager, p.ID, projects.UpdateOpts{Extra: done}).Extract(); err != nil {
		return fmt.Errorf("marking the identity's project %s as complete: %w", p.ID, err)
	}

	tflog.Debug(ctx, "Marked the identity's project as complete")

	return nil
}

// ids maps role names onto the resolved role IDs.
func (e *ensurer) ids(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range cloud.SortedSet(names) {
		out = append(out, e.roleIDs[n])
	}

	return out
}

// userRolesBefore are the roles the identity's user held before this run: those the prior
// apply granted, or, in an identity made elsewhere, those it was found with.
func (e *ensurer) userRolesBefore() []string {
	if e.foreign {
		return e.held.Roles
	}

	return e.prior.Roles
}

// revokeDropped revokes from userID the roles of before (what the prior apply granted) that keep
// leaves out: the identity's roles for its user, serviceUserRoles for the service user. It
// reports whether it revoked.
func (e *ensurer) revokeDropped(ctx context.Context, userID, projectID string, before, keep []string) (bool, error) {
	var dropped []string

	for _, r := range before {
		if slices.Contains(keep, r) {
			continue
		}

		dropped = append(dropped, r)
	}

	if len(dropped) == 0 {
		return false, nil
	}

	ids, err := e.svc.config.roleIDsFor(ctx, e.manager, dropped)
	if err != nil {
		return false, err
	}

	for _, r := range cloud.SortedSet(dropped) {
		if err := revokeRole(ctx, e.manager, userID, projectID, ids[r]); err != nil {
			return false, err
		}
	}

	return true, nil
}

func (e *ensurer) ensureApplicationCredential(ctx context.Context, userID, projectID string, rolesChanged bool) error {
	if e.prior.ApplicationCredentialID != "" && e.prior.ApplicationCredentialSecret != "" &&
		e.prior.UserID == userID && !rolesChanged && sameTime(e.prior.ExpiresAt, e.spec.ExpiresAt) {
		ac, err := getApplicationCredential(ctx, e.creds, userID, e.prior.ApplicationCredentialID)
		if err != nil {
			return err
		}

		if ac != nil && ac.ProjectID == projectID {
			e.out.ApplicationCredentialID = ac.ID
			e.out.ApplicationCredentialSecret = e.prior.ApplicationCredentialSecret
			e.out.ExpiresAt = timePtr(ac.ExpiresAt)

			return nil
		}
	}

	// A credential whose secret we do not hold is useless to Terraform, but a tenant may still
	// use it (a clouds.yaml taken earlier): the old ones go only once the new one exists.
	old, err := e.credentials(ctx, userID)
	if err != nil {
		return err
	}

	name, err := e.freeCredentialName(ctx, userID, old)
	if err != nil {
		return err
	}

	var ac *applicationCredential

	err = e.asUser(ctx, userID, projectID, "application credential", func(ctx context.Context, usc *gophercloud.ServiceClient) error {
		var err error

		ac, err = cloud.Create(ctx, cloud.CreateSpec[*applicationCredential]{
			Kind: "application credential", Name: name,
			Create: func(ctx context.Context) (*applicationCredential, error) {
				return createApplicationCredential(ctx, usc, userID, name, e.ids(e.spec.Roles), e.spec.ExpiresAt)
			},
			// Its secret is only in the answer: one made by a lost answer is of no use, so
			// it is deleted by its ID and another is issued.
			Find: func(ctx context.Context) ([]*applicationCredential, error) {
				return nil, e.deleteLostCredentials(ctx, userID, name)
			},
			ID: func(ac *applicationCredential) string { return ac.ID },
		})

		return err
	})
	if err != nil {
		return err
	}

	e.out.ApplicationCredentialID = ac.ID
	e.out.ApplicationCredentialSecret = ac.Secret
	e.out.ExpiresAt = timePtr(ac.ExpiresAt)

	tflog.Info(ctx, "Issued the identity's application credential", map[string]any{"application_credential_id": ac.ID})

	for _, o := range old {
		if o.ID == ac.ID {
			continue
		}

		if err := deleteApplicationCredential(ctx, e.creds, userID, o.ID); err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted the identity's replaced application credential", map[string]any{"application_credential_id": o.ID})
	}

	return nil
}

// credentialNames are the two names an identity's credential alternates between: Keystone
// keeps credential names unique per user, and a new credential is issued before the old one
// is deleted.
func credentialNames(name string) [2]string {
	return [2]string{naming.IdentityApplicationCredential(name), naming.IdentityApplicationCredential(name) + naming.NextCredentialSuffix}
}

// identityCredentials lists the credentials of the identity name's user userID, under either
// of credentialNames.
func identityCredentials(ctx context.Context, sc *gophercloud.ServiceClient, userID, name string) ([]applicationCredential, error) {
	var out []applicationCredential

	for _, n := range credentialNames(name) {
		found, err := findApplicationCredentials(ctx, sc, userID, n)
		if err != nil {
			return nil, err
		}

		out = append(out, found...)
	}

	return out, nil
}

// credentials lists the user's credentials of the identity, under either name.
func (e *ensurer) credentials(ctx context.Context, userID string) ([]applicationCredential, error) {
	return identityCredentials(ctx, e.creds, userID, e.spec.Name)
}

// freeCredentialName is the name for a new credential: one of credentialNames that no
// credential of old carries. When both are taken, the one the state does not record is
// deleted to make room (nobody can hold its secret through Terraform).
func (e *ensurer) freeCredentialName(ctx context.Context, userID string, old []applicationCredential) (string, error) {
	names := credentialNames(e.spec.Name)
	holder := map[string]string{}

	for _, ac := range old {
		holder[ac.Name] = ac.ID
	}

	for _, name := range names {
		if holder[name] == "" {
			return name, nil
		}
	}

	name := names[0]
	if holder[name] == e.prior.ApplicationCredentialID {
		name = names[1]
	}

	if err := deleteApplicationCredential(ctx, e.creds, userID, holder[name]); err != nil {
		return "", err
	}

	return name, nil
}

// deleteLostCredentials deletes the user's credentials named name: what a create whose answer
// was lost may have made under the name this run chose.
func (e *ensurer) deleteLostCredentials(ctx context.Context, userID, name string) error {
	lost, err := findApplicationCredentials(ctx, e.creds, userID, name)
	if err != nil {
		return err
	}

	return deleteEach(ctx, e.creds, userID, lost, tflog.Warn,
		"Deleted an application credential made by a create whose answer (and secret) was lost")
}

// ensureTrust keeps the one trust (trustor: the user, trustee: the service user, the project)
// that delegates exactly the spec's roles with impersonation, or replaces whatever is there.
// Every trust it deletes or creates makes the client forget the project's cached scopes and
// the run's trust listing (cloud.Client.ForgetProject), so that later scopes see the change,
// even when a later step fails.
func (e *ensurer) ensureTrust(ctx context.Context, userID, projectID string) error {
	c := e.svc.cloud

	base, err := c.Base().Keystone()
	if err != nil {
		return err
	}

	all, err := findTrusts(ctx, base, c.ServiceUserID(), userID, "")
	if err != nil {
		return err
	}

	// The user's trusts on other projects are stale (its project was replaced): remove them.
	var found []trusts.Trust

	for _, t := range all {
		if t.ProjectID == projectID {
			found = append(found, t)
			continue
		}

		err := deleteTrust(ctx, e.creds, t.ID)
		c.ForgetProject(t.ProjectID)

		if err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted a trust of the identity's user on another project", map[string]any{
			"trust_id": t.ID, "other_project_id": t.ProjectID,
		})
	}

	want := e.ids(e.spec.Roles)

	if len(found) == 1 && len(found[0].Roles) == 0 {
		// Some Keystone releases leave the roles out of a list: read the trust itself.
		t, err := getTrust(ctx, base, found[0].ID)
		if err != nil {
			return err
		}

		if t != nil {
			found[0] = *t
		}
	}

	if len(found) == 1 && found[0].Impersonation && cloud.SameSet(trustRoleIDs(found[0]), want) {
		if found[0].ID != e.prior.TrustID {
			e.notice(adoptedNotice("Keystone trust", "from user "+userID+" to the service user", found[0].ID,
				"creation time not recorded by Keystone"))
		}

		e.out.TrustID = found[0].ID

		return nil
	}

	e.out.TrustID = ""

	for _, t := range found {
		err := deleteTrust(ctx, e.creds, t.ID)
		c.ForgetProject(projectID)

		if err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted a trust to replace it", map[string]any{"trust_id": t.ID})
	}

	var t *trusts.Trust

	err = e.asUser(ctx, userID, projectID, "trust", func(ctx context.Context, usc *gophercloud.ServiceClient) error {
		var err error

		t, err = cloud.Create(ctx, cloud.CreateSpec[*trusts.Trust]{
			Kind: "Keystone trust", Name: fmt.Sprintf("from user %s to the service user on project %s", userID, projectID),
			Create: func(ctx context.Context) (*trusts.Trust, error) {
				return createTrust(ctx, usc, userID, c.ServiceUserID(), projectID, want)
			},
			Find: func(ctx context.Context) ([]*trusts.Trust, error) {
				ts, err := findTrusts(ctx, base, c.ServiceUserID(), userID, projectID)

				return pointers(ts), err
			},
			ID:     func(t *trusts.Trust) string { return t.ID },
			Delete: func(ctx context.Context, id string) error { return deleteTrust(ctx, e.creds, id) },
		})

		return err
	})

	// Even a create that failed may have been made (an answer lost on the way back).
	c.ForgetProject(projectID)

	if err != nil {
		return err
	}

	e.out.TrustID = t.ID

	tflog.Info(ctx, "Created the identity's trust", map[string]any{"trust_id": t.ID})

	return nil
}

// ensureNova makes the server group and keypair of every served region as the identity's
// user (through the trust), so that they belong to it.
func (e *ensurer) ensureNova(ctx context.Context, projectID string) error {
	ts, err := e.svc.tenants(ctx, projectID, cloud.AsIdentity)
	if err != nil {
		return err
	}

	sgName := naming.IdentityServerGroup(e.spec.Name)

	// The groups of every region are checked before any is changed: one that holds servers is
	// never replaced nor dropped (checkServerGroup).
	computes := make([]*gophercloud.ServiceClient, len(ts))
	groups := make([]*servergroups.ServerGroup, len(ts))

	for i, t := range ts {
		if computes[i], err = t.Compute(); err != nil {
			return err
		}

		if groups[i], err = findServerGroup(ctx, computes[i], sgName); err != nil {
			return fmt.Errorf("server group in region %s: %w", t.Region(), err)
		}

		if err := checkServerGroup(ctx, computes[i], groups[i], e.spec.ServerGroupPolicy); err != nil {
			var inUse *GroupInUseError
			if errors.As(err, &inUse) {
				inUse.Region = t.Region()
			}

			return err
		}
	}

	e.out.NovaChecked = true
	e.out.ServerGroups = map[string]string{}

	for i, t := range ts {
		compute := computes[i]

		id, existed, err := convergeServerGroup(ctx, compute, sgName, e.spec.ServerGroupPolicy, groups[i])
		if err != nil {
			return fmt.Errorf("server group in region %s: %w", t.Region(), err)
		}

		if id != "" {
			e.out.ServerGroups[t.Region()] = id
		}

		if existed && !e.prior.CheckNova {
			e.notice(adoptedNotice("server group in region "+t.Region(), sgName, id, "creation time not recorded by Nova"))
		}

		existed, err = ensureKeypair(ctx, compute, naming.KeypairName, e.spec.SSHPublicKey)
		if err != nil {
			return fmt.Errorf("keypair in region %s: %w", t.Region(), err)
		}

		if existed && !e.prior.CheckNova {
			e.notice(adoptedNotice("keypair in region "+t.Region(), naming.KeypairName, "of the identity's user",
				"creation time not recorded by Nova"))
		}

		if e.spec.SSHPublicKey != "" {
			e.out.Keypairs = append(e.out.Keypairs, t.Region())
		}
	}

	e.out.ServerGroupPolicy = e.spec.ServerGroupPolicy
	e.out.SSHPublicKey = e.spec.SSHPublicKey

	return nil
}
