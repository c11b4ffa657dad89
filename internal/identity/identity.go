// Package identity owns the Unikorn identity: the Keystone project and user that a tenant's
// resources live in, made in the provider's managed domain (DESIGN.md §1, §4, §5).
//
// An identity is, in the order they are made: the project `unikorn-identity-<name>` with its
// organization / project tags; the service user's role grants on it (`manager` plus the
// identity's roles, which the privileged scope uses); quotas in every served region; the user
// `unikorn-identity-<name>` with a random password that lives only for the apply; the user's
// role grants; its application credential; the Keystone trust that lets the service user act
// as that user (the identity scope of internal/cloud); and, optionally, a Nova server group
// and a keypair made through that trust in every served region.
//
// The core holds no Terraform types: [Service.Ensure] (ensure.go) converges an identity and is
// safe to re-run after a crash at any point (the project and user carry the identity's creation
// mark from their create request on, and the project its completion mark from the create's last
// step: a create adopts only what an interrupted create of an identity left, and refuses
// anything else of its name), [Service.Observe] (observe.go) re-reads every object, and
// [Service.Delete] (delete.go) removes them in order. The steps against each API live in
// keystone.go and nova.go, what acting as the identity's user takes in asuser.go, the quotas in
// internal/quota and the check for tenant objects left in the project in internal/leftovers
// (both shared with unikorn_project); resource.go adapts the core to terraform-plugin-framework.
package identity

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Role names as identities and the provider block speak of them. The provider's `roles`
// argument maps each to the name of a Keystone role.
const (
	RoleMember             = "member"
	RoleLoadBalancerMember = "load-balancer_member"
	RoleManager            = "manager"
)

// KnownRoles are the role names an identity may be given.
var KnownRoles = []string{RoleMember, RoleLoadBalancerMember, RoleManager}

// DefaultRoles are the roles of an identity that names none (as Unikorn's).
var DefaultRoles = []string{RoleMember, RoleLoadBalancerMember}

// NamePattern is what an identity's name may look like.
var NamePattern = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// DefaultServerGroupPolicy is the policy of a server group that names none (as Unikorn's).
const DefaultServerGroupPolicy = "soft-anti-affinity"

// ServerGroupPolicies are the Nova server group policies (microversion 2.64 and later).
var ServerGroupPolicies = []string{"affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"}

// Config is the provider-wide configuration of identities: the Keystone name of each role,
// and a cache of role IDs shared by every identity of a run. It is safe for concurrent use.
type Config struct {
	keystone map[string]string // role name → Keystone role name

	mu      sync.Mutex
	roleIDs map[string]string // Keystone role name → ID

	// users serializes, per identity user, what resets its password and acts with it (asuser.go).
	users userLocks
}

// NewConfig maps role names onto Keystone role names; a role left out keeps its own name.
func NewConfig(keystoneNames map[string]string) *Config {
	c := &Config{keystone: map[string]string{}, roleIDs: map[string]string{}}

	for _, role := range KnownRoles {
		c.keystone[role] = role
		if name := keystoneNames[role]; name != "" {
			c.keystone[role] = name
		}
	}

	return c
}

// KeystoneRole is the Keystone name of role.
func (c *Config) KeystoneRole(role string) string {
	if name, ok := c.keystone[role]; ok {
		return name
	}

	return role
}

// roleOf maps a Keystone role name back onto a role name.
func (c *Config) roleOf(keystoneName string) (string, bool) {
	for _, role := range KnownRoles {
		if c.keystone[role] == keystoneName {
			return role, true
		}
	}

	return "", false
}

// roleIDsFor resolves role names to Keystone role IDs, listing Keystone's roles once per run
// (and again when a name is not in the cache).
func (c *Config) roleIDsFor(ctx context.Context, sc *gophercloud.ServiceClient, names []string) (map[string]string, error) {
	keystoneNames := make([]string, len(names))
	for i, name := range names {
		keystoneNames[i] = c.KeystoneRole(name)
	}

	ids, err := c.KeystoneRoleIDs(ctx, sc, keystoneNames)

	var unknown *UnknownRolesError
	if errors.As(err, &unknown) {
		quoted := make([]string, len(unknown.Names))
		for i, n := range unknown.Names {
			quoted[i] = fmt.Sprintf("%q", n)
		}

		return nil, fmt.Errorf("keystone has no role named %s: create it, or map the role onto an existing one "+
			"with the provider's roles argument", strings.Join(quoted, ", "))
	}

	if err != nil {
		return nil, err
	}

	out := make(map[string]string, len(names))
	for _, name := range names {
		out[name] = ids[c.KeystoneRole(name)]
	}

	return out, nil
}

