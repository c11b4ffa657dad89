package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// An identity this provider did not make: what the provider does in it, and what it never does.
//
// An identity whose Keystone project carries no creation mark of a unikorn_identity
// (madeForIdentity) was made by Unikorn's region service, by a person or by another tool. A create
// refuses it (cloud.Adopt); once imported, it is adopted read-only for everything that belongs to
// its user:
//
//   - The user's password is never reset: Unikorn logs in with the password it stored, for every
//     server, port, floating IP, load balancer, keypair and server group call. So nothing that only
//     the user can make is made there: no trust, no application credential, no keypair and no
//     server group (this provider makes all four as the user).
//   - Its application credential (Unikorn's `unikorn-identity-<id>`, "IaaS lifecycle management",
//     handed out as clouds.yaml) is kept as it is: its ID is recorded, its secret is unknown
//     (Keystone shows a secret only to the create). Only `application_credential = false` deletes
//     it.
//   - Its keypair and server group are read in every served region (the keypair, another user's,
//     in the admin scope), so that drift shows, and never written.
//   - The project's description and tags, the quotas the configuration sets, and the user's roles
//     converge as configured. Quotas left out of the configuration stay as the maker set them
//     (Unikorn sets its own again whenever it reconciles the identity). A role is taken from the
//     user only when the credential may go too: Keystone deletes a user's application credentials
//     on a project when one of its role assignments there is removed.
//   - The service user grants itself its roles on the project (cloud/acting.go), and the regions
//     the identity is applied in are recorded on the project (internal/leftovers): extra
//     attributes Unikorn never reads.
//
// Whatever the configuration asks for beyond that is refused before anything is written, at plan
// time (plan.go, from the state) and again by Ensure (from the cloud), with a *ForeignError that
// names the attribute asking for it, why, and the way out.

// ForeignError refuses a change to an identity this provider did not make that would break its
// maker (Unikorn): anything that needs the identity user's password, or that would take away what
// Unikorn made and never makes again.
type ForeignError struct {
	// Attribute is the configuration attribute that asks for the change ("ssh_public_key").
	Attribute string
	// Identity names the identity (subject).
	Identity string
	// Change says what the configuration asks for; Why, what it would break; WayOut, what to do.
	Change, Why, WayOut string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("identity %s was not made by this provider (its Keystone project carries no creation mark: Unikorn's "+
		"region service made it, or a person): %s would %s. %s", e.Identity, e.Change, e.Why, e.WayOut)
}

// Held is what an identity this provider did not make holds of what only its user can write,
// and its user's roles: what the configuration is checked against (foreignRefusals).
type Held struct {
	// Roles are the user's roles on the project (role names of the mapping).
	Roles []string
	// CredentialID is the identity's application credential; "" when it has none.
	CredentialID string
	ExpiresAt    *time.Time
	// ServerGroupPolicy is the policy of its server group; "" when it has none.
	ServerGroupPolicy string
	// SSHPublicKey is the key of its user's keypair; "" when it has none.
	SSHPublicKey string
}

// heldOf is what out, an identity as found, holds.
func heldOf(out *Identity) Held {
	return Held{
		Roles: out.Roles, CredentialID: out.ApplicationCredentialID, ExpiresAt: out.ExpiresAt,
		ServerGroupPolicy: out.ServerGroupPolicy, SSHPublicKey: out.SSHPublicKey,
	}
}

// needsTheUser is the reason shared by every write that only the identity's user can make.
const needsTheUser = "need the identity's user: this provider makes it only as that user, after resetting the user's " +
	"password, and Unikorn logs in with the password it stored"

// handBack is the way out of keeping an identity as it is and managing it no longer.
const handBack = "or hand the identity back: a removed block with lifecycle { destroy = false }"

// keypairRefusal checks want, the public key the configuration asks for ("" for none), against
// held, the key of the keypair the identity's user holds ("" for none).
func keypairRefusal(identity, held, want string) *ForeignError {
	e := &ForeignError{Attribute: "ssh_public_key", Identity: identity}

	switch {
	case held == "" && want == "":
		return nil
	case held != "" && want != "" && sameKey(held, want):
		return nil
	case held == "":
		e.Change = fmt.Sprintf("making the keypair %q of its user", naming.KeypairName)
		e.Why = needsTheUser
		e.WayOut = "Leave ssh_public_key unset: the identity's user holds no keypair. Give servers a key of your own " +
			"through their user_data."

		return e
	case want == "":
		e.Change = fmt.Sprintf("deleting the keypair %q of its user (ssh_public_key is unset)", naming.KeypairName)
	default:
		e.Change = fmt.Sprintf("replacing the keypair %q of its user with another public key", naming.KeypairName)
	}

	e.Why = needsTheUser + "; Unikorn also holds the private key of the keypair it made, and launches servers with it"
	e.WayOut = fmt.Sprintf("Set ssh_public_key to the key the identity holds (%s), %s. Give servers a key of your own "+
		"through their user_data.", shortKey(held), handBack)

	return e
}

