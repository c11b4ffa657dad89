package identity

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// The plan of an identity this provider did not make (issue 27, item 1): a configuration that
// mirrors it plans nothing, and what would break its maker is refused on the attribute that asks
// for it, before any apply.

// unikornQuotas are quotas as Unikorn v1.10 leaves them: Nova's few set unlimited, Neutron's at
// the cloud's defaults.
func unikornQuotas() types.Object {
	q := quota.AllUnlimited()
	q[QuotaNetwork]["port"] = 500
	q[QuotaNetwork]["router"] = 10

	return quota.Value(q)
}

// foreignState is the state that an import and a refresh record of unikornCloud's identity.
func foreignState() identityModel {
	return identityModel{
		ApplicationCredential:       types.BoolValue(true),
		ApplicationCredentialID:     types.StringValue("ac-u"),
		ApplicationCredentialSecret: types.StringNull(),
		CloudsYAML:                  types.StringNull(),
		Description:                 types.StringValue(""),
		ExpiresAt:                   types.StringNull(),
		ForceDestroy:                types.BoolValue(false),
		ID:                          types.StringValue("p-1"),
		KeypairName:                 types.StringValue(naming.KeypairName),
		MadeByProvider:              types.BoolValue(false),
		Name:                        types.StringValue("foo"),
		OrganizationID:              types.StringValue("org-u"),
		ProjectID:                   types.StringValue("p-1"),
		Quotas:                      unikornQuotas(),
		Roles:                       roleSet(RoleLoadBalancerMember, RoleMember),
		ServerGroup:                 serverGroupObject(DefaultServerGroupPolicy, &diag.Diagnostics{}),
		ServerGroupID:               types.StringValue("sg-u"),
		ServerGroupIDs:              types.MapValueMust(types.StringType, map[string]attr.Value{"RegionOne": types.StringValue("sg-u")}),
		SSHPublicKey:                types.StringValue(unikornKey),
		TrustID:                     types.StringNull(),
		UnikornProjectID:            types.StringValue("proj-u"),
		UserID:                      types.StringValue("u-1"),
	}
}

// mirroring is the configuration that mirrors foreignState (name, organization and project, the
// server group's policy, the keypair's key, the roles), and the plan the framework proposes for
// it before ModifyPlan: the defaults (quotas unlimited), the stable computed values from the
// state, the others unknown.
func mirroring() (config, plan identityModel) {
	state := foreignState()

	config = identityModel{
		Name: state.Name, OrganizationID: state.OrganizationID, UnikornProjectID: state.UnikornProjectID,
		ServerGroup: state.ServerGroup, SSHPublicKey: state.SSHPublicKey, Roles: state.Roles,
		Quotas: quota.Null(), ApplicationCredential: types.BoolNull(), ExpiresAt: types.StringNull(),
	}

	plan = state
	plan.Quotas = quota.Value(quota.AllUnlimited())
	plan.KeypairName = types.StringUnknown()
	plan.ServerGroupID = types.StringUnknown()
	plan.ServerGroupIDs = types.MapUnknown(types.StringType)

	return config, plan
}

// sameModel names the attributes in which a and b differ.
func sameModel(a, b identityModel) []string {
	var differ []string

	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)

	for i := range va.NumField() {
		x, okA := va.Field(i).Interface().(attr.Value)
		y, okB := vb.Field(i).Interface().(attr.Value)

		if okA && okB && !x.Equal(y) {
			differ = append(differ, va.Type().Field(i).Tag.Get("tfsdk"))
		}
	}

	return differ
}

func TestPlanForeignMirroredIsEmpty(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	state := foreignState()
	config, plan := mirroring()

	var diags diag.Diagnostics

	planRepairs(&plan, &state)
	planForeign(ctx, &plan, config, state, &diags)

	if diags.HasError() || diags.WarningsCount() > 0 {
		t.Fatalf("diagnostics %v", diags)
	}

	if differ := sameModel(plan, state); len(differ) > 0 {
		t.Fatalf("a mirrored configuration plans changes of %v", differ)
	}
}

