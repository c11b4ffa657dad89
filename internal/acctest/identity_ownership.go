package acctest

import (
	"context"
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The helpers of the identity's ownership tests (issue 26): an identity as an interrupted create
// leaves it, a user's password set and checked directly, a server made out of band in a region.

// PreCreateInterruptedIdentity makes the project and user unikorn-identity-<name> as a create of
// a unikorn_identity killed after those steps leaves them (the identity's creation mark, no
// completion mark), and registers their deletion with t.Cleanup (a 404 is fine: the identity's
// destroy took them).
func PreCreateInterruptedIdentity(t *testing.T, name string) (projectID, userID string) {
	t.Helper()

	sc, domainID := IdentityKeystone(t)
	ctx := context.Background()
	mark := naming.MadeFor(identity.Type)

	p, err := projects.Create(ctx, sc, projects.CreateOpts{
		DomainID: domainID, Name: naming.IdentityProject(name), Extra: mark.Extra(),
	}).Extract()
	if err != nil {
		t.Fatalf("pre-creating the project: %v", err)
	}

	u, err := users.Create(ctx, sc, users.CreateOpts{
		DomainID: domainID, Name: naming.IdentityUser(name), DefaultProjectID: p.ID, Extra: mark.Extra(),
	}).Extract()
	if err != nil {
		t.Fatalf("pre-creating the user: %v", err)
	}

	DeleteIdentityObjectsAtCleanup(t, p.ID, u.ID)

	return p.ID, u.ID
}

// DeleteIdentityObjectsAtCleanup deletes the Keystone project projectID and user userID of an
// identity made out of band when the test ends (a 404 is fine).
func DeleteIdentityObjectsAtCleanup(t *testing.T, projectID, userID string) {
	t.Helper()

	t.Cleanup(func() {
		sc, _ := IdentityKeystone(t)
		ctx := context.Background()

		if err := users.Delete(ctx, sc, userID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting user %s: %v", userID, err)
		}

		if err := projects.Delete(ctx, sc, projectID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting project %s: %v", projectID, err)
		}
	})
}

// SetUserPassword sets the password of the identity user userID (as the manager may), so that a
// test can tell later whether something reset it.
func SetUserPassword(t *testing.T, userID, password string) {
	t.Helper()

	sc, _ := IdentityKeystone(t)
	if _, err := users.Update(context.Background(), sc, userID, users.UpdateOpts{Password: password}).Extract(); err != nil {
		t.Fatalf("setting the password of user %s: %v", userID, err)
	}
}

// CheckUserPassword authenticates as user userID with password, scoped to projectID: nil when
// Keystone takes it.
func CheckUserPassword(t *testing.T, userID, password, projectID string) error {
	t.Helper()

	if _, err := Client(t).UserSession(context.Background(), userID, password, projectID); err != nil {
		return fmt.Errorf("user %s no longer authenticates with the password it had: %w", userID, err)
	}

	return nil
}

// PreCreateServerWithNetwork makes, in projectID and region, a network and subnet called name
// (privileged scope) and the server name on it as the identity's user (PreCreateServer, with the
// local cloud's test flavor and image), and returns the server's ID.
func PreCreateServerWithNetwork(t *testing.T, projectID, region, name string) string {
	t.Helper()

	ctx := context.Background()

	priv, err := Client(t).Privileged(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}

	sc := clientOf(t, "Neutron", region, priv.Network)

	n, err := networks.Create(ctx, sc, networks.CreateOpts{Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating network %s in %s: %v", name, region, err)
	}

	if _, err := subnets.Create(ctx, sc, subnets.CreateOpts{
		NetworkID: n.ID, Name: name, CIDR: "10.77.0.0/24", IPVersion: gophercloud.IPv4,
	}).Extract(); err != nil {
		t.Fatalf("creating subnet %s in %s: %v", name, region, err)
	}

	_, serverID := PreCreateServer(t, projectID, region, n.ID, name, FlavorID(t, region, ServerFlavor), ImageID(t, region, ServerImage))

	return serverID
}