// UnknownRolesError names the Keystone role names that are no global role of Keystone.
type UnknownRolesError struct {
	Names []string
}

func (e *UnknownRolesError) Error() string {
	return fmt.Sprintf("keystone has no global role named %s", strings.Join(e.Names, ", "))
}

// KeystoneRoleIDs resolves Keystone role names to the IDs of global roles from the run's one
// listing of Keystone's roles, which it lists again when a name is missing from it (a role made
// since). Names that are no global role are an *UnknownRolesError. Identities and the role
// bindings of unikorn_project (and their plan-time check) share the listing.
func (c *Config) KeystoneRoleIDs(ctx context.Context, sc *gophercloud.ServiceClient, keystoneNames []string) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if missing := c.missingRoleIDs(keystoneNames); len(missing) > 0 {
		all, err := cloud.ListAll(ctx, roles.List(sc, roles.ListOpts{}), roles.ExtractRoles, "Keystone roles")
		if err != nil {
			return nil, err
		}

		for _, r := range all {
			if r.DomainID == "" { // global roles only: domain-specific roles cannot be granted on projects of other domains
				c.roleIDs[r.Name] = r.ID
			}
		}

		if missing = c.missingRoleIDs(keystoneNames); len(missing) > 0 {
			return nil, &UnknownRolesError{Names: missing}
		}
	}

	out := make(map[string]string, len(keystoneNames))
	for _, name := range keystoneNames {
		out[name] = c.roleIDs[name]
	}

	return out, nil
}

// missingRoleIDs are the Keystone role names of names that the cache lacks, sorted, once each.
func (c *Config) missingRoleIDs(keystoneNames []string) []string {
	var missing []string

	for _, name := range keystoneNames {
		if _, ok := c.roleIDs[name]; !ok {
			missing = append(missing, name)
		}
	}

	return cloud.SortedSet(missing)
}

// ServiceRoles are the Keystone names of the roles the service user holds in every project it
// works in (an identity's with the default roles, a unikorn_project's): manager, member and
// load-balancer_member, as the provider's roles argument maps them.
func (c *Config) ServiceRoles() []string {
	names := serviceUserRoles(nil)
	out := make([]string, len(names))

	for i, name := range names {
		out[i] = c.KeystoneRole(name)
	}

	return out
}

// Spec is what an identity should be.
type Spec struct {
	// Name is the user-given name; the cloud objects are called unikorn-identity-<name>.
	Name        string
	Description string
	// OrganizationID and ProjectID are the Unikorn organization and project the identity
	// belongs to: the project tags organization=<id> and project=<id>, each when set.
	OrganizationID string
	ProjectID      string
	// Roles of the identity's user (and delegated by its credential and trust).
	Roles  []string
	Quotas quota.Set
	// ExpiresAt ends the application credential; nil: never.
	ExpiresAt *time.Time
	// NoApplicationCredential keeps no application credential of the identity (and deletes
	// the one there is): its secret is then nowhere in Terraform's state
	// (unikorn_identity_credential issues short-lived ones instead).
	NoApplicationCredential bool
	// ServerGroupPolicy asks for the server group; "": none.
	ServerGroupPolicy string
	// SSHPublicKey asks for the keypair; "": none.
	SSHPublicKey string
}

// Prior is what an earlier apply recorded (Terraform state), for Ensure to decide what can be
// kept. The zero Prior means nothing is known (create, or a re-run after a crash).
type Prior struct {
	// Ref holds the recorded IDs. A credential is kept only if both its ID and secret are
	// known (the secret cannot be read back from Keystone); Roles are those granted by the
	// earlier apply (roles no longer wanted are revoked); CheckNova is set when the earlier
	// apply made a server group or keypair, so that Ensure looks at Nova even when the spec
	// wants neither (to delete them).
	Ref
	// Quotas last applied or read; nil: apply them.
	Quotas quota.Set
	// ExpiresAt of the credential that was issued.
	ExpiresAt *time.Time
}

