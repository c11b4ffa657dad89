package identity

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// applied is the state after Ensure: configuration from the plan, everything else from
// what Ensure found or made. Whatever Ensure did not reach is null.
func (r *identityResource) applied(ctx context.Context, plan identityModel, out *Identity, diags *diag.Diagnostics) identityModel {
	c := r.Cloud()
	s := plan

	r.found(&s, out, diags)

	if out.Quotas == nil {
		// Not set, or set in part and unreadable: unknown to the state, so that the next plan
		// sets them again (never the planned values, which the cloud may not hold).
		s.Quotas = quota.Null()
	}

	if out.Roles != nil {
		s.Roles = adapter.StringSet(cloud.SortedSet(out.Roles), s.Roles)
	}

	s.KeypairName = types.StringNull()
	s.ServerGroupID = types.StringNull()
	s.ServerGroupIDs = types.MapNull(types.StringType)

	if out.NovaChecked {
		if plan.SSHPublicKey.ValueString() != "" && everywhere(out, out.Keypairs, c.Regions()) {
			s.KeypairName = types.StringValue(naming.KeypairName)
		}

		if len(out.ServerGroups) > 0 {
			s.ServerGroupIDs = adapter.StringMap(out.ServerGroups, s.ServerGroupIDs)
			s.ServerGroupID = adapter.StringOrNull(out.ServerGroups[c.DefaultRegion()])
		}
	}

	if s.Roles.IsUnknown() || s.Quotas.IsUnknown() {
		diags.AddError("Unexpected unknown value", "roles and quotas must be known after apply. This is a bug in the provider.")
	}

	tflog.Debug(ctx, "Recorded the identity", map[string]any{
		"project_id": out.ProjectID, "user_id": out.UserID, "trust_id": out.TrustID,
		"application_credential_id": out.ApplicationCredentialID,
	})

	return s
}

// observed refreshes state from what Observe found, so that drift shows in the plan.
func (r *identityResource) observed(ctx context.Context, s *identityModel, out *Identity, diags *diag.Diagnostics) {
	c := r.Cloud()

	r.found(s, out, diags)

	if s.ForceDestroy.IsNull() {
		s.ForceDestroy = types.BoolValue(false)
	}

	if s.ApplicationCredential.IsNull() { // an import: whether the identity has one
		s.ApplicationCredential = types.BoolValue(out.ApplicationCredentialID != "")
	}

	switch {
	case out.UserID != "":
		s.Roles = adapter.StringSet(cloud.SortedSet(out.Roles), s.Roles)
	case s.Roles.IsNull():
		s.Roles = adapter.StringSet(DefaultRoles, s.Roles)
	}

	if !out.NovaChecked {
		// Without the trust nothing can be said about them; the next apply repairs the trust
		// and looks again. Null them only on import, where state knows nothing.
		if s.KeypairName.IsUnknown() {
			s.KeypairName = types.StringNull()
		}

		if s.ServerGroup.IsNull() {
			s.ServerGroupID = types.StringNull()
			s.ServerGroupIDs = types.MapNull(types.StringType)
		}

		return
	}

	regions := c.Regions()

	// Server group: any region's group tells the policy; all regions must have it (in an identity
	// made elsewhere, which is never repaired, what it holds is shown: none is none).
	s.ServerGroupID = types.StringNull()
	s.ServerGroupIDs = types.MapNull(types.StringType)

	switch {
	case len(out.ServerGroups) > 0:
		s.ServerGroup = serverGroupObject(out.ServerGroupPolicy, diags)
		s.ServerGroupIDs = adapter.StringMap(out.ServerGroups, s.ServerGroupIDs)

		if len(out.ServerGroups) == len(regions) || !out.MadeByProvider {
			s.ServerGroupID = adapter.StringOrNull(out.ServerGroups[c.DefaultRegion()])
		}
	case !out.MadeByProvider:
		s.ServerGroup = types.ObjectNull(serverGroupAttrTypes)
	}

	// Keypair: the key of the default region; all regions must have it (as above).
	s.KeypairName = types.StringNull()

	switch {
	case out.SSHPublicKey != "":
		if !sameKey(s.SSHPublicKey.ValueString(), out.SSHPublicKey) {
			s.SSHPublicKey = types.StringValue(out.SSHPublicKey)
		}

		if everywhere(out, out.Keypairs, regions) {
			s.KeypairName = types.StringValue(naming.KeypairName)
		}
	case !out.MadeByProvider:
		s.SSHPublicKey = types.StringNull()
	}

	tflog.Debug(ctx, "Refreshed the identity", map[string]any{"user_id": out.UserID, "trust_id": out.TrustID})
}

