package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
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
}

func (e *ensurer) run(ctx context.Context) error {
	c := e.svc.cloud
	name := e.spec.Name
	ctx = tflog.SetField(ctx, "identity", name)

	var err error

	if e.manager, e.domainID, err = e.svc.manager(ctx); err != nil {
		return err
	}

	wantRoles := withManager(e.spec.Roles)
	if e.roleIDs, err = e.svc.config.roleIDsFor(ctx, e.manager, wantRoles); err != nil {
		return err
	}

	// 1. Project (refused when it is a whole identity already: see refuseTakeover).
	project, err := ensureProject(ctx, e.manager, e.domainID, e.spec, e.prior.ProjectID, func(p *projects.Project) error {
		if err := e.refuseTakeover(ctx, p); err != nil {
			return err
		}

		e.notice(adoptedNotice("Keystone project", p.Name, p.ID, created(p.Extra)))

		return nil
	})
	if err != nil {
		return err
	}

	e.out.ProjectID = project.ID
	e.out.Description = project.Description
	c.ForgetIdentityProject(project.ID) // its tags or description may have changed: read it again

	if e.creds, err = e.svc.credentials(ctx, project.ID); err != nil {
		return err
	}

	e.out.OrganizationID, e.out.UnikornProject, _ = naming.ParseProjectTags(project.Tags)
	ctx = tflog.SetField(ctx, "project_id", project.ID)

	// 2. The service user's grants: manager plus the identity's roles.
	svcRoles := e.ids(wantRoles)
	if err := grantRoles(ctx, e.manager, c.ServiceUserID(), project.ID, svcRoles); err != nil {
		return fmt.Errorf("granting the service user its roles on project %s: %w", project.ID, err)
	}

	revoked, err := e.revokeDropped(ctx, c.ServiceUserID(), project.ID, true)
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

	// 3. Quotas in every served region (admin scope: stock policy reserves quota updates for
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

	// 4. User.
	user, password, err := ensureUser(ctx, e.manager, e.domainID, name, project.ID, e.prior.UserID)
	if err != nil {
		return err
	}

	if password == "" && e.prior.UserID != user.ID {
		e.notice(adoptedNotice("Keystone user", user.Name, user.ID, created(user.Extra)))
	}

	e.out.UserID = user.ID
	e.password = password
	ctx = tflog.SetField(ctx, "user_id", user.ID)

	// 5. The user's grants.
	if err := grantRoles(ctx, e.manager, user.ID, project.ID, e.ids(e.spec.Roles)); err != nil {
		return fmt.Errorf("granting user %s its roles on project %s: %w", user.ID, project.ID, err)
	}

	rolesChanged, err := e.revokeDropped(ctx, user.ID, project.ID, false)
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

	// 6. Trust (which forgets the project's cached scopes itself whenever it changes a trust).
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

	// 7. Server group and keypair, in every served region, in the identity scope. Nothing to
	// do when neither is wanted nor was made before.
	if e.spec.ServerGroupPolicy != "" || e.spec.SSHPublicKey != "" || e.prior.CheckNova {
		if err := e.ensureNova(ctx, project.ID); err != nil {
			return err
		}
	}

	// 8. Application credential, last: an identity whose credential and trust exist is whole
	// (refuseTakeover), so a create interrupted at any earlier step is adopted by the next
	// apply, and only one killed in the moment between this answer and the state being
	// written is refused (and is to be imported). None is kept when the spec says so.
	if e.spec.NoApplicationCredential {
		return e.dropApplicationCredentials(ctx, user.ID)
	}

	return e.ensureApplicationCredential(ctx, user.ID, project.ID, rolesChanged)
}

func (e *ensurer) notice(n Notice) {
	e.out.Notices = append(e.out.Notices, n)
}

// TakeoverError refuses to adopt, on create, an identity that is whole already (its user holds
// the credential and the trust): adopting it would reset its user's password and re-issue the
// credential that someone may be using. It is to be imported instead.
type TakeoverError struct {
	Name, ProjectID, Created      string
	UserID, CredentialID, TrustID string
}

func (e *TakeoverError) Error() string {
	return fmt.Sprintf("the identity %s already exists, whole: project %s (%s), user %s with application credential %s "+
		"and trust %s. It is not taken over (that would reset its user's password and re-issue its credential): "+
		"import it instead (terraform import <address> %s), or delete it first",
		naming.IdentityProject(e.Name), e.ProjectID, e.Created, e.UserID, e.CredentialID, e.TrustID, e.ProjectID)
}

