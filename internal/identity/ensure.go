package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
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
	domainID string
	roleIDs  map[string]string          // role name → ID, for spec roles and manager
	password string                     // the user's password, known only during this run
	user     *gophercloud.ServiceClient // Keystone as the identity's user, once authenticated
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

	// 1. Project.
	project, err := ensureProject(ctx, e.manager, e.domainID, e.spec, e.prior.ProjectID)
	if err != nil {
		return err
	}

	e.out.ProjectID = project.ID
	e.out.Description = project.Description
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

	// 3. Quotas in every served region (privileged scope).
	if e.prior.Quotas == nil || !e.prior.Quotas.Equal(e.spec.Quotas) {
		if e.out.Quotas, err = e.svc.applyQuotas(ctx, project.ID, e.spec.Quotas); err != nil {
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

	rolesChanged = rolesChanged || !sameSet(e.prior.Roles, e.spec.Roles)
	e.out.Roles = sortedUnique(e.spec.Roles)

	// 6. Application credential.
	if err := e.ensureApplicationCredential(ctx, user.ID, project.ID, rolesChanged); err != nil {
		return err
	}

	// 7. Trust (which forgets the project's cached scopes itself whenever it changes a trust).
	if err := e.ensureTrust(ctx, user.ID, project.ID); err != nil {
		return err
	}

	if rolesChanged {
		// Tokens keep the roles they were issued with.
		c.ForgetProject(project.ID)
	}

	// 8. Server group and keypair, in every served region, in the identity scope. Nothing to
	// do when neither is wanted nor was made before.
	if e.spec.ServerGroupPolicy == "" && e.spec.SSHPublicKey == "" && !e.prior.NovaObjects {
		return nil
	}

	return e.ensureNova(ctx, project.ID)
}

// ids maps role names onto the resolved role IDs.
func (e *ensurer) ids(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range sortedUnique(names) {
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

	for _, r := range sortedUnique(dropped) {
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
	name := naming.IdentityApplicationCredential(e.spec.Name)

	if e.prior.ApplicationCredentialID != "" && e.prior.ApplicationCredentialSecret != "" &&
		e.prior.UserID == userID && !rolesChanged && sameTime(e.prior.ExpiresAt, e.spec.ExpiresAt) {
		ac, err := getApplicationCredential(ctx, e.manager, userID, e.prior.ApplicationCredentialID)
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

	// A credential whose secret we do not hold is useless to the tenant: replace it.
	e.out.ApplicationCredentialID, e.out.ApplicationCredentialSecret, e.out.ExpiresAt = "", "", nil

	stale, err := findApplicationCredentials(ctx, e.manager, userID, name)
	if err != nil {
		return err
	}

	for _, ac := range stale {
		if err := deleteApplicationCredential(ctx, e.manager, userID, ac.ID); err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted an application credential to re-issue it", map[string]any{"application_credential_id": ac.ID})
	}

	var ac *applicationCredential

	err = e.asUser(ctx, userID, projectID, "application credential", func(ctx context.Context, usc *gophercloud.ServiceClient) error {
		var err error

		ac, err = createApplicationCredential(ctx, usc, userID, name, e.ids(e.spec.Roles), e.spec.ExpiresAt)

		return err
	})
	if err != nil {
		return err
	}

	e.out.ApplicationCredentialID = ac.ID
	e.out.ApplicationCredentialSecret = ac.Secret
	e.out.ExpiresAt = timePtr(ac.ExpiresAt)

	tflog.Info(ctx, "Issued the identity's application credential", map[string]any{"application_credential_id": ac.ID})

	return nil
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

		err := deleteTrust(ctx, e.manager, t.ID)
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

	if len(found) == 1 && found[0].Impersonation && sameSet(trustRoleIDs(found[0]), want) {
		e.out.TrustID = found[0].ID
		return nil
	}

	e.out.TrustID = ""

	for _, t := range found {
		err := deleteTrust(ctx, e.manager, t.ID)
		c.ForgetProject(projectID)

		if err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted a trust to replace it", map[string]any{"trust_id": t.ID})
	}

	var t *trusts.Trust

	err = e.asUser(ctx, userID, projectID, "trust", func(ctx context.Context, usc *gophercloud.ServiceClient) error {
		var err error

		t, err = createTrust(ctx, usc, userID, c.ServiceUserID(), projectID, want)

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

		id, err := ensureServerGroup(ctx, compute, naming.IdentityServerGroup(e.spec.Name), e.spec.ServerGroupPolicy)
		if err != nil {
			return fmt.Errorf("server group in region %s: %w", t.Region(), err)
		}

		if id != "" {
			e.out.ServerGroups[t.Region()] = id
		}

		if err := ensureKeypair(ctx, compute, naming.KeypairName, e.spec.SSHPublicKey); err != nil {
			return fmt.Errorf("keypair in region %s: %w", t.Region(), err)
		}

		if e.spec.SSHPublicKey != "" {
			e.out.Keypairs = append(e.out.Keypairs, t.Region())
		}
	}

	e.out.ServerGroupPolicy = e.spec.ServerGroupPolicy
	e.out.SSHPublicKey = e.spec.SSHPublicKey

	return nil
}
