package identity

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*identityResource)(nil)
	_ resource.ResourceWithImportState = (*identityResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*identityResource)(nil)
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
	IdentityConfig() *Config
}

// Default timeouts of the operations.
const (
	defaultCreateTimeout = 10 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 10 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)

// maxQuota is the largest quota the services accept (a 32-bit signed integer).
const maxQuota = 1<<31 - 1

// NamePattern is what an identity's name may look like.
var NamePattern = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// sshPublicKeyPattern is an OpenSSH public key line.
var sshPublicKeyPattern = regexp.MustCompile(
	`^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\n]*)?\s*$`)

// NewResource is the constructor the provider lists.
func NewResource() resource.Resource {
	return &identityResource{}
}

type identityResource struct {
	meta meta
}

func (r *identityResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_identity"
}

func (r *identityResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Unikorn identity: the Keystone project and user, in the provider's managed domain, that a tenant's " +
			"networks, security groups, servers and load balancers live in. It makes, in this order: the project " +
			"`unikorn-identity-<name>`; the service user's `manager` (and the identity's roles) grant on it; quotas in every " +
			"region the provider serves; the user `unikorn-identity-<name>` with a random password that is used during the " +
			"apply only and never stored; the user's role grants; its application credential (exported as `clouds_yaml`); the " +
			"Keystone trust through which the provider acts as that user; and, optionally, a Nova server group and keypair in " +
			"every served region, owned by that user.\n\n" +
			"Every step first looks its object up by its deterministic name and adopts it, so an apply that was interrupted at " +
			"any point finishes the same identity when run again, without a twin. A missing credential or trust is re-created " +
			"on the next apply without replacing the project. Deleting an identity refuses while its project still holds " +
			"servers, ports, floating IPs, networks, routers, security groups or load balancers in any served region, unless " +
			"`force_destroy` is set.\n\n" +
			"**Import** by Keystone project ID or by `name`. The application credential's secret cannot be read back from " +
			"Keystone, so after an import `application_credential_secret` and `clouds_yaml` are empty and the next apply " +
			"issues a fresh application credential (the old one is deleted).",
		Attributes: map[string]schema.Attribute{
			"application_credential_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the identity's application credential `unikorn-identity-<name>`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"application_credential_secret": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "Secret of the application credential. Known only to the apply that issued the credential: it " +
					"cannot be imported.",
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
				Validators: []validator.String{rfc3339Validator{}},
			},
			"force_destroy": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Delete the tenant objects still in the identity's project (load balancers, servers, floating " +
					"IPs, routers, ports, networks, security groups, in every served region) when the identity is destroyed. " +
					"Without it, destroy fails and lists them. Default `false`.",
			},
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The Keystone project ID. Tenant resources refer to the identity by it (`identity_id`).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"keypair_name": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Name of the Nova keypair made from `ssh_public_key` in every served region " +
					"(`" + naming.KeypairName + "`); null without a key.",
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the identity, 1 to 40 characters of `a-z`, `0-9` and `-`. The Keystone project, user, " +
					"application credential and server group are called `unikorn-identity-<name>`. Changing it replaces the identity.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{stringvalidator.RegexMatches(NamePattern,
					"must be 1 to 40 characters of lower-case letters, digits and hyphens")},
			},
			"organization_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Unikorn organization the identity belongs to: the project tag `organization=<id>`. Updated in place.",
				Validators:          tagIDValidators(),
			},
			"project_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The Keystone project ID (the same as `id`).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"quotas": quotasAttribute(),
			"roles": schema.SetAttribute{
				Optional:    true,
				Computed:    true,
				ElementType: types.StringType,
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType,
					[]attr.Value{types.StringValue(RoleMember), types.StringValue(RoleLoadBalancerMember)})),
				MarkdownDescription: "Roles of the identity's user on its project, delegated by its application credential and trust " +
					"(and granted to the service user too). Any of `" + strings.Join(KnownRoles, "`, `") + "`, each mapped onto a " +
					"Keystone role by the provider's `roles` argument. Default `[\"member\", \"load-balancer_member\"]`. Changing " +
					"them regrants the roles, then issues a new credential and trust.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf(KnownRoles...)),
				},
			},
			"server_group": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Make the Nova server group `unikorn-identity-<name>` in every served region, as the identity's " +
					"user. Changing the policy replaces only the server group.",
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
					"only the keypair.",
				Validators: []validator.String{stringvalidator.RegexMatches(sshPublicKeyPattern,
					"must be one OpenSSH public key line, e.g. \"ssh-ed25519 AAAA... comment\"")},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true}),
			"trust_id": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "ID of the Keystone trust from the identity's user to the provider's service user on the " +
					"project (impersonation on, the identity's roles), through which the provider acts as the identity's user.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"unikorn_project_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Unikorn project the identity belongs to: the project tag `project=<id>`. Updated in place.",
				Validators:          tagIDValidators(),
			},
			"user_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Keystone user `unikorn-identity-<name>`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *identityResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		r.meta = m
	}
}

