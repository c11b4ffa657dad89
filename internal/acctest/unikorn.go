package acctest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // UUIDv5 is SHA-1 by definition (RFC 9562), as Unikorn's IDs are
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// The Unikorn fixtures make, directly in the cloud, what Unikorn's region service makes, step by
// step as its OpenStack provider does at one release tag (a generation): an identity, networks,
// security groups, servers and load balancers. They spell Unikorn's names, descriptions and
// metadata themselves and never ask internal/naming, so that a drift between Unikorn and this
// provider shows in the tests that import them.
//
// The reference is Unikorn's source (GitHub nscaledev/uni-region, Go module
// github.com/unikorn-cloud/region), read at each generation's tags. Every step names, in a
// comment, the file and function it mirrors and the tags it was read at, as file:Function@tags.
// The provider lives in pkg/providers/openstack/ at v1.10.0 and in
// pkg/providers/internal/openstack/ from v1.12.0; the comments write these P10/ and P/.
//
// Who does what: Unikorn's region service user makes the Keystone project, user and
// role grants (domain-scoped: here the provider's service user in the manager scope,
// IdentityKeystone), and networks, subnets, routers and security groups in the identity's project
// (the "privileged" scope: the same user scoped to that project, where Unikorn grants it only
// manager). The identity's own user, logging in with the password Unikorn stored, makes the
// application credential, the server group and keypair, ports, servers and load balancers.
// Unikorn never makes a Keystone trust.
//
// What the fixtures leave out, and why: quotas (P/provider.go:provisionQuotas sets them in the
// privileged scope, which the local cloud's stock policy refuses: Cinder answers 403
// volume_extension:quotas:update); VLAN provider networks (only with a region's
// providerNetworks, not configured here); clouds.yaml (P/provider.go:createClientConfig writes it
// into Unikorn's own OpenstackIdentity, nothing in the cloud); floating IPs and pinned servers
// (not asked by this API).
//
// Cleanups delete, as the cloud admin the local cloud's service user is, what each fixture
// made, in the order of Unikorn's own deletes; the identity's cleanup, which runs last, first
// removes whatever a test left in its project.

// UnikornGeneration is a generation of Unikorn's region service: Name names it in tests, Tag is
// the release tag whose code the fixtures reproduce.
type UnikornGeneration struct{ Name, Tag string }

// The generations the fixtures make.
var (
	// UnikornV110 is v1.10–v1.15, read at v1.10.0: legacy metadata keys only, the pool
	// base+2 … base+size−129, the keypair on every server, no load balancers.
	UnikornV110 = UnikornGeneration{Name: "v1.10", Tag: "v1.10.0"}
	// UnikornV116 is v1.16, read at v1.16.7: namespaced metadata keys and user tags as
	// metadata, the pool base+128 … last−1, load balancers, deterministic v2 server IDs.
	UnikornV116 = UnikornGeneration{Name: "v1.16", Tag: "v1.16.7"}
	// UnikornV117 is v1.17 and later, read at v1.19.0: as v1.16, with the pool start set by the
	// network's reservations (default /25: the v1.16 pool).
	UnikornV117 = UnikornGeneration{Name: "v1.17", Tag: "v1.19.0"}

	// UnikornGenerations are all of them, oldest first.
	UnikornGenerations = []UnikornGeneration{UnikornV110, UnikornV116, UnikornV117}
)

// HasLoadBalancers tells whether the generation makes Octavia load balancers: the real
// implementation is first in v1.16.5 (P/loadbalancer.go@v1.16.5; v1.16.2–v1.16.4 answer
// "load balancer provider support not implemented").
func (g UnikornGeneration) HasLoadBalancers() bool { return g.Tag != UnikornV110.Tag }

// namespaced tells whether servers carry the namespaced metadata keys and user tags besides the
// legacy keys (v1.16.0+: P/provider.go:reconcileServer@v1.16.7,v1.19.0).
func (g UnikornGeneration) namespaced() bool { return g.Tag != UnikornV110.Tag }

// deterministicServerIDs tells whether a v2 server's ID is uuid5(network ID, display name)
// (v1.16.7+: pkg/handler/server/client_v2.go:generateV2@v1.16.7,v1.19.0).
func (g UnikornGeneration) deterministicServerIDs() bool { return g.Tag != UnikornV110.Tag }

