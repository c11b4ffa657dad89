package acctest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// IdentityName is a fresh identity name: the sweepable prefix, lower case, within the
// identity's 40 characters of [a-z0-9-].
func IdentityName() string {
	return strings.ToLower(RandomName())
}

// IdentityKeystone is the manager-scope Keystone client of the direct client, and the managed
// domain's ID.
func IdentityKeystone(t *testing.T) (*gophercloud.ServiceClient, string) {
	t.Helper()

	ctx := context.Background()
	c := Client(t)

	domainID, err := c.ManagedDomainID(ctx)
	if err != nil {
		t.Fatalf("managed domain: %v", err)
	}

	mgr, err := c.Manager(ctx)
	if err != nil {
		t.Fatalf("manager scope: %v", err)
	}

	sc, err := mgr.Keystone()
	if err != nil {
		t.Fatalf("manager Keystone client: %v", err)
	}

	return sc, domainID
}

// AdminKeystone is the direct client's Keystone in the service user's own project (admin
// there), where the provider makes its application-credential and trust calls: Keystone
// 2025.1's scope checks refuse them to the manager's domain-scoped token.
func AdminKeystone(t *testing.T) *gophercloud.ServiceClient {
	t.Helper()

	sc, err := Client(t).Base().Keystone()
	if err != nil {
		t.Fatalf("Keystone client of the service user's own project: %v", err)
	}

	return sc
}

// IdentityProjects lists the projects of the managed domain named unikorn-identity-<name>.
func IdentityProjects(t *testing.T, name string) ([]projects.Project, error) {
	t.Helper()

	sc, domainID := IdentityKeystone(t)

	return named(projects.List(sc, projects.ListOpts{DomainID: domainID, Name: naming.IdentityProject(name)}),
		projects.ExtractProjects, naming.IdentityProject(name), func(p projects.Project) string { return p.Name })
}

// IdentityUsers lists the users of the managed domain named unikorn-identity-<name>.
func IdentityUsers(t *testing.T, name string) ([]users.User, error) {
	t.Helper()

	sc, domainID := IdentityKeystone(t)

	return named(users.List(sc, users.ListOpts{DomainID: domainID, Name: naming.IdentityUser(name)}),
		users.ExtractUsers, naming.IdentityUser(name), func(u users.User) string { return u.Name })
}

// named reads every page of pager and keeps the objects named exactly name (Keystone's name
// filters are exact, but the check must not rely on it).
func named[T any](pager pagination.Pager, extract func(pagination.Page) ([]T, error), name string, nameOf func(T) string) ([]T, error) {
	all, err := AllPages(context.Background(), pager, extract)
	if err != nil {
		return nil, err
	}

	return naming.Exact(all, name, nameOf), nil
}

// CheckIdentityDestroy is the CheckDestroy of unikorn_identity: it asks Keystone that neither
// the project (by ID and by name) nor the user of any identity in the state exists anymore,
// and Neutron (as the service user, an admin of its own project) that no security group of
// the project is left in any region, the default one included.
func CheckIdentityDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		sc, _ := IdentityKeystone(t)
		ctx := context.Background()

		return EachOf(s, "unikorn_identity", func(a map[string]string) error {
			id := a["id"]
			name := a["name"]

			if _, err := projects.Get(ctx, sc, id).Extract(); !gophercloud.ResponseCodeIs(err, 404) {
				return fmt.Errorf("identity %s: project %s still exists (err %v)", name, id, err)
			}

			ps, err := IdentityProjects(t, name)
			if err != nil {
				return err
			}

			if len(ps) > 0 {
				return fmt.Errorf("identity %s: a project %s still exists (%s)", name, naming.IdentityProject(name), ps[0].ID)
			}

			us, err := IdentityUsers(t, name)
			if err != nil {
				return err
			}

			if len(us) > 0 {
				return fmt.Errorf("identity %s: a user %s still exists (%s)", name, naming.IdentityUser(name), us[0].ID)
			}

			for _, region := range Regions() {
				net, err := Client(t).Base().Network(region)
				if err != nil {
					return err
				}

				// Unfiltered: Neutron makes a project's default group when asked for the
				// project's groups, even for a deleted project.
				sgs, err := AllPages(ctx, groups.List(net, groups.ListOpts{}), groups.ExtractGroups)
				if err != nil {
					return err
				}

				for _, g := range sgs {
					if g.ProjectID == id {
						return fmt.Errorf("identity %s: security group %q (%s) of project %s left in region %s", name, g.Name, g.ID, id, region)
					}
				}
			}

			return nil
		})
	}
}