// Identity is an identity as found in the cloud.
type Identity struct {
	ProjectID      string
	Name           string // the user-given name (project name without its prefix)
	Description    string
	OrganizationID string
	UnikornProject string // the Unikorn project ID of the project=<id> tag
	// MadeByProvider says that the project carries the creation mark of an identity: this
	// provider made it. An identity it did not make (Unikorn's, a person's) is adopted
	// read-only (foreign.go).
	MadeByProvider bool

	UserID string // "" when the user is missing
	// Roles of the user on the project, as role names (roles outside the mapping are left out).
	Roles []string

	ApplicationCredentialID string // "" when missing
	// ApplicationCredentialSecret is known only when this run issued the credential, or the
	// Prior carried it.
	ApplicationCredentialSecret string
	ExpiresAt                   *time.Time

	TrustID string // "" when missing

	// Quotas as found (see Service.Observe for how regions are merged); nil when not read.
	Quotas quota.Set

	// Notices are what the user should be told (adoptions, re-finds by name).
	Notices []Notice

	// NovaChecked is false when the server group and keypair could not be looked at (no
	// trust, so no identity scope): the fields below are then empty and mean nothing.
	NovaChecked bool
	// ServerGroups maps each served region where the server group exists to its ID.
	ServerGroups      map[string]string
	ServerGroupPolicy string // of the default region's group
	// Keypairs lists the served regions where the keypair exists with the wanted key.
	Keypairs     []string
	SSHPublicKey string // of the default region's keypair
}

// Notice is something an operation found or did that the user should see before anything
// acts on it (a Terraform warning): an object adopted, or re-found by name.
type Notice struct {
	Summary, Detail string
}

// createdAtKey is the extra attribute of the creation time (naming.KeystoneCreatedAt).
const createdAtKey = naming.KeystoneCreatedAt

// Type is the resource type of an identity: the creation mark of the Keystone project and user
// it makes (naming.MadeFor). The project is its primary object: it gets the completion mark as
// the last step of the identity's create.
const Type = "unikorn_identity"

// createdExtra is the extra attributes of a Keystone object created now for an identity: its
// creation time and the identity's creation mark.
func createdExtra() map[string]any {
	extra := naming.MadeFor(Type).Extra()
	extra[createdAtKey] = time.Now().UTC().Format(time.RFC3339)

	return extra
}

// projectClaim is the project p of an identity as the ownership rule sees it (cloud.Adopt).
func projectClaim(p *projects.Project) cloud.Existing {
	return cloud.Existing{
		Type: Type, Kind: "Keystone project", Name: p.Name, ID: p.ID, Where: "in the managed domain",
		ImportID: p.ID, Mark: naming.MarkOf(p.Extra),
	}
}

// userClaim is the user u of the identity name, a part of it, as the ownership rule sees it.
func userClaim(u *users.User, name string) cloud.Existing {
	return cloud.Existing{
		Type: Type, Kind: "Keystone user", Name: u.Name, ID: u.ID, Where: "in the managed domain",
		Part: fmt.Sprintf("the unikorn_identity %q", name), Mark: naming.MarkOf(u.Extra),
	}
}

// madeForIdentity tells whether a Keystone object with the extra attributes extra was made by a
// create of an identity (finished or not): the mark every part of an identity carries.
func madeForIdentity(extra map[string]any) bool {
	return naming.MarkOf(extra).Kind == Type
}

// created says when a Keystone object with the extra attributes extra was created.
func created(extra map[string]any) string {
	if s, ok := extra[createdAtKey].(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return "created " + t.UTC().Format(time.RFC3339)
		}
	}

	return "creation time not recorded"
}

