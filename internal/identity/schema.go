package identity

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

func (r *identityResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Unikorn identity: the Keystone project and user, in the provider's managed domain, that a tenant's " +
			"networks, security groups, servers and load balancers live in. It makes, in this order: the project " +
			"`unikorn-identity-<name>`; the service user's grants on it (`manager`, `member` and `load-balancer_member`, " +
			"which it keeps whatever the identity's `roles`: it reads and deletes the identity's objects with them); quotas in " +
			"every region the provider serves; the user `unikorn-identity-<name>` with a random password that is used during " +
			"the apply only and never stored; the user's role grants; its application credential (exported as `clouds_yaml`); " +
			"the Keystone trust through which the provider acts as that user; and, optionally, a Nova server group and keypair " +
			"in every served region, owned by that user.\n\n" +
			"**Adoption.** The project and the user are made with a mark saying that this provider began them for a " +
			"`unikorn_identity`, and the project gets a second mark, that the create finished, as the very last step. A create " +
			"that finds a project or user of its name adopts them only when they are what an interrupted create of an identity " +
			"left (the first mark without the second): the apply then finishes that identity (grants, quotas, a new password " +
			"for the user, credential, trust, server group and keypair found in its project), without a twin. Anything else " +
			"of the name is refused before anything is changed, with an error that names it and the way out: an identity " +
			"of another configuration (finished), one made by Unikorn or by hand (no mark), or a project made for another " +
			"resource type. To take such an identity over, import it: an import is the explicit takeover, and never marks " +
			"the identity. A refresh that finds the recorded project gone takes a project of the same name only under the same " +
			"rule; otherwise the identity is gone and the plan shows a create (which refuses the other one). A missing " +
			"credential or trust is re-created on the next apply without replacing the project.\n\n" +
			"**Destroy** refuses while the project still holds servers, ports, floating IPs, networks, routers, security " +
			"groups or load balancers, unless `force_destroy` is set. It looks in every region the identity was applied in " +
			"(recorded on the project as `unikorn_terraform_regions`), also in one the provider's `regions` no longer lists, " +
			"as long as the Keystone catalog still has it.\n\n" +
			"**Identities made elsewhere.** An identity whose project carries no mark of this provider " +
			"(`made_by_provider = false`: made by Unikorn's region service, or by hand) is refused by a create and taken " +
			"over only by an import, which adopts it read-only for what belongs to its user. The provider never resets the " +
			"user's password (Unikorn logs in with the password it stored), never makes a trust or an application credential " +
			"in it, and never writes its keypair `" + naming.KeypairName + "` or its server group; it reads them in every " +
			"region (drift shows in the plan). Its application credential (Unikorn's `unikorn-identity-<UUID>`) is kept and " +
			"recorded by its ID, without its secret, which nobody can read back. The project's description and tags, the " +
			"user's roles and the quotas the configuration sets converge as configured; quotas left out stay as they are. " +
			"What would need the user's password, or take away what its maker made and never makes again, is refused at plan " +
			"time on the attribute that asks for it, with the way out: another or no `ssh_public_key`, another or no " +
			"`server_group` policy, `expires_at`, an `application_credential` it lacks, a role revoked while its credential is " +
			"kept (Keystone deletes a user's application credentials on a project with any of its role assignments there). " +
			"Only `application_credential = false` deletes its credential (the plan warns). A destroy deletes it from the " +
			"cloud (the plan warns); a `removed` block with `destroy = false` hands it back instead. The second example " +
			"below imports an identity Unikorn made, and hands it back.\n\n" +
			"**Import** by Keystone project ID or by `name`. The application credential's secret cannot be read back from " +
			"Keystone, so after an import `application_credential_secret` and `clouds_yaml` are empty. In an identity this " +
			"provider made, the next apply issues a fresh application credential (the old one is deleted); one made elsewhere " +
			"keeps its own, and both stay empty.",
		Attributes: map[string]schema.Attribute{
			"application_credential": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
				MarkdownDescription: "Keep an application credential of the identity and export it (`application_credential_secret`, " +
					"`clouds_yaml`). Default `true`. With `false` the identity has no credential of its own (one there is is " +
					"deleted), so no secret of it is in the plan or the state: open a short-lived one with the ephemeral " +
					"resource `unikorn_identity_credential` where it is needed (the preferred pattern on Terraform 1.10 and " +
					"later). `expires_at` is then not allowed. In an identity made elsewhere (`made_by_provider = false`), `true` " +
					"keeps the credential its maker made (Unikorn's `unikorn-identity-<UUID>`), whose secret is not known, and " +
					"`false` deletes it.",
			},
			"application_credential_id": adapter.IDAttribute("ID of the identity's application credential `unikorn-identity-<name>`."),
			"application_credential_secret": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "Secret of the application credential. Known only to the apply that issued the credential: it " +
					"cannot be imported. Null in an identity made elsewhere (its maker holds the secret), and so is `clouds_yaml`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"clouds_yaml": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "A ready `clouds.yaml` with one cloud named `unikorn-identity-<name>` that authenticates with the " +
					"application credential (`auth_type: v3applicationcredential`) against the provider's Keystone, in the " +
					"provider's default region.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "Description of the Keystone project. Updated in place.",
			},
			"expires_at": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "When the application credential expires, in RFC 3339 (e.g. `2030-01-01T00:00:00Z`); it must " +
					"be in the future when set or changed. Changing it issues a new credential. Default: never.",
				Validators: []validator.String{rfc3339Check},
			},
			"force_destroy": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Delete the tenant objects still in the identity's project (load balancers, servers, floating " +
					"IPs, routers, ports, networks, security groups, in every region the identity was applied in, served or no " +
					"longer served) when the identity is destroyed. Without it, destroy fails and lists them. Default `false`.",
			},
			"id": adapter.IDAttribute("The Keystone project ID. Tenant resources refer to the identity by it (`identity_id`)."),
			"keypair_name": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Name of the Nova keypair made from `ssh_public_key` in every served region " +
					"(`" + naming.KeypairName + "`); null without a key.",
			},
			"made_by_provider": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "Whether this provider made the identity: its Keystone project carries the provider's creation " +
					"mark. `false` for an identity made elsewhere (by Unikorn's region service, or by hand) and imported: it is " +
					"then adopted read-only for what belongs to its user (see *Identities made elsewhere* above).",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"name": nameAttribute(),
			"organization_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Unikorn organization the identity belongs to: the project tag `organization=<id>`. Updated in place.",
				Validators:          []validator.String{tagValueCheck},
			},
			"project_id": adapter.IDAttribute("The Keystone project ID (the same as `id`)."),
			"quotas":     quotasAttribute(),
			"roles": schema.SetAttribute{
				Optional:    true,
				Computed:    true,
				ElementType: types.StringType,
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType,
					[]attr.Value{types.StringValue(RoleMember), types.StringValue(RoleLoadBalancerMember)})),
				MarkdownDescription: "Roles of the identity's user on its project, delegated by its application credential and trust " +
					"(and granted to the service user too, which keeps `manager` and the member roles whatever these are). Any " +
					"of `" + strings.Join(KnownRoles, "`, `") + "`, each mapped onto a Keystone role by the provider's `roles` " +
					"argument. Default `[\"member\", \"load-balancer_member\"]`. Changing them regrants the user's roles, then " +
					"issues a new credential and trust.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf(KnownRoles...)),
				},
			},
			"server_group": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Make the Nova server group `unikorn-identity-<name>` in every served region, as the identity's " +
					"user. Changing the policy replaces only the server group, and only while it holds no server (Nova cannot " +
					"change a group's policy, and servers whose group is deleted would be replaced): the plan refuses a change " +
					"of the policy, or dropping the group, while servers are in it, and names them. In an identity made elsewhere, " +
					"the policy of the group it holds, read-only: another policy, or none, is refused at plan time.",
				Attributes: map[string]schema.Attribute{
					"policy": schema.StringAttribute{
						Optional: true,
						Computed: true,
						Default:  stringdefault.StaticString(DefaultServerGroupPolicy),
						MarkdownDescription: "Nova policy of the group: one of `" + strings.Join(ServerGroupPolicies, "`, `") +
							"`. Default `" + DefaultServerGroupPolicy + "`.",
						Validators: []validator.String{stringvalidator.OneOf(ServerGroupPolicies...)},
					},
				},
			},
			"server_group_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the server group in the provider's default region; null without `server_group`.",
			},
			"server_group_ids": schema.MapAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "ID of the server group in each served region, by region name; null without `server_group`.",
			},
			"ssh_public_key": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "An OpenSSH public key, imported as the Nova keypair `" + naming.KeypairName + "` of the " +
					"identity's user in every served region. The provider never generates private keys. Changing it replaces " +
					"only the keypair. In an identity made elsewhere, the key of the keypair its user holds, read-only: another " +
					"key, or none, is refused at plan time (Unikorn holds the private key of its keypair).",
				Validators: []validator.String{sshPublicKeyCheck},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"trust_id": adapter.IDAttribute("ID of the Keystone trust from the identity's user to the provider's service user on the " +
				"project (impersonation on, the identity's roles), through which the provider acts as the identity's user. Null in " +
				"an identity made elsewhere, where no trust is made."),
			"unikorn_project_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Unikorn project the identity belongs to: the project tag `project=<id>`. Updated in place.",
				Validators:          []validator.String{tagValueCheck},
			},
			"user_id": adapter.IDAttribute("ID of the Keystone user `unikorn-identity-<name>`."),
		},
	}
}