// everywhere tells whether the keypair is in every served region (in: the regions it is in), as
// an identity this provider made must have it (the next apply repairs a region without it); for
// an identity it did not make, which holds it where its maker made it (Unikorn: the one region of
// the identity), in any region.
func everywhere(out *Identity, in, regions []string) bool {
	if !out.MadeByProvider {
		return len(in) > 0
	}

	return len(in) == len(regions)
}

// found records in s what Ensure and Observe both report: the project, the user, the
// credential and trust (null where missing: without a user neither can exist), clouds_yaml and
// the quotas.
func (r *identityResource) found(s *identityModel, out *Identity, diags *diag.Diagnostics) {
	s.ID = types.StringValue(out.ProjectID)
	s.ProjectID = types.StringValue(out.ProjectID)
	s.Name = types.StringValue(out.Name)
	s.Description = types.StringValue(out.Description)
	s.OrganizationID = adapter.StringOrNull(out.OrganizationID)
	s.UnikornProjectID = adapter.StringOrNull(out.UnikornProject)
	s.MadeByProvider = types.BoolValue(out.MadeByProvider)
	s.UserID = adapter.StringOrNull(out.UserID)
	s.TrustID = adapter.StringOrNull(out.TrustID)
	s.ApplicationCredentialID = adapter.StringOrNull(out.ApplicationCredentialID)
	s.ApplicationCredentialSecret = adapter.StringOrNull(out.ApplicationCredentialSecret)
	s.CloudsYAML = r.cloudsYAML(out, diags)

	if out.ApplicationCredentialID != "" {
		s.ExpiresAt = keepTime(s.ExpiresAt, out.ExpiresAt)
	}

	if out.Quotas != nil {
		s.Quotas = quota.Value(out.Quotas)
	}
}

// cloudsYAML renders the clouds.yaml of a known secret; null otherwise.
func (r *identityResource) cloudsYAML(out *Identity, diags *diag.Diagnostics) types.String {
	if out.ApplicationCredentialID == "" || out.ApplicationCredentialSecret == "" {
		return types.StringNull()
	}

	c := r.Cloud()

	y, err := CloudsYAML(naming.IdentityProject(out.Name), c.AuthURL(), c.DefaultRegion(), c.EndpointInterface(),
		out.ApplicationCredentialID, out.ApplicationCredentialSecret)
	if err != nil {
		diags.AddError("Error rendering clouds_yaml", err.Error())
		return types.StringNull()
	}

	return types.StringValue(y)
}

// expandSpec turns the plan into a Spec.
func expandSpec(ctx context.Context, m identityModel) (Spec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := Spec{
		Name:           m.Name.ValueString(),
		Description:    m.Description.ValueString(),
		OrganizationID: m.OrganizationID.ValueString(),
		ProjectID:      m.UnikornProjectID.ValueString(),
		SSHPublicKey:   strings.TrimSpace(m.SSHPublicKey.ValueString()),

		NoApplicationCredential: m.ApplicationCredential.Equal(types.BoolValue(false)),
	}

	diags.Append(m.Roles.ElementsAs(ctx, &spec.Roles, false)...)
	spec.Roles = cloud.SortedSet(spec.Roles)

	spec.Quotas = quota.Expand(m.Quotas)
	if spec.Quotas == nil {
		spec.Quotas = quota.AllUnlimited()
	}

	var err error
	if spec.ExpiresAt, err = parseTime(m.ExpiresAt); err != nil {
		diags.AddAttributeError(path.Root("expires_at"), "Invalid expires_at", err.Error())
	}

	if !m.ServerGroup.IsNull() {
		var sg serverGroupModel

		diags.Append(m.ServerGroup.As(ctx, &sg, basetypes.ObjectAsOptions{})...)
		spec.ServerGroupPolicy = sg.Policy.ValueString()

		if spec.ServerGroupPolicy == "" {
			spec.ServerGroupPolicy = DefaultServerGroupPolicy
		}
	}

	return spec, diags
}