// refuseTakeover refuses, with a *TakeoverError, the project p found by name when its identity
// is whole (user, credential and trust present); an incomplete one (an interrupted create) may
// be adopted.
func (e *ensurer) refuseTakeover(ctx context.Context, p *projects.Project) error {
	user, err := lookupUser(ctx, e.manager, e.domainID, "", naming.IdentityUser(e.spec.Name))
	if err != nil || user == nil {
		return err
	}

	creds, err := e.svc.credentials(ctx, p.ID)
	if err != nil {
		return err
	}

	acs, err := identityCredentials(ctx, creds, user.ID, e.spec.Name)
	if err != nil || len(acs) == 0 {
		return err
	}

	base, err := e.svc.cloud.Base().Keystone()
	if err != nil {
		return err
	}

	ts, err := findTrusts(ctx, base, e.svc.cloud.ServiceUserID(), user.ID, p.ID)
	if err != nil || len(ts) == 0 {
		return err
	}

	return &TakeoverError{
		Name: e.spec.Name, ProjectID: p.ID, Created: created(p.Extra),
		UserID: user.ID, CredentialID: acs[0].ID, TrustID: ts[0].ID,
	}
}

// ids maps role names onto the resolved role IDs.
func (e *ensurer) ids(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range cloud.SortedSet(names) {
		out = append(out, e.roleIDs[n])
	}

	return out
}

// revokeDropped revokes from userID the roles that the prior apply granted and the spec no
// longer has (for the service user, manager is always kept). It reports whether it revoked.
func (e *ensurer) revokeDropped(ctx context.Context, userID, projectID string, serviceUser bool) (bool, error) {
	var dropped []string

	for _, r := range e.prior.Roles {
		if slices.Contains(e.spec.Roles, r) || (serviceUser && r == RoleManager) {
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

// userSession authenticates as the identity's user, resetting its password first when this
// run does not know it (the user was adopted, or made by an earlier run).
func (e *ensurer) userSession(ctx context.Context, userID, projectID string) (*gophercloud.ServiceClient, error) {
	if e.user != nil {
		return e.user, nil
	}

	if e.password == "" {
		password, err := randomPassword()
		if err != nil {
			return nil, err
		}

		if err := resetPassword(ctx, e.manager, userID, password); err != nil {
			return nil, err
		}

		e.password = password

		// Keystone revokes the user's tokens issued up to the second of the change (at second
		// precision), which would include a token asked for right now: let that second pass
		// on Keystone's clock.
		if err := cloud.Sleep(ctx, revocationGrace); err != nil {
			return nil, err
		}

		tflog.Debug(ctx, "Reset the identity user's password to act as the user")
	}

	sess, err := e.svc.cloud.UserSession(ctx, userID, e.password, projectID)
	if err != nil {
		return nil, err
	}

	if e.user, err = sess.Keystone(); err != nil {
		return nil, err
	}

	e.userSess = sess

	return e.user, nil
}

// roleLagBudget bounds how long asUser waits for Keystone to see the user's new roles.
const roleLagBudget = time.Minute

// asUser runs create with the user's own session. Keystone serves a user's project roles from
// a cache that can briefly miss a grant made a moment before (seen under concurrent load):
// the new token then lacks the role and Keystone refuses to delegate it. Such a refusal is
// retried with a fresh token, with backoff, for up to roleLagBudget.
func (e *ensurer) asUser(ctx context.Context, userID, projectID, what string,
	create func(context.Context, *gophercloud.ServiceClient) error,
) error {
	var last error

	start := time.Now()

	attempt := func(ctx context.Context) (struct{}, string, string, error) {
		usc, err := e.userSession(ctx, userID, projectID)
		if err != nil {
			return struct{}{}, "", "", err
		}

		err = create(ctx, usc)

		switch {
		case err == nil:
			return struct{}{}, "done", "", nil
		case isRoleLag(err) && time.Since(start) < roleLagBudget:
			last = err
			e.user = nil // the next attempt gets a new token

			tflog.Debug(ctx, "Keystone does not see the user's roles yet; retrying with a new token", map[string]any{
				"object": what, "waited_ms": time.Since(start).Milliseconds(),
			})

			return struct{}{}, "role-lag", "", nil
		}

		return struct{}{}, "", "", err
	}

	_, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending:     []string{"role-lag"},
		Target:      []string{"done"},
		MinInterval: 500 * time.Millisecond,
		MaxInterval: 5 * time.Second,
	}, attempt)

	var timeout *cloud.WaitTimeoutError
	if errors.As(err, &timeout) && last != nil {
		return fmt.Errorf("%w (still refused after %s)", last, timeout.Waited.Round(time.Second))
	}

	if err == nil && last != nil {
		tflog.Info(ctx, "Keystone saw the user's roles after a delay", map[string]any{
			"object": what, "waited_ms": time.Since(start).Milliseconds(),
		})
	}

	return err
}

// isRoleLag tells whether Keystone refused to delegate a role because the user's token
// lacks it.
func isRoleLag(err error) bool {
	var code gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &code) {
		return false
	}

	body := strings.ToLower(string(code.Body))

	switch code.Actual {
	case 400:
		return strings.Contains(body, "unassigned role")
	case 403, 404:
		return strings.Contains(body, "role")
	}

	return false
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

	e.out.NovaChecked = true
	e.out.ServerGroups = map[string]string{}

	for _, t := range ts {
		compute, err := t.Compute()
		if err != nil {
			return err
		}

		sgName := naming.IdentityServerGroup(e.spec.Name)

		id, existed, err := ensureServerGroup(ctx, compute, sgName, e.spec.ServerGroupPolicy)
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
