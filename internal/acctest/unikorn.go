package acctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// UnikornIdentity is an identity as Unikorn's region service makes it: a project and a user
// called unikorn-identity-<UUID> in the managed domain, the project tagged with its
// organization and project, the user with a password and the member roles, and an application
// credential of the user's name.
type UnikornIdentity struct {
	Name                        string // the UUID
	ProjectID, UserID, Password string
	CredentialID                string
}

// CreateUnikornIdentity makes, directly in the cloud, an identity as Unikorn's region service
// does, with the organization and project tags; the test's end deletes whatever of it is left.
func CreateUnikornIdentity(t *testing.T, organization, project string) UnikornIdentity {
	t.Helper()

	ctx := context.Background()
	sc, domainID := IdentityKeystone(t)
	u := UnikornIdentity{Name: uuid(t), Password: uuid(t)}

	p, err := projects.Create(ctx, sc, projects.CreateOpts{
		DomainID: domainID, Name: naming.IdentityProject(u.Name),
		Tags: []string{"organization=" + organization, "project=" + project},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn project: %v", err)
	}

	u.ProjectID = p.ID

	user, err := users.Create(ctx, sc, users.CreateOpts{
		DomainID: domainID, Name: naming.IdentityUser(u.Name), DefaultProjectID: p.ID, Password: u.Password,
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn user: %v", err)
	}

	u.UserID = user.ID

	t.Cleanup(func() {
		for _, err := range []error{users.Delete(ctx, sc, u.UserID).ExtractErr(), projects.Delete(ctx, sc, u.ProjectID).ExtractErr()} {
			if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
				t.Errorf("deleting the Unikorn identity %s: %v", u.Name, err)
			}
		}

		Client(t).ForgetProject(u.ProjectID)
	})

	for _, role := range []string{"member", "load-balancer_member"} {
		Assign(t, p.ID, role, user.ID, false)
	}

	for _, role := range []string{"manager", "member", "load-balancer_member"} {
		GrantServiceUser(t, p.ID, role)
	}

	usc, err := u.Keystone(t)
	if err != nil {
		t.Fatal(err)
	}

	ac, err := applicationcredentials.Create(ctx, usc, user.ID, applicationcredentials.CreateOpts{
		Name: naming.IdentityApplicationCredential(u.Name), Roles: []applicationcredentials.Role{{Name: "member"}},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn application credential: %v", err)
	}

	u.CredentialID = ac.ID

	return u
}

// Keystone authenticates as the identity's user with its password, in its project.
func (u UnikornIdentity) Keystone(t *testing.T) (*gophercloud.ServiceClient, error) {
	t.Helper()

	sess, err := Client(t).UserSession(context.Background(), u.UserID, u.Password, u.ProjectID)
	if err != nil {
		return nil, fmt.Errorf("authenticating as the Unikorn user %s with its password: %w", u.UserID, err)
	}

	return sess.Keystone()
}

// Untouched checks that nothing of the identity was rewritten: its password still works, its
// application credentials are exactly the one it had, and its user has no trust.
func (u UnikornIdentity) Untouched(t *testing.T) error {
	t.Helper()

	ctx := context.Background()

	usc, err := u.Keystone(t)
	if err != nil {
		return err
	}

	acs, err := AllPages(ctx, applicationcredentials.List(usc, u.UserID, nil), applicationcredentials.ExtractApplicationCredentials)
	if err != nil {
		return err
	}

	ids := make([]string, len(acs))
	for i, ac := range acs {
		ids[i] = ac.ID
	}

	if !slices.Equal(ids, []string{u.CredentialID}) {
		return fmt.Errorf("the Unikorn user's application credentials are %v, want only %s", ids, u.CredentialID)
	}

	if trusts := UserTrusts(t, u.UserID); len(trusts) != 0 {
		return fmt.Errorf("the Unikorn user has %d trusts to the service user, want none", len(trusts))
	}

	return nil
}

// uuid is a random UUID, in lower case.
func uuid(t *testing.T) string {
	t.Helper()

	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}

	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)

	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