// shortKey names a public key in messages: its type and the end of its key material.
func shortKey(key string) string {
	f := strings.Fields(key)
	if len(f) < 2 {
		return fmt.Sprintf("%q", key)
	}

	material := f[1]
	if len(material) > 16 {
		material = "…" + material[len(material)-16:]
	}

	return fmt.Sprintf("%q", f[0]+" "+material)
}

// serverGroupRefusal checks want, the policy the configuration asks for ("" for no group),
// against held, the policy of the identity's server group ("" for none).
func serverGroupRefusal(identity, name, held, want string) *ForeignError {
	e := &ForeignError{Attribute: "server_group", Identity: identity}
	group := naming.IdentityServerGroup(name)

	switch {
	case held == want:
		return nil
	case held == "":
		e.Change = fmt.Sprintf("making the server group %q", group)
		e.Why = needsTheUser
		e.WayOut = "Leave server_group unset: the identity holds no server group of its name."

		return e
	case want == "":
		e.Change = fmt.Sprintf("deleting its server group %q (server_group is unset)", group)
	default:
		e.Change = fmt.Sprintf("changing the policy of its server group %q from %s to %s (Nova cannot change a policy: the "+
			"group would be replaced)", group, held, want)
	}

	e.Why = needsTheUser + "; Unikorn also records the group's ID (its API shows it as the identity's server group) and " +
		"deletes the group by it with the identity"
	e.WayOut = fmt.Sprintf("Set server_group = { policy = %q } as the identity holds it, %s.", held, handBack)

	return e
}

// credentialRefusal checks what the configuration asks of the identity's application credential
// (want: keep one; expires: its expiry, nil for never) against what it holds.
func credentialRefusal(identity string, held Held, want bool, expires *time.Time) *ForeignError {
	switch {
	case !want:
		return nil // dropping it is explicit, and takes no password (a warning says what goes)
	case held.CredentialID == "":
		return &ForeignError{
			Attribute: "application_credential", Identity: identity,
			Change: "issuing an application credential of its user",
			Why:    "need the identity's user: Keystone lets only the user itself issue one, which takes resetting the user's password, and Unikorn logs in with the password it stored",
			WayOut: "Set application_credential = false: the identity holds no application credential of its name.",
		}
	case !sameTime(held.ExpiresAt, expires):
		way := fmt.Sprintf("Remove expires_at: its application credential %s never expires.", held.CredentialID)
		if held.ExpiresAt != nil {
			way = fmt.Sprintf("Set expires_at = %q, when its application credential %s expires.",
				held.ExpiresAt.UTC().Format(time.RFC3339), held.CredentialID)
		}

		return &ForeignError{
			Attribute: "expires_at", Identity: identity,
			Change: fmt.Sprintf("re-issuing its application credential %s with another expiry", held.CredentialID),
			Why: "need the identity's user: Keystone lets only the user itself issue a credential, which takes resetting " +
				"the user's password, and Unikorn logs in with the password it stored",
			WayOut: way,
		}
	}

	return nil
}

// rolesRefusal refuses to take a role from the identity's user while its application credential
// is to be kept (keepCredential): Keystone deletes a user's application credentials on a project
// when one of its role assignments there is removed.
func rolesRefusal(identity string, held Held, want []string, keepCredential bool) *ForeignError {
	if !keepCredential || held.CredentialID == "" {
		return nil
	}

	var dropped []string

	for _, r := range held.Roles {
		if !slices.Contains(want, r) {
			dropped = append(dropped, r)
		}
	}

	if len(dropped) == 0 {
		return nil
	}

	return &ForeignError{
		Attribute: "roles", Identity: identity,
		Change: fmt.Sprintf("revoking %s from its user", strings.Join(cloud.SortedSet(dropped), ", ")),
		Why: fmt.Sprintf("delete its application credential %s: Keystone deletes a user's application credentials on a "+
			"project when one of its role assignments there is removed, and Unikorn, which hands that credential out as "+
			"clouds.yaml, never makes it again", held.CredentialID),
		WayOut: fmt.Sprintf("Keep the roles %s, or set application_credential = false to let the credential go with them.",
			strings.Join(cloud.SortedSet(held.Roles), ", ")),
	}
}

