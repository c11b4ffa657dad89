package identity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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
func (r *identityResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[identityModel](ctx, req, &resp.Diagnostics)
	if !ok || !checkExpiry(p.Plan, p.State, time.Now(), &resp.Diagnostics) {
		return
	}

	planRepairs(&p.Plan, p.State)

	if r.Configured() && p.State != nil {
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

	policy := func(o types.Object) (string, bool) {
		if o.IsNull() {
			return "", true
		}

		var sg serverGroupModel
		if d := o.As(ctx, &sg, basetypes.ObjectAsOptions{}); d.HasError() || sg.Policy.IsUnknown() {
			return "", false
		}

		return cmp.Or(sg.Policy.ValueString(), DefaultServerGroupPolicy), true
	}

	from, okFrom := policy(state.ServerGroup)
	to, okTo := policy(plan.ServerGroup)

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