// PreCreateIdentity makes the project and user of identity name by hand, as an apply that
// died after those steps would have left them, and returns their IDs.
func PreCreateIdentity(t *testing.T, name string) (projectID, userID string) {
	t.Helper()

	sc, domainID := IdentityKeystone(t)
	ctx := context.Background()

	p, err := projects.Create(ctx, sc, projects.CreateOpts{DomainID: domainID, Name: naming.IdentityProject(name)}).Extract()
	if err != nil {
		t.Fatalf("pre-creating project: %v", err)
	}

	u, err := users.Create(ctx, sc, users.CreateOpts{DomainID: domainID, Name: naming.IdentityUser(name), DefaultProjectID: p.ID}).Extract()
	if err != nil {
		t.Fatalf("pre-creating user: %v", err)
	}

	return p.ID, u.ID
}

// DeleteProject deletes a Keystone project out of band.
func DeleteProject(t *testing.T, projectID string) {
	t.Helper()

	sc, _ := IdentityKeystone(t)
	if err := projects.Delete(context.Background(), sc, projectID).ExtractErr(); err != nil {
		t.Fatalf("deleting project %s: %v", projectID, err)
	}

	Client(t).ForgetProject(projectID)
}

// DeleteCredentials deletes, out of band, the application credential and every trust of the
// identity user userID (as the admin the service user is).
func DeleteCredentials(t *testing.T, userID, credentialID string) {
	t.Helper()

	ctx := context.Background()
	c := Client(t)
	sc := AdminKeystone(t)

	if err := applicationcredentials.Delete(ctx, sc, userID, credentialID).ExtractErr(); err != nil {
		t.Fatalf("deleting application credential %s: %v", credentialID, err)
	}

	for _, tr := range UserTrusts(t, userID) {
		if err := trusts.Delete(ctx, sc, tr.ID).ExtractErr(); err != nil {
			t.Fatalf("deleting trust %s: %v", tr.ID, err)
		}

		c.ForgetProject(tr.ProjectID)
	}
}

// UserTrusts are the trusts from userID to the service user.
func UserTrusts(t *testing.T, userID string) []trusts.Trust {
	t.Helper()

	return TrustsBetween(t, Client(t).ServiceUserID(), userID)
}

// TrustsBetween lists the trusts from userID to trusteeID (a service user).
func TrustsBetween(t *testing.T, trusteeID, userID string) []trusts.Trust {
	t.Helper()

	all, err := AllPages(context.Background(), trusts.List(AdminKeystone(t), trusts.ListOpts{TrusteeUserID: trusteeID}), trusts.ExtractTrusts)
	if err != nil {
		t.Fatalf("listing trusts: %v", err)
	}

	return slices.DeleteFunc(all, func(tr trusts.Trust) bool { return tr.TrustorUserID != userID })
}