func (r *identityResource) service() *Service {
	return NewService(r.meta.Cloud(), r.meta.IdentityConfig())
}

func (r *identityResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan identityModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "identity", spec.Name)
	before := r.meta.Cloud().RequestCount()

	out, err := r.service().Ensure(ctx, spec, Prior{})

	tflog.Debug(ctx, "Created the identity", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out.ProjectID == "" {
		resp.Diagnostics.AddError("Error creating identity", fmt.Sprintf("%s: %s", naming.IdentityProject(spec.Name), err))
		return
	}

	// The project exists: record it whatever happened next, so that it is never lost (a
	// failed create leaves a tainted resource).
	state := r.applied(ctx, plan, out, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)

	if err != nil {
		resp.Diagnostics.AddError("Error creating identity",
			fmt.Sprintf("%s (project %s): %s", naming.IdentityProject(spec.Name), out.ProjectID, err))
	}
}

func (r *identityResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state identityModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Read(ctx, defaultReadTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ref := Ref{
		ProjectID:                   state.ID.ValueString(),
		Name:                        state.Name.ValueString(),
		UserID:                      state.UserID.ValueString(),
		ApplicationCredentialID:     state.ApplicationCredentialID.ValueString(),
		ApplicationCredentialSecret: state.ApplicationCredentialSecret.ValueString(),
	}

	if state.Name.IsNull() { // import: the ID is a project ID or a name
		if name := strings.TrimPrefix(ref.ProjectID, naming.IdentityPrefix); NamePattern.MatchString(name) {
			ref.Name = name
		}
	}

	ref.CheckNova = state.Name.IsNull() || !state.ServerGroup.IsNull() || !state.SSHPublicKey.IsNull()

	want := expandQuotas(state.Quotas)

	ctx = tflog.SetField(ctx, "project_id", ref.ProjectID)
	before := r.meta.Cloud().RequestCount()

	out, err := r.service().Observe(ctx, ref, want)
	if err != nil {
		resp.Diagnostics.AddError("Error reading identity", fmt.Sprintf("project %s: %s", ref.ProjectID, err))
		return
	}

	tflog.Debug(ctx, "Read the identity", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		tflog.Warn(ctx, "The identity's project is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	r.observed(ctx, &state, out, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *identityResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state identityModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSpec(ctx, plan)
	resp.Diagnostics.Append(diags...)

	prior, diags := expandPrior(ctx, state)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ctx = tflog.SetField(ctx, "identity", spec.Name)
	ctx = tflog.SetField(ctx, "project_id", prior.ProjectID)

	out, err := r.service().Ensure(ctx, spec, prior)
	if out.ProjectID == "" {
		resp.Diagnostics.AddError("Error updating identity", fmt.Sprintf("project %s: %s", prior.ProjectID, err))
		return
	}

	newState := r.applied(ctx, plan, out, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &newState)...)

	if err != nil {
		resp.Diagnostics.AddError("Error updating identity", fmt.Sprintf("project %s: %s", out.ProjectID, err))
	}
}

func (r *identityResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state identityModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ref := Ref{ProjectID: state.ID.ValueString(), Name: state.Name.ValueString(), UserID: state.UserID.ValueString()}
	resp.Diagnostics.Append(state.Roles.ElementsAs(ctx, &ref.Roles, false)...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "project_id", ref.ProjectID)

	err := r.service().Delete(ctx, ref, state.ForceDestroy.ValueBool())

	var leftovers *LeftoversError

	switch {
	case errors.As(err, &leftovers):
		resp.Diagnostics.AddError("Identity still holds tenant objects", err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Error deleting identity", fmt.Sprintf("project %s: %s", ref.ProjectID, err))
	}
}

func (r *identityResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// ModifyPlan marks what the next apply will re-issue, so that a repair shows in the plan: a
// missing user, credential or trust, a role change (new credential and trust), a new expiry,
// a missing or re-policied server group, a missing keypair. It also checks that a new
// expires_at lies in the future.
func (r *identityResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}

	var plan identityModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	var state *identityModel

	if !req.State.Raw.IsNull() {
		state = &identityModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)

		if resp.Diagnostics.HasError() {
			return
		}
	}

	if !plan.ExpiresAt.IsNull() && !plan.ExpiresAt.IsUnknown() && (state == nil || !plan.ExpiresAt.Equal(state.ExpiresAt)) {
		if t, err := time.Parse(time.RFC3339, plan.ExpiresAt.ValueString()); err == nil && !t.After(time.Now()) {
			resp.Diagnostics.AddAttributeError(path.Root("expires_at"), "expires_at is in the past",
				fmt.Sprintf("The application credential cannot expire at %s: that is not in the future.", plan.ExpiresAt.ValueString()))

			return
		}
	}

	switch {
	case plan.SSHPublicKey.IsUnknown():
		plan.KeypairName = types.StringUnknown()
	case plan.SSHPublicKey.IsNull():
		plan.KeypairName = types.StringNull()
	default:
		plan.KeypairName = types.StringValue(naming.KeypairName)
	}

	switch {
	case plan.ServerGroup.IsNull():
		plan.ServerGroupID = types.StringNull()
		plan.ServerGroupIDs = types.MapNull(types.StringType)
	case state == nil || state.ServerGroupID.IsNull() || !plan.ServerGroup.Equal(state.ServerGroup):
		plan.ServerGroupID = types.StringUnknown()
		plan.ServerGroupIDs = types.MapUnknown(types.StringType)
	default:
		plan.ServerGroupID = state.ServerGroupID
		plan.ServerGroupIDs = state.ServerGroupIDs
	}

	if state != nil {
		userMissing := state.UserID.IsNull()
		rolesChanged := !plan.Roles.Equal(state.Roles)

		if userMissing {
			plan.UserID = types.StringUnknown()
		}

		if userMissing || rolesChanged || !plan.ExpiresAt.Equal(state.ExpiresAt) ||
			state.ApplicationCredentialID.IsNull() || state.ApplicationCredentialSecret.IsNull() {
			plan.ApplicationCredentialID = types.StringUnknown()
			plan.ApplicationCredentialSecret = types.StringUnknown()
			plan.CloudsYAML = types.StringUnknown()
		}

		if userMissing || rolesChanged || state.TrustID.IsNull() {
			plan.TrustID = types.StringUnknown()
		}
	}

	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// applied is the state after Ensure: configuration from the plan, everything else from
// what Ensure found or made. Whatever Ensure did not reach is null.
func (r *identityResource) applied(ctx context.Context, plan identityModel, out *Identity, diags *diag.Diagnostics) identityModel {
	c := r.meta.Cloud()
	s := plan

	s.ID = types.StringValue(out.ProjectID)
	s.ProjectID = types.StringValue(out.ProjectID)
	s.Description = types.StringValue(out.Description)
	s.OrganizationID = optionalString(out.OrganizationID)
	s.UnikornProjectID = optionalString(out.UnikornProject)
	s.UserID = optionalString(out.UserID)
	s.TrustID = optionalString(out.TrustID)
	s.ApplicationCredentialID = optionalString(out.ApplicationCredentialID)
	s.ApplicationCredentialSecret = optionalString(out.ApplicationCredentialSecret)
	s.CloudsYAML = r.cloudsYAML(out, diags)

	if out.ApplicationCredentialID != "" {
		s.ExpiresAt = keepTime(plan.ExpiresAt, out.ExpiresAt)
	}

	if out.Roles != nil {
		s.Roles = stringSet(out.Roles, diags)
	}

	if out.Quotas != nil {
		s.Quotas = flattenQuotas(out.Quotas, diags)
	}

	s.KeypairName = types.StringNull()
	s.ServerGroupID = types.StringNull()
	s.ServerGroupIDs = types.MapNull(types.StringType)

	if out.NovaChecked {
		if plan.SSHPublicKey.ValueString() != "" && len(out.Keypairs) == len(c.Regions()) {
			s.KeypairName = types.StringValue(naming.KeypairName)
		}

		if len(out.ServerGroups) > 0 {
			s.ServerGroupIDs = stringMap(out.ServerGroups, diags)
			s.ServerGroupID = optionalString(out.ServerGroups[c.DefaultRegion()])
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
	c := r.meta.Cloud()

	s.ID = types.StringValue(out.ProjectID)
	s.ProjectID = types.StringValue(out.ProjectID)
	s.Name = types.StringValue(out.Name)
	s.Description = types.StringValue(out.Description)
	s.OrganizationID = optionalString(out.OrganizationID)
	s.UnikornProjectID = optionalString(out.UnikornProject)
	s.UserID = optionalString(out.UserID)

	if s.ForceDestroy.IsNull() {
		s.ForceDestroy = types.BoolValue(false)
	}

	if out.UserID != "" {
		s.Roles = stringSet(out.Roles, diags)
		s.TrustID = optionalString(out.TrustID)
		s.ApplicationCredentialID = optionalString(out.ApplicationCredentialID)
		s.ApplicationCredentialSecret = optionalString(out.ApplicationCredentialSecret)

		if out.ApplicationCredentialID != "" {
			s.ExpiresAt = keepTime(s.ExpiresAt, out.ExpiresAt)
		}
	} else {
		s.TrustID = types.StringNull()
		s.ApplicationCredentialID = types.StringNull()
		s.ApplicationCredentialSecret = types.StringNull()

		if s.Roles.IsNull() {
			s.Roles = stringSet(DefaultRoles, diags)
		}
	}

	s.CloudsYAML = r.cloudsYAML(out, diags)

	if out.Quotas != nil {
		s.Quotas = flattenQuotas(out.Quotas, diags)
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

	// Server group: any region's group tells the policy; all regions must have it.
	s.ServerGroupID = types.StringNull()
	s.ServerGroupIDs = types.MapNull(types.StringType)

	if len(out.ServerGroups) > 0 {
		s.ServerGroup = serverGroupObject(out.ServerGroupPolicy, diags)
		s.ServerGroupIDs = stringMap(out.ServerGroups, diags)

		if len(out.ServerGroups) == len(regions) {
			s.ServerGroupID = optionalString(out.ServerGroups[c.DefaultRegion()])
		}
	}

	// Keypair: the key of the default region; all regions must have it.
	s.KeypairName = types.StringNull()

	if out.SSHPublicKey != "" {
		if !sameKey(s.SSHPublicKey.ValueString(), out.SSHPublicKey) {
			s.SSHPublicKey = types.StringValue(out.SSHPublicKey)
		}

		if len(out.Keypairs) == len(regions) {
			s.KeypairName = types.StringValue(naming.KeypairName)
		}
	}

	tflog.Debug(ctx, "Refreshed the identity", map[string]any{"user_id": out.UserID, "trust_id": out.TrustID})
}

// cloudsYAML renders the clouds.yaml of a known secret; null otherwise.
func (r *identityResource) cloudsYAML(out *Identity, diags *diag.Diagnostics) types.String {
	if out.ApplicationCredentialID == "" || out.ApplicationCredentialSecret == "" {
		return types.StringNull()
	}

	c := r.meta.Cloud()

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
	}

	diags.Append(m.Roles.ElementsAs(ctx, &spec.Roles, false)...)
	spec.Roles = sortedUnique(spec.Roles)

	spec.Quotas = expandQuotas(m.Quotas)
	if spec.Quotas == nil {
		spec.Quotas = UnlimitedQuotas()
	}

	if !m.ExpiresAt.IsNull() {
		t, err := time.Parse(time.RFC3339, m.ExpiresAt.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("expires_at"), "Invalid expires_at", err.Error())
		}

		spec.ExpiresAt = &t
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

// expandPrior turns the state into what Ensure may keep.
func expandPrior(ctx context.Context, m identityModel) (Prior, diag.Diagnostics) {
	var diags diag.Diagnostics

	prior := Prior{
		ProjectID:                   m.ID.ValueString(),
		UserID:                      m.UserID.ValueString(),
		ApplicationCredentialID:     m.ApplicationCredentialID.ValueString(),
		ApplicationCredentialSecret: m.ApplicationCredentialSecret.ValueString(),
		TrustID:                     m.TrustID.ValueString(),
	}

	diags.Append(m.Roles.ElementsAs(ctx, &prior.Roles, false)...)

	prior.NovaObjects = !m.ServerGroup.IsNull() || !m.SSHPublicKey.IsNull() || !m.ServerGroupIDs.IsNull() || !m.KeypairName.IsNull()

	prior.Quotas = expandQuotas(m.Quotas)

	if !m.ExpiresAt.IsNull() {
		if t, err := time.Parse(time.RFC3339, m.ExpiresAt.ValueString()); err == nil {
			prior.ExpiresAt = &t
		}
	}

	return prior, diags
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

// quotasAttribute is the `quotas` attribute: one nested object per service, each quota
// defaulting to unlimited.
func quotasAttribute() schema.SingleNestedAttribute {
	groups := map[string]schema.Attribute{}

	for _, g := range QuotaGroups {
		fields := map[string]schema.Attribute{}

		for _, f := range g.Fields {
			fields[f.Key] = schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(Unlimited),
				MarkdownDescription: f.Description + " `-1` (the default) means unlimited.",
				Validators:          []validator.Int64{int64validator.Between(Unlimited, maxQuota)},
			}
		}

		groups[g.Name] = schema.SingleNestedAttribute{
			Optional:            true,
			Computed:            true,
			Default:             objectdefault.StaticValue(quotaGroupValue(g, nil)),
			MarkdownDescription: g.Description + " Every quota left out is unlimited.",
			Attributes:          fields,
		}
	}

	return schema.SingleNestedAttribute{
		Optional: true,
		Computed: true,
		Default:  objectdefault.StaticValue(quotasValue(UnlimitedQuotas())),
		MarkdownDescription: "Quotas of the identity's project, set in every region the provider serves. Every quota left " +
			"out is unlimited (`-1`), as in Unikorn. Updated in place.",
		Attributes: groups,
	}
}

func quotaGroupType(g QuotaGroup) types.ObjectType {
	attrs := map[string]attr.Type{}
	for _, f := range g.Fields {
		attrs[f.Key] = types.Int64Type
	}

	return types.ObjectType{AttrTypes: attrs}
}

func quotasType() types.ObjectType {
	attrs := map[string]attr.Type{}
	for _, g := range QuotaGroups {
		attrs[g.Name] = quotaGroupType(g)
	}

	return types.ObjectType{AttrTypes: attrs}
}

// quotaGroupValue is one group's object; quotas missing from values are unlimited.
func quotaGroupValue(g QuotaGroup, values map[string]int64) types.Object {
	attrs := map[string]attr.Value{}

	for _, f := range g.Fields {
		v, ok := values[f.Key]
		if !ok {
			v = Unlimited
		}

		attrs[f.Key] = types.Int64Value(v)
	}

	return types.ObjectValueMust(quotaGroupType(g).AttrTypes, attrs)
}

func quotasValue(q Quotas) types.Object {
	attrs := map[string]attr.Value{}
	for _, g := range QuotaGroups {
		attrs[g.Name] = quotaGroupValue(g, q[g.Name])
	}

	return types.ObjectValueMust(quotasType().AttrTypes, attrs)
}

func flattenQuotas(q Quotas, _ *diag.Diagnostics) types.Object {
	return quotasValue(q)
}

// expandQuotas reads the quotas object; nil when it is null or unknown. Unknown or null
// quotas inside are unlimited.
func expandQuotas(o types.Object) Quotas {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}

	q := UnlimitedQuotas()

	for _, g := range QuotaGroups {
		gv, ok := o.Attributes()[g.Name].(types.Object)
		if !ok || gv.IsNull() || gv.IsUnknown() {
			continue
		}

		for _, f := range g.Fields {
			v, ok := gv.Attributes()[f.Key].(types.Int64)
			if !ok || v.IsNull() || v.IsUnknown() {
				continue
			}

			q[g.Name][f.Key] = v.ValueInt64()
		}
	}

	return q
}

var serverGroupAttrTypes = map[string]attr.Type{"policy": types.StringType}

func serverGroupObject(policy string, diags *diag.Diagnostics) types.Object {
	o, d := types.ObjectValue(serverGroupAttrTypes, map[string]attr.Value{"policy": types.StringValue(policy)})
	diags.Append(d...)

	return o
}

func tagIDValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, 200),
		stringvalidator.RegexMatches(regexp.MustCompile(`^[^/,\s]+$`), "must not contain \"/\", \",\" or white space (Keystone tag rules)"),
	}
}

func optionalString(v string) types.String {
	if v == "" {
		return types.StringNull()
	}

	return types.StringValue(v)
}

func stringSet(values []string, diags *diag.Diagnostics) types.Set {
	elems := make([]attr.Value, 0, len(values))
	for _, v := range sortedUnique(values) {
		elems = append(elems, types.StringValue(v))
	}

	s, d := types.SetValue(types.StringType, elems)
	diags.Append(d...)

	return s
}

func stringMap(values map[string]string, diags *diag.Diagnostics) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}

	m, d := types.MapValue(types.StringType, elems)
	diags.Append(d...)

	return m
}

// rfc3339Validator checks that a string is an RFC 3339 time.
type rfc3339Validator struct{}

func (rfc3339Validator) Description(context.Context) string {
	return "must be an RFC 3339 time, e.g. 2030-01-01T00:00:00Z"
}

func (v rfc3339Validator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v rfc3339Validator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid RFC 3339 time",
			fmt.Sprintf("%q %s: %s", req.ConfigValue.ValueString(), v.Description(ctx), err))
	}
}

// identityModel is the resource's state.
type identityModel struct {
	ApplicationCredentialID     types.String   `tfsdk:"application_credential_id"`
	ApplicationCredentialSecret types.String   `tfsdk:"application_credential_secret"`
	CloudsYAML                  types.String   `tfsdk:"clouds_yaml"`
	Description                 types.String   `tfsdk:"description"`
	ExpiresAt                   types.String   `tfsdk:"expires_at"`
	ForceDestroy                types.Bool     `tfsdk:"force_destroy"`
	ID                          types.String   `tfsdk:"id"`
	KeypairName                 types.String   `tfsdk:"keypair_name"`
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

// serverGroupModel is the `server_group` object.
type serverGroupModel struct {
	Policy types.String `tfsdk:"policy"`
}