func TestPlanForeignRefusesOnTheAttribute(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name      string
		change    func(config, plan *identityModel)
		attribute string
	}{
		{name: "another key", attribute: "ssh_public_key", change: func(_, p *identityModel) { p.SSHPublicKey = types.StringValue("ssh-ed25519 AAAAOther") }},
		{name: "no key", attribute: "ssh_public_key", change: func(_, p *identityModel) { p.SSHPublicKey = types.StringNull() }},
		{name: "another policy", attribute: "server_group", change: func(_, p *identityModel) {
			p.ServerGroup = serverGroupObject("affinity", &diag.Diagnostics{})
		}},
		{name: "no server group", attribute: "server_group", change: func(_, p *identityModel) { p.ServerGroup = types.ObjectNull(serverGroupAttrTypes) }},
		{name: "an expiry", attribute: "expires_at", change: func(_, p *identityModel) { p.ExpiresAt = types.StringValue("2031-01-01T00:00:00Z") }},
		{name: "a role dropped", attribute: "roles", change: func(_, p *identityModel) { p.Roles = roleSet(RoleMember) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			state := foreignState()
			config, plan := mirroring()
			tc.change(&config, &plan)

			var diags diag.Diagnostics

			planRepairs(&plan, &state)
			planForeign(context.Background(), &plan, config, state, &diags)

			if diags.ErrorsCount() != 1 {
				t.Fatalf("diagnostics %v, want one error", diags)
			}

			d := diags.Errors()[0]

			withPath, ok := d.(diag.DiagnosticWithPath)
			if !ok || !withPath.Path().Equal(path.Root(tc.attribute)) || d.Summary() != summaryForeign ||
				!strings.Contains(d.Detail(), "unikorn-identity-foo (project p-1) was not made by this provider") {
				t.Fatalf("error %q on %v, want one on %s naming the identity", d.Detail(), withPath, tc.attribute)
			}
		})
	}

	t.Run("unknown values are checked at apply", func(t *testing.T) {
		t.Parallel()

		state := foreignState()
		config, plan := mirroring()
		plan.SSHPublicKey, plan.ServerGroup, plan.Roles = types.StringUnknown(), types.ObjectUnknown(serverGroupAttrTypes), types.SetUnknown(types.StringType)

		var diags diag.Diagnostics

		planForeign(context.Background(), &plan, config, state, &diags)

		if diags.HasError() {
			t.Fatalf("refused unknown values: %v", diags)
		}
	})
}

// Quotas the configuration sets converge; quotas it leaves out stay as the maker set them.
func TestPlanForeignQuotas(t *testing.T) {
	t.Parallel()

	state := foreignState()
	config, plan := mirroring()
	set := quota.Value(quota.AllUnlimited())
	config.Quotas, plan.Quotas = set, set

	var diags diag.Diagnostics

	planForeign(context.Background(), &plan, config, state, &diags)

	if !plan.Quotas.Equal(set) || diags.HasError() {
		t.Fatalf("configured quotas planned as %v (%v), want them as configured", plan.Quotas, diags)
	}
}

// application_credential = false deletes the credential of an identity made elsewhere, as asked,
// and says so; a role may then be dropped too.
func TestPlanForeignDropsTheCredentialWithAWarning(t *testing.T) {
	t.Parallel()

	state := foreignState()
	config, plan := mirroring()
	plan.ApplicationCredential = types.BoolValue(false)
	plan.Roles = roleSet(RoleMember)

	var diags diag.Diagnostics

	planRepairs(&plan, &state)
	planForeign(context.Background(), &plan, config, state, &diags)

	if diags.HasError() || diags.WarningsCount() != 1 || !strings.Contains(diags.Warnings()[0].Detail(), "deletes the application credential ac-u") {
		t.Fatalf("diagnostics %v, want one warning naming ac-u", diags)
	}

	if !plan.ApplicationCredentialID.IsNull() || !plan.CloudsYAML.IsNull() {
		t.Fatalf("the credential is planned as %v, want none", plan.ApplicationCredentialID)
	}
}

// A plan that destroys an identity made elsewhere says what goes, and how to hand it back
// instead; one that destroys an identity this provider made says nothing.
func TestModifyPlanWarnsOfDestroyingAnIdentityMadeElsewhere(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	var s resource.SchemaResponse

	r := &identityResource{}
	r.Schema(ctx, resource.SchemaRequest{}, &s)

	for _, made := range []bool{false, true} {
		state := tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
		for p, v := range map[string]any{"made_by_provider": made, "name": "foo", "id": "p-1"} {
			if d := state.SetAttribute(ctx, path.Root(p), v); d.HasError() {
				t.Fatal(d)
			}
		}

		req := resource.ModifyPlanRequest{
			State: state, Plan: tfsdk.Plan{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)},
		}

		var resp resource.ModifyPlanResponse

		r.ModifyPlan(ctx, req, &resp)

		warned := resp.Diagnostics.WarningsCount() == 1 &&
			strings.Contains(resp.Diagnostics.Warnings()[0].Detail(), "removed {\n  from = unikorn_identity.<name>")
		if warned == made || resp.Diagnostics.HasError() {
			t.Fatalf("made %v: diagnostics %v", made, resp.Diagnostics)
		}
	}
}