// adoptedNotice announces an object that a create found by its name and took as its own: what
// an interrupted create of this identity left (the project and user carry its creation mark;
// the trust, server group and keypair are found inside that project).
func adoptedNotice(kind, name, id, when string) Notice {
	return Notice{
		Summary: "Adopted an existing " + kind,
		Detail: fmt.Sprintf("The %s %q (%s, %s) already existed and was adopted as this identity's: an earlier create "+
			"of this identity was interrupted after making it.", kind, name, id, when),
	}
}

// Service runs identity operations against the cloud.
type Service struct {
	cloud  *cloud.Client
	config *Config
}

// NewService binds the core to the provider's client and identity configuration.
func NewService(c *cloud.Client, cfg *Config) *Service {
	if cfg == nil {
		cfg = NewConfig(nil)
	}

	return &Service{cloud: c, config: cfg}
}

// manager is the manager scope's Keystone client and the managed domain's ID: the opening of
// every operation on identities.
func (s *Service) manager(ctx context.Context) (*gophercloud.ServiceClient, string, error) {
	domainID, sc, err := s.cloud.ManagerKeystone(ctx)

	return sc, domainID, err
}

// credentials is the Keystone client of the calls on the identity user's application
// credentials and on trusts. Keystone's scope checks (on by default from 2023.1) refuse them to
// a domain-scoped token whatever its roles, so they are made with a project-scoped admin token:
// the service user's own project under the cloud-admin model (and before the grants were
// read), the identity's project (where the domain's admin is inherited) under the inherited one.
func (s *Service) credentials(ctx context.Context, projectID string) (*gophercloud.ServiceClient, error) {
	if s.cloud.GrantModel() != cloud.InheritedAdmin {
		return s.cloud.Base().Keystone()
	}

	sess, err := s.cloud.Privileged(ctx, projectID)
	if err != nil {
		return nil, err
	}

	return sess.Keystone()
}

// tenants binds the identity's project in every served region, in the order served, with
// scope: what the per-region steps (quotas, server group and keypair, leftovers) act on.
func (s *Service) tenants(ctx context.Context, projectID string, scope cloud.Scope) ([]*cloud.Tenant, error) {
	out := make([]*cloud.Tenant, 0, len(s.cloud.Regions()))

	for _, region := range s.cloud.Regions() {
		t, err := s.cloud.Tenant(ctx, projectID, region, scope)
		if err != nil {
			return nil, err
		}

		out = append(out, t)
	}

	return out, nil
}

// revocationGrace is how long to wait after a password change or a revoked role before
// authenticating again: Keystone revokes tokens at second precision, so a token issued in the
// same second as the change would be revoked too.
const revocationGrace = 1100 * time.Millisecond

// randomPassword is 256 random bits, URL-safe base64.
func randomPassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a password: %w", err)
	}

	return base64.RawURLEncoding.EncodeToString(b), nil
}

// serviceUserRoles are the service user's roles in an identity's project: the identity's roles,
// and always manager and the member roles (member, load-balancer_member), whatever the
// identity's roles. The privileged scope reads, refreshes and deletes every tenant object of
// the identity with them (Octavia refuses even to list the project's load balancers without
// load-balancer_member), and a cloud-admin service user holds nothing else there: they are
// never revoked when the identity's roles change (only the identity user's grants follow the
// configuration).
func serviceUserRoles(roles []string) []string {
	return cloud.SortedSet(append(slices.Clone(roles), RoleManager, RoleMember, RoleLoadBalancerMember))
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}

	return a.Equal(*b)
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}

	return &t
}

// sameKey compares two public keys by type and key material, ignoring the comment.
func sameKey(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) < 2 || len(fb) < 2 {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}

	return fa[0] == fb[0] && fa[1] == fb[1]
}

// errNotFound reports a 404.
func errNotFound(err error) bool {
	return err != nil && gophercloud.ResponseCodeIs(err, 404)
}

// pointers are pointers to the elements of all.
func pointers[T any](all []T) []*T {
	out := make([]*T, len(all))
	for i := range all {
		out[i] = &all[i]
	}

	return out
}

// present is the outcome of a read of one object: the object, nil when it does not exist
// (404), else err wrapped as what (a format with args) says.
func present[T any](v *T, err error, what string, args ...any) (*T, error) {
	switch {
	case errNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", fmt.Sprintf(what, args...), err)
	}

	return v, nil
}