// recorded is what the state records of the identity's objects: where Observe, Ensure and
// Delete start from. After an import nothing is known of the server group and keypair, so
// they are looked for.
func (m identityModel) recorded(ctx context.Context) (Ref, diag.Diagnostics) {
	ref := Ref{
		ProjectID:                   m.ID.ValueString(),
		Name:                        m.Name.ValueString(),
		UserID:                      m.UserID.ValueString(),
		ApplicationCredentialID:     m.ApplicationCredentialID.ValueString(),
		ApplicationCredentialSecret: m.ApplicationCredentialSecret.ValueString(),
		TrustID:                     m.TrustID.ValueString(),
		CheckNova: m.imported() || !m.ServerGroup.IsNull() || !m.SSHPublicKey.IsNull() || !m.ServerGroupIDs.IsNull() ||
			!m.KeypairName.IsNull(),
	}

	// An import's state has no roles yet: none.
	diags := m.Roles.ElementsAs(ctx, &ref.Roles, true)

	return ref, diags
}

// expandPrior turns the state into what Ensure may keep.
func expandPrior(ctx context.Context, m identityModel) (Prior, diag.Diagnostics) {
	ref, diags := m.recorded(ctx)
	prior := Prior{Ref: ref, Quotas: quota.Expand(m.Quotas)}
	prior.ExpiresAt, _ = parseTime(m.ExpiresAt) // as recorded; an unreadable one is re-issued

	return prior, diags
}

// parseTime reads an RFC 3339 time; nil when v is null or unknown.
func parseTime(v types.String) (*time.Time, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}

	t, err := time.Parse(time.RFC3339, v.ValueString())
	if err != nil {
		return nil, err
	}

	return &t, nil
}

// keepTime keeps the configured spelling of a time when it denotes the instant found.
func keepTime(current types.String, found *time.Time) types.String {
	if found == nil {
		return types.StringNull()
	}

	if t, err := time.Parse(time.RFC3339, current.ValueString()); err == nil && t.Equal(*found) {
		return current
	}

	return types.StringValue(found.UTC().Format(time.RFC3339))
}

var serverGroupAttrTypes = map[string]attr.Type{"policy": types.StringType}

func serverGroupObject(policy string, diags *diag.Diagnostics) types.Object {
	o, d := types.ObjectValue(serverGroupAttrTypes, map[string]attr.Value{"policy": types.StringValue(policy)})
	diags.Append(d...)

	return o
}

// identityModel is the resource's state.
type identityModel struct {
	ApplicationCredential       types.Bool     `tfsdk:"application_credential"`
	ApplicationCredentialID     types.String   `tfsdk:"application_credential_id"`
	ApplicationCredentialSecret types.String   `tfsdk:"application_credential_secret"`
	CloudsYAML                  types.String   `tfsdk:"clouds_yaml"`
	Description                 types.String   `tfsdk:"description"`
	ExpiresAt                   types.String   `tfsdk:"expires_at"`
	ForceDestroy                types.Bool     `tfsdk:"force_destroy"`
	ID                          types.String   `tfsdk:"id"`
	KeypairName                 types.String   `tfsdk:"keypair_name"`
	MadeByProvider              types.Bool     `tfsdk:"made_by_provider"`
	Name                        types.String   `tfsdk:"name"`
	OrganizationID              types.String   `tfsdk:"organization_id"`
	ProjectID                   types.String   `tfsdk:"project_id"`
	Quotas                      types.Object   `tfsdk:"quotas"`
	Roles                       types.Set      `tfsdk:"roles"`
	ServerGroup                 types.Object   `tfsdk:"server_group"`
	ServerGroupID               types.String   `tfsdk:"server_group_id"`
	ServerGroupIDs              types.Map      `tfsdk:"server_group_ids"`
	SSHPublicKey                types.String   `tfsdk:"ssh_public_key"`
	Timeouts                    timeouts.Value `tfsdk:"timeouts"`
	TrustID                     types.String   `tfsdk:"trust_id"`
	UnikornProjectID            types.String   `tfsdk:"unikorn_project_id"`
	UserID                      types.String   `tfsdk:"user_id"`
}

// imported tells whether the state is an import's, which knows only `id` and `name`
// (project_id is recorded by every apply).
func (m identityModel) imported() bool {
	return m.ProjectID.IsNull()
}

// serverGroupModel is the `server_group` object.
type serverGroupModel struct {
	Policy types.String `tfsdk:"policy"`
}
