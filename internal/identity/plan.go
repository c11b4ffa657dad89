package identity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// ModifyPlan marks what the next apply will re-issue, so that a repair shows in the plan: a
// missing user, credential or trust, a role change (new credential and trust), a new expiry,
// a missing or re-policied server group, a missing keypair. It also checks that a new
// expires_at lies in the future, and that a server group whose policy changes (or which is
// dropped) holds no server.
//
// In an identity this provider did not make (made_by_provider = false), nothing that only its
// user can make is planned (planForeign): what the configuration asks for beyond the project's
// description and tags, the quotas and the user's roles is refused here, on the attribute that
// asks for it, and a destroy is warned of.
func (r *identityResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		warnForeignDestroy(ctx, req, &resp.Diagnostics)
		return
	}

	p, ok := adapter.OpenPlan[identityModel](ctx, req, &resp.Diagnostics)
	if !ok || !checkExpiry(p.Plan, p.State, time.Now(), &resp.Diagnostics) {
		return
	}

	planRepairs(&p.Plan, p.State)

	if madeElsewhere(p.State) {
		planForeign(ctx, &p.Plan, p.Config, *p.State, &resp.Diagnostics)
	}

	if r.Configured() && p.State != nil && !madeElsewhere(p.State) {
		r.checkServerGroup(ctx, p.Plan, *p.State, &resp.Diagnostics)
	}

	p.Save(ctx, resp)
}

// planCheckTimeout bounds the requests of a plan-time check.
const planCheckTimeout = 2 * time.Minute

// checkServerGroup refuses a plan that changes the policy of the server group (or drops it)
// while the group holds servers (GroupInUseError): only when the policy changes, with one read
// of the group per region the state records it in. A check that cannot run is a warning: the
// apply checks again before it changes anything in Nova.
func (r *identityResource) checkServerGroup(ctx context.Context, plan, state identityModel, diags *diag.Diagnostics) {
	from, to, ok := policyChange(ctx, plan, state)
	if !ok {
		return
	}

	ids := map[string]string{}
	if d := state.ServerGroupIDs.ElementsAs(ctx, &ids, false); d.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, planCheckTimeout)
	defer cancel()

	err := r.service().ServerGroupsInUse(ctx, state.ID.ValueString(), ids, to)

	var inUse *GroupInUseError

	switch {
	case errors.As(err, &inUse):
		diags.AddAttributeError(path.Root("server_group"), "Server group holds servers", fmt.Sprintf(
			"The server group of identity %s cannot change from %s: %s.", subject(state.Name.ValueString(), state.ID.ValueString()),
			from, err))
	case err != nil:
		diags.AddWarning("Could not check the server group", fmt.Sprintf("Whether the server group of identity %s holds "+
			"servers could not be read (%s); the apply checks again before it changes the group.",
			subject(state.Name.ValueString(), state.ID.ValueString()), err))
	}
}

// policyChange is the server group policy of state (from) and of plan (to: "" when the plan
// drops the group), when both are known and differ and the state records the group.
func policyChange(ctx context.Context, plan, state identityModel) (from, to string, ok bool) {
	if state.ServerGroup.IsNull() || state.ServerGroupIDs.IsNull() || state.ServerGroupIDs.IsUnknown() ||
		plan.ServerGroup.IsUnknown() || state.ID.IsNull() {
		return "", "", false
	}

	from, okFrom := planPolicy(ctx, state.ServerGroup)
	to, okTo := planPolicy(ctx, plan.ServerGroup)

	return from, to, okFrom && okTo && from != to
}