// UnikornIdentity is an identity as Unikorn's region service makes it.
type UnikornIdentity struct {
	Gen UnikornGeneration
	// ID is Unikorn's identity ID: the name after unikorn-identity- of the project and user.
	ID                             string
	ProjectID, UserID, Password    string
	CredentialID, CredentialSecret string
	// ServerGroupID is the server group of the first served region (Regions); ServerGroupIDs
	// has those of every served region. ServerGroupPolicy is their policy.
	ServerGroupID, ServerGroupPolicy string
	ServerGroupIDs                   map[string]string
	// KeypairPublicKey is the public key of the keypair unikorn-openstack-provider, the same in
	// every served region, in authorized_keys form.
	KeypairPublicKey string
	// OrganizationID and UnikornProjectID are the organization and project of the project's
	// tags (organization=<id>, project=<id>).
	OrganizationID, UnikornProjectID string
}

// Unikorn's fixed names and values.
const (
	// unikornIdentityPrefix: P/provider.go:identityResourceName@v1.19.0 (P10/ at v1.10.0).
	unikornIdentityPrefix = "unikorn-identity-"
	// unikornKeypair: the constant keyPairName of P/provider.go@v1.19.0 (P10/ at v1.10.0).
	unikornKeypair = "unikorn-openstack-provider"
	// unikornServerGroupPolicy: P/compute.go:CreateServerGroup@v1.19.0, the default when the
	// region sets no compute.serverGroupPolicy.
	unikornServerGroupPolicy = "soft-anti-affinity"
	// unikornComputeMicroversion: P/compute.go:NewComputeClient@v1.10.0,v1.16.7,v1.19.0.
	unikornComputeMicroversion = "2.90"
)