// RoleNamesOf lists the names of the roles granted directly to userID on projectID.
func RoleNamesOf(t *testing.T, userID, projectID string) []string {
	t.Helper()

	sc, _ := IdentityKeystone(t)
	ctx := context.Background()

	as, err := AllPages(ctx, roles.ListAssignments(sc, roles.ListAssignmentsOpts{UserID: userID, ScopeProjectID: projectID}), roles.ExtractRoleAssignments)
	if err != nil {
		t.Fatalf("listing role assignments: %v", err)
	}

	all, err := AllPages(ctx, roles.List(sc, roles.ListOpts{}), roles.ExtractRoles)
	if err != nil {
		t.Fatalf("listing roles: %v", err)
	}

	byID := map[string]string{}
	for _, r := range all {
		byID[r.ID] = r.Name
	}

	var names []string

	for _, a := range as {
		names = append(names, byID[a.Role.ID])
	}

	slices.Sort(names)

	return slices.Compact(names)
}

// ListServersWithCloudsYAML authenticates with the one cloud of a clouds.yaml document (as
// unikorn_identity exports it) and lists the servers of region: proof that the credential
// works for a tenant.
func ListServersWithCloudsYAML(ctx context.Context, doc, cloudName, region string) (int, error) {
	ao, eo, _, err := clouds.Parse(clouds.WithCloudsYAML(strings.NewReader(doc)), clouds.WithCloudName(cloudName), clouds.WithRegion(region))
	if err != nil {
		return 0, fmt.Errorf("parsing clouds_yaml: %w", err)
	}

	if ao.ApplicationCredentialID == "" || ao.ApplicationCredentialSecret == "" {
		return 0, fmt.Errorf("clouds_yaml holds no application credential")
	}

	pc, err := openstack.AuthenticatedClient(ctx, ao)
	if err != nil {
		return 0, fmt.Errorf("authenticating with the application credential: %w", err)
	}

	compute, err := openstack.NewComputeV2(pc, eo)
	if err != nil {
		return 0, err
	}

	all, err := AllPages(ctx, servers.List(compute, servers.ListOpts{}), servers.ExtractServers)
	if err != nil {
		return 0, fmt.Errorf("listing servers with the application credential: %w", err)
	}

	return len(all), nil
}

// KeypairOwnerThroughTrust creates a keypair in region through the identity scope (the trust)
// of projectID, returns the user Nova says owns it, and deletes it again.
func KeypairOwnerThroughTrust(t *testing.T, projectID, region string) (string, error) {
	t.Helper()

	ctx := context.Background()
	c := Client(t)
	c.ForgetProject(projectID)

	sess, err := c.Identity(ctx, projectID)
	if err != nil {
		return "", err
	}

	compute, err := sess.Compute(region)
	if err != nil {
		return "", err
	}

	name := RandomName() + "-probe"

	kp, err := keypairs.Create(ctx, compute, keypairs.CreateOpts{Name: name, PublicKey: SSHPublicKey(t)}).Extract()
	if err != nil {
		return "", fmt.Errorf("creating a keypair through the trust: %w", err)
	}

	if err := keypairs.Delete(ctx, compute, name, nil).ExtractErr(); err != nil {
		return "", fmt.Errorf("deleting keypair %s: %w", name, err)
	}

	return kp.UserID, nil
}

// KeypairOwner reads keypair name of userID in region (as an admin) and returns its owner and
// public key.
func KeypairOwner(t *testing.T, _, userID, region, name string) (string, string, error) {
	t.Helper()

	// Another user's keypair is an admin read: the shared service user is admin on its own
	// project (the cloud-admin model), not in the identity's.
	compute, err := Client(t).Base().Compute(region)
	if err != nil {
		return "", "", err
	}

	kp, err := keypairs.Get(context.Background(), compute, name, keypairs.GetOpts{UserID: userID}).Extract()
	if err != nil {
		return "", "", err
	}

	return kp.UserID, kp.PublicKey, nil
}