// checkExpiry refuses a new expires_at that is not after now, and one without a credential;
// false when it did.
func checkExpiry(plan identityModel, state *identityModel, now time.Time, diags *diag.Diagnostics) bool {
	if plan.ApplicationCredential.Equal(types.BoolValue(false)) && !plan.ExpiresAt.IsNull() {
		diags.AddAttributeError(path.Root("expires_at"), "expires_at without an application credential",
			"expires_at is the expiry of the identity's application credential, and application_credential = false keeps none.")

		return false
	}

	if plan.ExpiresAt.IsNull() || plan.ExpiresAt.IsUnknown() || (state != nil && plan.ExpiresAt.Equal(state.ExpiresAt)) {
		return true
	}

	if t, err := time.Parse(time.RFC3339, plan.ExpiresAt.ValueString()); err == nil && !t.After(now) {
		diags.AddAttributeError(path.Root("expires_at"), "expires_at is in the past",
			fmt.Sprintf("The application credential cannot expire at %s: that is not in the future.", plan.ExpiresAt.ValueString()))

		return false
	}

	return true
}

// planRepairs marks in plan the computed values that the apply will make or re-make, given
// the prior state (nil on create).
func planRepairs(plan, state *identityModel) {
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

	if state == nil {
		plan.MadeByProvider = types.BoolValue(true)
	}

	if plan.ApplicationCredential.Equal(types.BoolValue(false)) {
		plan.ApplicationCredentialID = types.StringNull()
		plan.ApplicationCredentialSecret = types.StringNull()
		plan.CloudsYAML = types.StringNull()
	}

	if state != nil {
		userMissing := state.UserID.IsNull()
		rolesChanged := !plan.Roles.Equal(state.Roles)

		if userMissing {
			plan.UserID = types.StringUnknown()
		}

		if !plan.ApplicationCredential.Equal(types.BoolValue(false)) && (userMissing || rolesChanged ||
			!plan.ExpiresAt.Equal(state.ExpiresAt) || state.ApplicationCredentialID.IsNull() ||
			state.ApplicationCredentialSecret.IsNull()) {
			plan.ApplicationCredentialID = types.StringUnknown()
			plan.ApplicationCredentialSecret = types.StringUnknown()
			plan.CloudsYAML = types.StringUnknown()
		}

		if userMissing || rolesChanged || state.TrustID.IsNull() {
			plan.TrustID = types.StringUnknown()
		}
	}
}

// madeElsewhere tells whether state is an identity this provider did not make.
func madeElsewhere(state *identityModel) bool {
	return state != nil && state.MadeByProvider.Equal(types.BoolValue(false))
}

// summaryForeign is the summary of a change refused in an identity this provider did not make.
const summaryForeign = "Change refused in an identity made elsewhere"