// CreateUnikornIdentity makes an identity of organization and project as Unikorn's gen does
// (P/provider.go:CreateIdentity@v1.19.0, same order in P10/provider.go:CreateIdentity@v1.10.0
// and at v1.16.7), with its server group and keypair in every served region. Its cleanup deletes
// it, and first whatever the test left in its project.
func CreateUnikornIdentity(t *testing.T, gen UnikornGeneration, organization, project string) UnikornIdentity {
	t.Helper()

	ctx := context.Background()
	// The region-domain credentials: Unikorn's service user, domain-scoped
	// (P/identity.go:NewIdentityClient with the region's domain-scoped password provider).
	sc, domainID := IdentityKeystone(t)
	u := UnikornIdentity{
		Gen: gen, ID: unikornResourceID(t), OrganizationID: organization, UnikornProjectID: project,
		ServerGroupPolicy: unikornServerGroupPolicy, ServerGroupIDs: map[string]string{},
	}
	name := unikornIdentityPrefix + u.ID // P/provider.go:identityResourceName@v1.19.0

	t.Cleanup(func() { u.delete(t) })

	// 1. The project, with the organization and project tags and nothing else
	// (P/provider.go:provisionProject, projectTags; P/identity.go:CreateProject@v1.19.0).
	p, err := projects.Create(ctx, sc, projects.CreateOpts{
		DomainID: domainID, Name: name, Tags: []string{"organization=" + organization, "project=" + project},
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn project %s: %v", name, err)
	}

	u.ProjectID = p.ID
	t.Logf("Unikorn %s identity %s: project %s", gen.Tag, u.ID, u.ProjectID)

	// 2. The region service user gets manager, and only manager, on the project
	// (P/provider.go:CreateIdentity, getRequiredProjectManagerRoles, provisionProjectRoles@v1.19.0).
	allRoles, err := AllPages(ctx, roles.List(sc, roles.ListOpts{}), roles.ExtractRoles) // P/identity.go:ListRoles
	if err != nil {
		t.Fatalf("listing Keystone roles: %v", err)
	}

	u.grant(t, sc, allRoles, Client(t).ServiceUserID(), "manager")

	// 3. Quotas (P/provider.go:provisionQuotas) are skipped: see the file's comment.

	// 4. The user, with a random UUIDv4 password and nothing else: no default project, no
	// description (P/provider.go:provisionUser; P/identity.go:CreateUser@v1.19.0).
	u.Password = uuid(t)

	user, err := users.Create(ctx, sc, users.CreateOpts{DomainID: domainID, Name: name, Password: u.Password}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn user %s: %v", name, err)
	}

	u.UserID = user.ID

	// 5. The user's roles: the region's identity.clusterRoles, by default member and
	// load-balancer_member (P/provider.go:getRequiredProjectUserRoles@v1.19.0).
	userRoles := []string{"member", "load-balancer_member"}
	u.grant(t, sc, allRoles, user.ID, userRoles...)

	// 6. The application credential, made by the user itself with its password, scoped to the
	// project: roles by name, no expiry, not unrestricted (P/provider.go:provisionApplicationCredential;
	// P/identity.go:CreateApplicationCredential@v1.19.0).
	sess := u.session(t)

	usc, err := sess.Keystone()
	if err != nil {
		t.Fatal(err)
	}

	acRoles := make([]applicationcredentials.Role, len(userRoles))
	for i, r := range userRoles {
		acRoles[i].Name = r
	}

	ac, err := applicationcredentials.Create(ctx, usc, user.ID, applicationcredentials.CreateOpts{
		Name: name, Description: "IaaS lifecycle management", Roles: acRoles,
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn application credential: %v", err)
	}

	u.CredentialID, u.CredentialSecret = ac.ID, ac.Secret

	// 7. clouds.yaml (P/provider.go:createClientConfig) lives in Unikorn's own resource only.

	// 8. The server group and the keypair, as the user (P/provider.go:createIdentityComputeResources,
	// computeFromServicePrincipalData@v1.19.0): Unikorn serves one region; the fixture makes them in
	// every served region, with one key.
	u.KeypairPublicKey = unikornPublicKey(t)

	for _, region := range Regions() {
		compute := unikornCompute(t, sess, region)

		// P/compute.go:CreateServerGroup@v1.19.0 (the single `policy` of microversion 2.64+).
		g, err := servergroups.Create(ctx, compute, servergroups.CreateOpts{Name: name, Policy: u.ServerGroupPolicy}).Extract()
		if err != nil {
			t.Fatalf("creating the Unikorn server group in %s: %v", region, err)
		}

		u.ServerGroupIDs[region] = g.ID

		// P/compute.go:CreateKeypair@v1.19.0: type ssh, Unikorn's own key.
		err = keypairs.Create(ctx, compute, keypairs.CreateOpts{Name: unikornKeypair, Type: "ssh", PublicKey: u.KeypairPublicKey}).Err
		if err != nil {
			t.Fatalf("creating the Unikorn keypair in %s: %v", region, err)
		}
	}

	u.ServerGroupID = u.ServerGroupIDs[Regions()[0]]

	return u
}

// grant assigns the roles names (by ID, as P/provider.go:roleNameToID resolves them: the first
// role of that name) on the identity's project to userID
// (P/provider.go:provisionProjectRoles; P/identity.go:CreateRoleAssignment@v1.19.0).
func (u UnikornIdentity) grant(t *testing.T, sc *gophercloud.ServiceClient, all []roles.Role, userID string, names ...string) {
	t.Helper()

	for _, name := range names {
		id := ""

		for _, r := range all {
			if r.Name == name {
				id = r.ID
				break
			}
		}

		if id == "" {
			t.Fatalf("no Keystone role %s", name)
		}

		if err := roles.Assign(context.Background(), sc, id, roles.AssignOpts{UserID: userID, ProjectID: u.ProjectID}).ExtractErr(); err != nil {
			t.Fatalf("granting %s on the Unikorn project %s to %s: %v", name, u.ProjectID, userID, err)
		}
	}
}

// Keystone authenticates as the identity's user with its password, in its project.
func (u UnikornIdentity) Keystone(t *testing.T) (*gophercloud.ServiceClient, error) {
	t.Helper()

	sess, err := u.userSession(t)
	if err != nil {
		return nil, err
	}

	return sess.Keystone()
}

// userSession is the identity user's session: its password, scoped to its project, as Unikorn
// logs in (P/provider.go:getProviderFromServicePrincipalData@v1.19.0). It is not cached and
// cannot re-authenticate: one per fixture call.
func (u UnikornIdentity) userSession(t *testing.T) (*cloud.Session, error) {
	t.Helper()

	sess, err := Client(t).UserSession(context.Background(), u.UserID, u.Password, u.ProjectID)
	if err != nil {
		return nil, fmt.Errorf("logging in as the Unikorn user %s with its password: %w", u.UserID, err)
	}

	return sess, nil
}

// session is userSession, failing the test when the user cannot log in.
func (u UnikornIdentity) session(t *testing.T) *cloud.Session {
	t.Helper()

	sess, err := u.userSession(t)
	if err != nil {
		t.Fatal(err)
	}

	return sess
}

// privileged is the region service user scoped to the identity's project, where it holds
// manager (P/provider.go:getPrivilegedProviderFromServicePrincipal@v1.19.0;
// P10/provider.go:getPriviliegedProviderFromServicePrincipal@v1.10.0).
func (u UnikornIdentity) privileged(t *testing.T) *cloud.Session {
	t.Helper()

	sess, err := Client(t).Privileged(context.Background(), u.ProjectID)
	if err != nil {
		t.Fatalf("the privileged scope of the Unikorn project %s: %v", u.ProjectID, err)
	}

	return sess
}

// unikornCompute is the Nova client of sess in region at Unikorn's microversion.
func unikornCompute(t *testing.T, sess *cloud.Session, region string) *gophercloud.ServiceClient {
	t.Helper()

	compute := clientOf(t, "Nova", region, sess.Compute) // a copy: its microversion is ours to set
	compute.Microversion = unikornComputeMicroversion

	return compute
}

// delete removes, as an admin, what a test left in the identity's project in every served
// region (load balancers, servers, Neutron objects: Neutron's default group included, which
// Unikorn leaves), then deletes the identity as Unikorn's DeleteIdentity does: keypair and
// server group, user, project (P/provider.go:DeleteIdentity@v1.19.0, 404 ignored). The
// application credential goes with the user.
func (u UnikornIdentity) delete(t *testing.T) {
	t.Helper()

	ctx := context.Background()
	note := func(what string, err error) {
		if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("cleaning up the Unikorn identity %s: %s: %v", u.ID, what, err)
		}
	}

	if u.ProjectID != "" {
		for _, region := range Regions() {
			note("leftovers in "+region, purgeProject(ctx, t, region, u.ProjectID))
		}
	}

	for region, id := range u.ServerGroupIDs {
		compute := AdminCompute(t, region)
		note("keypair in "+region, keypairs.Delete(ctx, compute, unikornKeypair, keypairs.DeleteOpts{UserID: u.UserID}).ExtractErr())
		note("server group in "+region, servergroups.Delete(ctx, compute, id).ExtractErr())
	}

	sc, _ := IdentityKeystone(t)

	if u.UserID != "" {
		note("user", users.Delete(ctx, sc, u.UserID).ExtractErr())
	}

	if u.ProjectID != "" {
		note("project", projects.Delete(ctx, sc, u.ProjectID).ExtractErr())
		Client(t).ForgetProject(u.ProjectID)
	}
}

// unikornResourceID is an ID as Unikorn's resources get it: a random UUIDv4 that starts with a
// letter (uni-core pkg/util/resource.go:GenerateResourceID, via conversion.NewObjectMetadata).
func unikornResourceID(t *testing.T) string {
	t.Helper()

	for {
		if id := uuid(t); id[0] >= 'a' {
			return id
		}
	}
}

// unikornDeterministicID is uni-core pkg/util/resource.go:GenerateDeterministicResourceID (at
// the core versions of v1.16.7 and v1.19.0): uuid5(namespace, name), re-hashed over the previous
// UUID's 16 bytes until it starts with a letter.
func unikornDeterministicID(namespace, name string) (string, error) {
	ns, err := parseUUID(namespace)
	if err != nil {
		return "", err
	}

	id := uuid5(ns, []byte(name))
	for formatUUID(id)[0] < 'a' {
		id = uuid5(ns, id[:])
	}

	return formatUUID(id), nil
}

// uuid5 is the RFC 9562 name-based UUID of name in namespace (SHA-1).
func uuid5(namespace [16]byte, name []byte) [16]byte {
	h := sha1.New() //nolint:gosec // see the import
	h.Write(namespace[:])
	h.Write(name)

	var id [16]byte

	copy(id[:], h.Sum(nil))
	id[6] = id[6]&0x0f | 0x50
	id[8] = id[8]&0x3f | 0x80

	return id
}

// parseUUID reads a UUID in its 36-character form.
func parseUUID(s string) ([16]byte, error) {
	var id [16]byte

	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(s) != 36 || len(b) != 16 {
		return id, fmt.Errorf("%q is not a UUID", s)
	}

	copy(id[:], b)

	return id, nil
}

// formatUUID writes id in its 36-character lower-case form.
func formatUUID(id [16]byte) string {
	h := hex.EncodeToString(id[:])

	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// uuid is a random UUIDv4, in lower case (k8s.io/apimachinery's uuid.NewUUID, which Unikorn uses
// for IDs and passwords).
func uuid(t *testing.T) string {
	t.Helper()

	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}

	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80

	return formatUUID(b)
}

// unikornPublicKey is a fresh ed25519 public key in authorized_keys form, as
// pkg/providers/util/util.go:GenerateSSHKeyPair@v1.10.0,v1.19.0 hands it to Nova
// (ssh.MarshalAuthorizedKey: type, base64 blob, newline; no comment).
func unikornPublicKey(t *testing.T) string {
	t.Helper()

	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	field := func(b []byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) //nolint:gosec // short fields
	}

	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(append(field([]byte("ssh-ed25519")), field(pub)...)) + "\n"
}

var (
	unikornRegionsMu sync.Mutex
	unikornRegions   = map[string]string{}
)

// unikornRegionID is the ID of the Unikorn Region resource that serves the OpenStack region
// region (the label regions.unikorn-cloud.org/region-id that servers' regionID metadata carries):
// a resource ID of its own, one per region for the test process.
func unikornRegionID(t *testing.T, region string) string {
	t.Helper()

	unikornRegionsMu.Lock()
	defer unikornRegionsMu.Unlock()

	if unikornRegions[region] == "" {
		unikornRegions[region] = unikornResourceID(t)
	}

	return unikornRegions[region]
}