// quotasAttribute is the `quotas` of internal/quota, and what they are in an identity made
// elsewhere.
func quotasAttribute() schema.SingleNestedAttribute {
	a := quota.Attribute("the identity's")
	a.MarkdownDescription += " In an identity made elsewhere (`made_by_provider = false`), quotas left out stay as its maker " +
		"set them."

	return a
}

// nameAttribute is the identity's `name`: the kit's name fragment, with Unikorn's narrower rule
// for identity names in place of the general one (which every name it accepts passes; see
// TestNamePattern).
func nameAttribute() schema.StringAttribute {
	a := adapter.NameAttribute(naming.KindIdentity,
		"Name of the identity, 1 to 40 characters of `a-z`, `0-9` and `-`. The Keystone project, user, "+
			"application credential and server group are called `unikorn-identity-<name>`.")
	a.Validators = []validator.String{nameCheck}

	return a
}

// nameCheck is Unikorn's rule for identity names (NamePattern).
var nameCheck = adapter.StringCheck("name", "1 to 40 characters of lower-case letters, digits and hyphens", func(s string) error {
	if !NamePattern.MatchString(s) {
		return fmt.Errorf("must be 1 to 40 characters of lower-case letters, digits and hyphens, not %q", s)
	}

	return nil
})

// maxTagValue is the longest value of a project tag this provider writes (Keystone allows
// tags of up to 255 characters, "organization=" included).
const maxTagValue = 200