// foreignRefusals is every refusal of spec for an identity that holds held (nil when none).
func foreignRefusals(identity string, spec Spec, held Held) error {
	var errs []error

	for _, e := range []*ForeignError{
		keypairRefusal(identity, held.SSHPublicKey, spec.SSHPublicKey),
		serverGroupRefusal(identity, spec.Name, held.ServerGroupPolicy, spec.ServerGroupPolicy),
		credentialRefusal(identity, held, !spec.NoApplicationCredential, spec.ExpiresAt),
		rolesRefusal(identity, held, spec.Roles, !spec.NoApplicationCredential),
	} {
		if e != nil {
			errs = append(errs, e)
		}
	}

	return errors.Join(errs...)
}

// ForeignCredentialError refuses an ephemeral credential of an identity this provider did not
// make: issuing it would reset the user's password.
type ForeignCredentialError struct {
	Identity string
}

func (e *ForeignCredentialError) Error() string {
	return fmt.Sprintf("identity %s was not made by this provider (its Keystone project carries no creation mark: Unikorn's "+
		"region service made it, or a person): opening a credential of it would reset its user's password (Keystone lets "+
		"only the user itself issue one), and Unikorn logs in with the password it stored, so it would break Unikorn. Use the "+
		"identity's own application credential (Unikorn hands it out as clouds.yaml), or open credentials of an identity "+
		"this provider made", e.Identity)
}

// subjectOf names the identity name whose project is projectID in messages:
// "unikorn-identity-<name> (project P)".
func subjectOf(name, projectID string) string {
	if projectID == "" {
		return naming.IdentityProject(name)
	}

	return fmt.Sprintf("%s (project %s)", naming.IdentityProject(name), projectID)
}

// holding is what the identity of project p, which this provider did not make, holds, as its user
// userID: the user's roles, its application credential (with the secret ref carries when it is
// the same) and trust, its server group and keypair. Nothing is written but the service user's
// own grants on the project.
func (s *Service) holding(ctx context.Context, p *projects.Project, userID string, ref Ref) (*Identity, error) {
	name, err := identityName(p)
	if err != nil {
		return nil, err
	}

	sc, _, err := s.manager(ctx)
	if err != nil {
		return nil, err
	}

	h := &Identity{ProjectID: p.ID, Name: name, UserID: userID}

	if h.Roles, err = s.userRoles(ctx, sc, userID, p.ID); err != nil {
		return nil, err
	}

	creds, err := s.credentials(ctx, p.ID)
	if err != nil {
		return nil, err
	}

	if err := s.observeCredentials(ctx, creds, ref, h); err != nil {
		return nil, err
	}

	if err := s.observeForeign(ctx, h); err != nil {
		return nil, err
	}

	return h, nil
}

// observeForeign reads what an identity this provider did not make holds in Nova, in every served
// region, without acting as its user: its server group in the privileged scope (a server group
// belongs to the project), its user's keypair in the admin scope (Nova shows another user's
// keypair to admin only). Nothing is written but the service user's own grants on the project
// (cloud/acting.go).
func (s *Service) observeForeign(ctx context.Context, out *Identity) error {
	ts, err := s.tenants(ctx, out.ProjectID, cloud.Privileged)
	if err != nil {
		return err
	}

	out.NovaChecked = true
	out.ServerGroups = map[string]string{}
	out.Keypairs = nil
	out.ServerGroupPolicy, out.SSHPublicKey = "", ""

	for _, t := range ts {
		compute, err := t.Compute()
		if err != nil {
			return err
		}

		if err := out.noteServerGroup(ctx, compute, t.Region(), false); err != nil {
			return err
		}

		if out.UserID == "" {
			continue
		}

		kp, err := s.userKeypair(ctx, t, out.UserID)
		if err != nil {
			return fmt.Errorf("keypair in region %s: %w", t.Region(), err)
		}

		out.noteKeypair(t.Region(), kp)
	}

	tflog.Debug(ctx, "Read the server group and keypair of an identity this provider did not make", map[string]any{
		"server_groups": len(out.ServerGroups), "keypairs": len(out.Keypairs),
	})

	return nil
}

// userKeypair reads the keypair of the identity's user userID in t's region, in the admin scope;
// nil when there is none.
func (s *Service) userKeypair(ctx context.Context, t *cloud.Tenant, userID string) (*keypairs.KeyPair, error) {
	admin, err := t.As(ctx, cloud.Admin)
	if err != nil {
		return nil, err
	}

	compute, err := admin.Compute()
	if err != nil {
		return nil, err
	}

	kp, err := keypairs.Get(ctx, compute, naming.KeypairName, keypairs.GetOpts{UserID: userID}).Extract()

	kp, err = present(kp, err, "reading the keypair %q of user %s", naming.KeypairName, userID)

	return kp, s.cloud.AdminRefusal("Nova", "reading the keypair of user "+userID, err)
}