// planForeign plans an identity this provider did not make (state): the values of what only its
// user can make (user, trust, credential, server group, keypair) stay as the state records them,
// quotas left out of the configuration stay as they are, and what the configuration asks for
// that would break its maker is refused (the refusals of foreign.go, on the known values of the
// plan). Dropping its application credential, which the configuration may ask for, is warned of.
func planForeign(ctx context.Context, plan *identityModel, config, state identityModel, diags *diag.Diagnostics) {
	plan.MadeByProvider = state.MadeByProvider
	plan.UserID = state.UserID
	plan.TrustID = state.TrustID

	if plan.ServerGroup.Equal(state.ServerGroup) {
		plan.ServerGroupID, plan.ServerGroupIDs = state.ServerGroupID, state.ServerGroupIDs
	}

	if plan.SSHPublicKey.Equal(state.SSHPublicKey) {
		plan.KeypairName = state.KeypairName
	}

	if plan.ApplicationCredential.Equal(types.BoolValue(true)) {
		plan.ApplicationCredentialID = state.ApplicationCredentialID
		plan.ApplicationCredentialSecret = state.ApplicationCredentialSecret
		plan.CloudsYAML = state.CloudsYAML
	}

	if config.Quotas.IsNull() && !state.Quotas.IsNull() && !state.Quotas.IsUnknown() {
		plan.Quotas = state.Quotas // not asked for: as its maker set them
	}

	name, who := state.Name.ValueString(), subject(state.Name.ValueString(), state.ID.ValueString())
	held := heldIn(ctx, state)

	var refused []*ForeignError

	if !plan.SSHPublicKey.IsUnknown() {
		refused = append(refused, keypairRefusal(who, held.SSHPublicKey, strings.TrimSpace(plan.SSHPublicKey.ValueString())))
	}

	if policy, ok := planPolicy(ctx, plan.ServerGroup); ok {
		refused = append(refused, serverGroupRefusal(who, name, held.ServerGroupPolicy, policy))
	}

	expires, err := parseTime(plan.ExpiresAt)
	keep := !plan.ApplicationCredential.Equal(types.BoolValue(false))

	if !plan.ApplicationCredential.IsUnknown() && !plan.ExpiresAt.IsUnknown() && err == nil {
		refused = append(refused, credentialRefusal(who, held, keep, expires))
	}

	var roles []string
	if !plan.Roles.IsUnknown() && !plan.ApplicationCredential.IsUnknown() && !plan.Roles.ElementsAs(ctx, &roles, false).HasError() {
		refused = append(refused, rolesRefusal(who, held, roles, keep))
	}

	for _, e := range refused {
		if e != nil {
			diags.AddAttributeError(path.Root(e.Attribute), summaryForeign, e.Error())
		}
	}

	if !keep && held.CredentialID != "" {
		diags.AddAttributeWarning(path.Root("application_credential"), "Deletes the application credential of an identity made elsewhere",
			fmt.Sprintf("application_credential = false deletes the application credential %s of identity %s, which this provider "+
				"did not make. When Unikorn made the identity, that is its credential unikorn-identity-%s (\"IaaS lifecycle "+
				"management\"), which it hands out as clouds.yaml (to Kubernetes clusters, for one): whatever uses it stops "+
				"working, and Unikorn never makes it again. Leave application_credential unset (true) to keep it.",
				held.CredentialID, who, name))
	}
}

// heldIn is what the state of an identity made elsewhere records it holds.
func heldIn(ctx context.Context, state identityModel) Held {
	h := Held{
		CredentialID: state.ApplicationCredentialID.ValueString(),
		SSHPublicKey: strings.TrimSpace(state.SSHPublicKey.ValueString()),
	}

	h.ExpiresAt, _ = parseTime(state.ExpiresAt)
	h.ServerGroupPolicy, _ = planPolicy(ctx, state.ServerGroup)
	_ = state.Roles.ElementsAs(ctx, &h.Roles, false)

	return h
}

// planPolicy is the policy of a server_group value ("" for none); false while unknown.
func planPolicy(ctx context.Context, o types.Object) (string, bool) {
	if o.IsUnknown() {
		return "", false
	}

	if o.IsNull() {
		return "", true
	}

	var sg serverGroupModel
	if d := o.As(ctx, &sg, basetypes.ObjectAsOptions{}); d.HasError() || sg.Policy.IsUnknown() {
		return "", false
	}

	return cmp.Or(sg.Policy.ValueString(), DefaultServerGroupPolicy), true
}

// warnForeignDestroy warns of the destroy of an identity this provider did not make: it goes
// from the cloud, with what its maker made in it. A removed block hands it back instead.
func warnForeignDestroy(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if req.State.Raw.IsNull() {
		return
	}

	var state identityModel
	if d := req.State.Get(ctx, &state); d.HasError() || !madeElsewhere(&state) {
		return
	}

	diags.AddWarning("Destroys an identity made elsewhere", fmt.Sprintf("Destroying identity %s, which this provider did not "+
		"make (Unikorn's region service made it, or a person), deletes it from the cloud: its server group and keypair, its "+
		"user with its application credential, and its project (with force_destroy, what the project still holds). Unikorn "+
		"still records the identity, and what it handed out with it stops working. To stop managing the identity and leave "+
		"it as it is, replace its resource block with a removed block instead:\n\n"+
		"removed {\n  from = unikorn_identity.<name>\n\n  lifecycle {\n    destroy = false\n  }\n}",
		subject(state.Name.ValueString(), state.ID.ValueString())))
}