// tagValueCheck is Keystone's rule for the values of the project tags organization=<id> and
// project=<id>.
var tagValueCheck = adapter.StringCheck("tag value",
	fmt.Sprintf(`1 to %d characters without "/", "," or white space (Keystone tag rules)`, maxTagValue), func(s string) error {
		switch {
		case s == "" || utf8.RuneCountInString(s) > maxTagValue:
			return fmt.Errorf("must be 1 to %d characters long, not %d", maxTagValue, utf8.RuneCountInString(s))
		case strings.ContainsAny(s, "/,") || strings.IndexFunc(s, unicode.IsSpace) >= 0:
			return fmt.Errorf(`must not contain "/", "," or white space (Keystone tag rules), as %q does`, s)
		}

		return nil
	})

// rfc3339Check checks an RFC 3339 time.
var rfc3339Check = adapter.StringCheck("RFC 3339 time", "an RFC 3339 time, e.g. 2030-01-01T00:00:00Z", func(s string) error {
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return fmt.Errorf("%q must be an RFC 3339 time, e.g. 2030-01-01T00:00:00Z: %w", s, err)
	}

	return nil
})

// sshPublicKeyPattern is an OpenSSH public key line.
var sshPublicKeyPattern = regexp.MustCompile(
	`^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\n]*)?\s*$`)

// sshPublicKeyCheck checks one OpenSSH public key line (never a private key).
var sshPublicKeyCheck = adapter.StringCheck("SSH public key", "one OpenSSH public key line", func(s string) error {
	if !sshPublicKeyPattern.MatchString(s) {
		return fmt.Errorf(`must be one OpenSSH public key line, e.g. "ssh-ed25519 AAAA... comment"`)
	}

	return nil
})