// CreateNetwork makes a network in projectID in region (privileged scope) and returns its ID.
func CreateNetwork(t *testing.T, projectID, region, name string) string {
	t.Helper()

	priv, err := Client(t).Privileged(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}

	net, err := priv.Network(region)
	if err != nil {
		t.Fatal(err)
	}

	n, err := networks.Create(context.Background(), net, networks.CreateOpts{Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating network %s: %v", name, err)
	}

	return n.ID
}

// NetworkExists tells whether network id exists in region (asked as the service user's own
// project, an admin scope).
func NetworkExists(t *testing.T, region, id string) (bool, error) {
	t.Helper()

	net, err := Client(t).Base().Network(region)
	if err != nil {
		return false, err
	}

	_, err = networks.Get(context.Background(), net, id).Extract()

	switch {
	case err == nil:
		return true, nil
	case gophercloud.ResponseCodeIs(err, 404):
		return false, nil
	}

	return false, err
}

// SSHPublicKey is a fresh ed25519 public key in OpenSSH form (its private key is dropped).
func SSHPublicKey(t *testing.T) string {
	t.Helper()

	key, err := NewSSHPublicKey()
	if err != nil {
		t.Fatal(err)
	}

	return key
}

// NewSSHPublicKey is SSHPublicKey for code without a test (a SharedStack's configuration).
func NewSSHPublicKey() (string, error) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}

	field := func(b []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(b))) //nolint:gosec // short fields
		return append(out, b...)
	}

	blob := append(field([]byte("ssh-ed25519")), field(pub)...)

	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " tf-acc", nil
}

// FreshClient is a new OpenStack client configured like Client but sharing nothing with it
// (no cached tokens or sessions), for measuring what one operation costs from a cold start.
func FreshClient(t *testing.T) *cloud.Client {
	t.Helper()

	c, err := NewClient(context.Background(), "terraform-provider-unikorn-acctest")
	if err != nil {
		t.Fatalf("cannot build an OpenStack client: %v", err)
	}

	return c
}

// UserID is the ID of the user name in the Default domain (the local cloud's service users).
func UserID(t *testing.T, name string) string {
	t.Helper()

	return userIDIn(t, name, "default", "Default")
}

// CloudUserID is the ID of the user that the clouds.yaml entry cloud (of OS_CLIENT_CONFIG_FILE)
// authenticates as, found by its name in its user domain (Default when the entry names none).
func CloudUserID(t *testing.T, cloud string) string {
	t.Helper()

	auth := CloudsYAMLEntryOf(t, cloud).Auth
	if auth.UserDomainID != "" {
		return userIDIn(t, auth.Username, auth.UserDomainID, auth.UserDomainID)
	}

	domain := auth.UserDomainName
	if domain == "" {
		domain = "Default"
	}

	all, err := AllPages(context.Background(), domains.List(AdminKeystone(t), domains.ListOpts{Name: domain}), domains.ExtractDomains)
	if err != nil || len(all) != 1 {
		t.Fatalf("the user domain %s of clouds.yaml entry %s: %d found (%v)", domain, cloud, len(all), err)
	}

	return userIDIn(t, auth.Username, all[0].ID, domain)
}

// userIDIn is the ID of the user name in the domain domainID (called domainName in messages).
func userIDIn(t *testing.T, name, domainID, domainName string) string {
	t.Helper()

	sc := AdminKeystone(t)

	list := func(opts users.ListOpts) []users.User {
		all, err := AllPages(context.Background(), users.List(sc, opts), users.ExtractUsers)
		if err != nil {
			t.Fatalf("listing users %+v: %v", opts, err)
		}

		return all
	}

	found := list(users.ListOpts{Name: name, DomainID: domainID})
	if len(found) == 0 {
		// Seen once right after a fresh boot of the local cloud (cause not known): say what
		// Keystone lists without the name filter, then ask once more.
		var names []string
		for _, u := range list(users.ListOpts{DomainID: domainID}) {
			names = append(names, u.Name)
		}

		t.Logf("Keystone listed no user %s in %s; without the name filter it lists %q; asking again", name, domainName, names)
		time.Sleep(2 * time.Second)

		found = list(users.ListOpts{Name: name, DomainID: domainID})
	}

	if len(found) != 1 {
		t.Fatalf("user %s in %s: %d found", name, domainName, len(found))
	}

	return found[0].ID
}
