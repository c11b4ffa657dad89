package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// unikorn_identity_credential: the ephemeral resource that opens a short-lived application
// credential of an identity (ephemeral.go) and deletes it again when Terraform closes it.

var (
	_ ephemeral.EphemeralResourceWithConfigure = (*credentialResource)(nil)
	_ ephemeral.EphemeralResourceWithClose     = (*credentialResource)(nil)
)

const (
	// summaryOpenCredential and summaryCloseCredential are the summaries of its failures.
	summaryOpenCredential  = "Error opening an identity credential"
	summaryCloseCredential = "Error deleting an identity credential"

	// DefaultCredentialTTL is how long a short-lived credential lives unless told otherwise.
	DefaultCredentialTTL = time.Hour
	// minCredentialTTL is the shortest ttl accepted: enough for a provider to authenticate.
	minCredentialTTL = time.Minute

	// privateCredentialKey is the key of what Close needs in the ephemeral resource's private
	// data (never the secret).
	privateCredentialKey = "credential"
)

// NewCredentialResource is the constructor the provider lists: unikorn_identity_credential.
func NewCredentialResource() ephemeral.EphemeralResource {
	return &credentialResource{EphemeralResourceBase: adapter.NewEphemeralResourceBase[meta](
		adapter.Kind{TypeName: "identity_credential", Noun: "identity credential"})}
}

type credentialResource struct {
	adapter.EphemeralResourceBase[meta]
}

// credentialModel is the ephemeral resource's configuration and result.
type credentialModel struct {
	CloudsYAML types.String `tfsdk:"clouds_yaml"`
	ExpiresAt  types.String `tfsdk:"expires_at"`
	ID         types.String `tfsdk:"id"`
	IdentityID types.String `tfsdk:"identity_id"`
	Name       types.String `tfsdk:"name"`
	Secret     types.String `tfsdk:"secret"`
	TTL        types.String `tfsdk:"ttl"`
	UserID     types.String `tfsdk:"user_id"`
}

// credentialRef is what Close needs to delete the credential.
type credentialRef struct {
	ID        string `json:"id"`
	UserID    string `json:"user_id"`
	ProjectID string `json:"project_id"`
}

// ttlCheck checks a Go duration of at least minCredentialTTL.
var ttlCheck = adapter.StringCheck("duration", "a duration of at least 1m, e.g. 30m or 2h", func(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q must be a duration such as 30m or 2h: %w", s, err)
	}

	if d < minCredentialTTL {
		return fmt.Errorf("%q is shorter than the shortest ttl, %s", s, minCredentialTTL)
	}

	return nil
})

func (r *credentialResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A short-lived application credential of an identity, issued when Terraform opens this " +
			"ephemeral resource and deleted when it closes it (Terraform 1.10 or later, OpenTofu 1.11 or later): use it in " +
			"a provider block (e.g. an `openstack` provider acting as the identity) or in write-only arguments, so that no " +
			"long-lived secret of the identity needs to be in the state (set `application_credential = false` on the " +
			"`unikorn_identity`). The credential is restricted, delegates the identity user's roles on its project and " +
			"expires after `ttl` even if Terraform never closes it. Keystone lets only the user itself issue a credential, " +
			"so each open resets the identity user's password to a random one used once and forgotten, as an apply does " +
			"(opens of one identity in a run, and an apply of it, take turns; a reset by another run meanwhile is met by " +
			"resetting it again); the identity's own credential and trust are untouched. An identity this provider did not " +
			"make (`made_by_provider = false`: Unikorn's, or made by hand) is refused at open, before anything is written: " +
			"Unikorn logs in as its user with the password it stored, which a reset would break. Use the credential its " +
			"maker hands out instead (Unikorn's `clouds.yaml`).",
		Attributes: map[string]schema.Attribute{
			"clouds_yaml": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "A ready `clouds.yaml` with one cloud named `unikorn-identity-<name>` that authenticates " +
					"with this credential (`auth_type: v3applicationcredential`) in the provider's default region.",
			},
			"expires_at": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "When the credential expires, in RFC 3339.",
			},
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the application credential.",
			},
			"identity_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "ID of the `unikorn_identity` whose user the credential authenticates as.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"name": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Name of the application credential: `unikorn-identity-<name>" +
					naming.EphemeralCredentialInfix + "<random>`.",
			},
			"secret": schema.StringAttribute{
				Computed:            true,
				Sensitive:           true,
				MarkdownDescription: "Secret of the application credential.",
			},
			"ttl": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How long the credential lives, as a duration (`30m`, `2h`); at least `1m`. Default `" +
					"1h`. Keystone refuses it once expired, even while Terraform still runs.",
				Validators: []validator.String{ttlCheck},
			},
			"user_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the identity's Keystone user, which the credential belongs to.",
			},
		},
	}
}

// Open issues the credential.
func (r *credentialResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	adapter.OpenResult(ctx, &r.EphemeralResourceBase, summaryOpenCredential, req, resp,
		func(ctx context.Context, m *credentialModel) {
			ttl := DefaultCredentialTTL
			if !m.TTL.IsNull() {
				ttl, _ = time.ParseDuration(m.TTL.ValueString()) // checked by ttlCheck
			}

			svc := NewService(r.Cloud(), r.Meta.IdentityConfig())

			cred, err := svc.IssueCredential(ctx, m.IdentityID.ValueString(), ttl, time.Now())
			if err != nil {
				resp.Diagnostics.AddError(summaryOpenCredential, fmt.Sprintf("identity %s: %s", m.IdentityID.ValueString(), err))
				return
			}

			ref, err := json.Marshal(credentialRef{ID: cred.ID, UserID: cred.UserID, ProjectID: cred.ProjectID})
			if err == nil {
				resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateCredentialKey, ref)...)
			}

			c := r.Cloud()

			y, yerr := CloudsYAML(naming.IdentityProject(cred.Identity), c.AuthURL(), c.DefaultRegion(), c.EndpointInterface(),
				cred.ID, cred.Secret)
			if yerr != nil {
				resp.Diagnostics.AddError(summaryOpenCredential, yerr.Error())
			}

			m.CloudsYAML = types.StringValue(y)
			m.ExpiresAt = types.StringValue(cred.ExpiresAt.Format(time.RFC3339))
			m.ID = types.StringValue(cred.ID)
			m.Name = types.StringValue(cred.Name)
			m.Secret = types.StringValue(cred.Secret)
			m.UserID = types.StringValue(cred.UserID)
		})
}

// Close deletes the credential.
func (r *credentialResource) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	raw, diags := req.Private.GetKey(ctx, privateCredentialKey)
	resp.Diagnostics.Append(diags...)

	var ref credentialRef
	if raw == nil || json.Unmarshal(raw, &ref) != nil || ref.ID == "" {
		return // Open issued nothing
	}

	if !r.Configured() {
		resp.Diagnostics.AddError(summaryCloseCredential, "The provider is not configured.")
		return
	}

	svc := NewService(r.Cloud(), r.Meta.IdentityConfig())
	if err := svc.RevokeCredential(ctx, ref.ProjectID, ref.UserID, ref.ID); err != nil {
		resp.Diagnostics.AddError(summaryCloseCredential, fmt.Sprintf(
			"application credential %s of user %s (project %s): %s; it expires by itself", ref.ID, ref.UserID, ref.ProjectID, err))
	}
}
