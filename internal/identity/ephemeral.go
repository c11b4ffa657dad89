package identity

// This file is the core of unikorn_identity_credential: a short-lived application credential
// of an identity's user, issued when Terraform opens the ephemeral resource and deleted when
// it closes it, so that no long-lived secret needs to be kept in state.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Credential is a short-lived application credential of an identity's user.
type Credential struct {
	ID, Secret string
	Name       string // unikorn-identity-<name>-ephemeral-<suffix>
	Identity   string // the identity's name
	UserID     string
	ProjectID  string
	ExpiresAt  time.Time
}

// IssueCredential issues a restricted application credential of the identity projectID's user
// that expires after ttl and delegates the user's roles on the project (those of the role
// mapping). Keystone lets only the user itself issue one, so, as an apply does, the user's
// password is reset to a random one known to this call only (under the user's lock, which the
// identity's apply takes too; a 401 after the reset, from another process resetting it, is met
// by resetting it again); the credentials and the trust of the identity are untouched.
//
// An identity this provider did not make is refused before anything is written
// (*ForeignCredentialError): Unikorn logs in as its user with the password it stored.
func (s *Service) IssueCredential(ctx context.Context, projectID string, ttl time.Duration, now time.Time) (*Credential, error) {
	project, identity, err := s.locateProject(ctx, projectID)
	if err != nil {
		return nil, err
	}

	if !madeForIdentity(project.Extra) {
		return nil, &ForeignCredentialError{Identity: subjectOf(identity, project.ID)}
	}

	loc := cloud.Located{ID: project.ID, ProjectID: project.ID, Name: identity}

	manager, domainID, err := s.manager(ctx)
	if err != nil {
		return nil, err
	}

	user, err := lookupUser(ctx, manager, domainID, "", naming.IdentityUser(loc.Name))
	if err != nil {
		return nil, err
	}

	if user == nil {
		return nil, fmt.Errorf("identity %s (project %s) has no user %s: apply the identity first",
			loc.Name, loc.ID, naming.IdentityUser(loc.Name))
	}

	roles, err := s.userRoles(ctx, manager, user.ID, loc.ID)
	if err != nil {
		return nil, err
	}

	if len(roles) == 0 {
		return nil, fmt.Errorf("user %s has no role on project %s to delegate: apply the identity first", user.ID, loc.ID)
	}

	suffix, err := randomSuffix()
	if err != nil {
		return nil, err
	}

	// The user's lock is held from the password reset to the credential made with it: an apply
	// of the identity or another open in this process would revoke the token in between.
	e := &ensurer{svc: s, spec: Spec{Name: loc.Name, Roles: roles}, manager: manager}
	defer e.releaseUser()

	if e.roleIDs, err = s.config.roleIDsFor(ctx, manager, roles); err != nil {
		return nil, err
	}

	if e.creds, err = s.credentials(ctx, loc.ID); err != nil {
		return nil, err
	}

	name := naming.IdentityEphemeralCredential(loc.Name, suffix)
	expires := now.Add(ttl).UTC().Truncate(time.Second)

	var ac *applicationCredential

	err = e.asUser(ctx, user.ID, loc.ID, "application credential", func(ctx context.Context, usc *gophercloud.ServiceClient) error {
		ac, err = cloud.Create(ctx, cloud.CreateSpec[*applicationCredential]{
			Kind: "application credential", Name: name,
			Create: func(ctx context.Context) (*applicationCredential, error) {
				return createApplicationCredential(ctx, usc, user.ID, name, e.ids(roles), &expires)
			},
			// Its secret is only in the answer: one made by a lost answer is deleted.
			Find: func(ctx context.Context) ([]*applicationCredential, error) {
				return nil, e.deleteLostCredentials(ctx, user.ID, name)
			},
			ID: func(ac *applicationCredential) string { return ac.ID },
		})

		return err
	})
	// The reset password revoked the user's tokens, and with them those the provider holds
	// through the user's trust: the next identity-scoped call authenticates again.
	s.cloud.ForgetProject(loc.ID)

	if err != nil {
		return nil, err
	}

	tflog.Info(ctx, "Issued a short-lived application credential", map[string]any{
		"application_credential_id": ac.ID, "project_id": loc.ID, "expires_at": expires.Format(time.RFC3339),
	})

	return &Credential{
		ID: ac.ID, Secret: ac.Secret, Name: name, Identity: loc.Name, UserID: user.ID, ProjectID: loc.ID,
		ExpiresAt: expires,
	}, nil
}

// RevokeCredential deletes the application credential id of user userID in the identity
// projectID; one already gone (expired, deleted) is fine.
func (s *Service) RevokeCredential(ctx context.Context, projectID, userID, id string) error {
	sc, err := s.credentials(ctx, projectID)
	if err != nil {
		return err
	}

	if err := deleteApplicationCredential(ctx, sc, userID, id); err != nil {
		return err
	}

	tflog.Info(ctx, "Deleted the short-lived application credential", map[string]any{
		"application_credential_id": id, "project_id": projectID,
	})

	return nil
}

// dropApplicationCredentials deletes the identity's own application credentials (under
// either of credentialNames), for a spec that keeps none; short-lived ones are left to close.
func (e *ensurer) dropApplicationCredentials(ctx context.Context, userID string) error {
	old, err := e.credentials(ctx, userID)
	if err != nil {
		return err
	}

	e.out.ApplicationCredentialID, e.out.ApplicationCredentialSecret, e.out.ExpiresAt = "", "", nil

	return deleteEach(ctx, e.creds, userID, old, tflog.Info, "Deleted the identity's application credential: none is to be kept")
}

// deleteEach deletes the credentials acs of user userID, logging each with message at log's
// level.
func deleteEach(ctx context.Context, sc *gophercloud.ServiceClient, userID string, acs []applicationCredential,
	log func(context.Context, string, ...map[string]any), message string,
) error {
	for _, ac := range acs {
		if err := deleteApplicationCredential(ctx, sc, userID, ac.ID); err != nil {
			return err
		}

		log(ctx, message, map[string]any{"application_credential_id": ac.ID})
	}

	return nil
}

// randomSuffix is 8 random hexadecimal digits: what tells one short-lived credential of a user
// from another (Keystone keeps credential names unique per user).
func randomSuffix() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a credential name: %w", err)
	}

	return hex.EncodeToString(b), nil
}
