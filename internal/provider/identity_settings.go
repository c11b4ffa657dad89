package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
)

// identitySettings is the part of the provider block that configures the identity packages.
type identitySettings struct {
	Roles types.Object `tfsdk:"roles"`
}

// roleMappingModel is the `roles` argument.
type roleMappingModel struct {
	LoadBalancerMember types.String `tfsdk:"load_balancer_member"`
	Manager            types.String `tfsdk:"manager"`
	Member             types.String `tfsdk:"member"`
}

// identityMeta is what Configure derives from identitySettings for the identity packages.
type identityMeta struct {
	identity *identity.Config
}

// IdentityConfig is the identity configuration shared by every identity of the run.
func (m identityMeta) IdentityConfig() *identity.Config {
	if m.identity == nil {
		return identity.NewConfig(nil)
	}

	return m.identity
}

// identityAttributes are the provider arguments of identitySettings.
func identityAttributes() map[string]schema.Attribute {
	roleName := func(role string) schema.StringAttribute {
		return schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Keystone role used for `" + role + "`. Default `" + role + "`.",
			Validators:          []validator.String{stringvalidator.LengthBetween(1, 255)},
		}
	}

	return map[string]schema.Attribute{
		"roles": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Names of the Keystone roles behind the roles identities speak of, for clouds whose roles are " +
				"named differently. `manager` is granted to the service user on every identity's project; `member` and " +
				"`load_balancer_member` are what an identity's `roles` usually hold.",
			Attributes: map[string]schema.Attribute{
				"load_balancer_member": roleName(identity.RoleLoadBalancerMember),
				"manager":              roleName(identity.RoleManager),
				"member":               roleName(identity.RoleMember),
			},
		},
	}
}

// configure validates the settings and fills meta.
func (s identitySettings) configure(ctx context.Context, meta *identityMeta) diag.Diagnostics {
	var diags diag.Diagnostics

	root := path.Root("roles")
	names := map[string]string{}

	if m, ok := adapter.ReadObjectArgument[roleMappingModel](ctx, root, s.Roles, &diags); ok {
		for _, r := range []struct {
			attribute, role string
			name            types.String
		}{
			{"load_balancer_member", identity.RoleLoadBalancerMember, m.LoadBalancerMember},
			{"manager", identity.RoleManager, m.Manager},
			{"member", identity.RoleMember, m.Member},
		} {
			if adapter.ReadArgument(root.AtName(r.attribute), r.name, &diags) {
				names[r.role] = r.name.ValueString()
			}
		}
	}

	if diags.HasError() {
		return diags
	}

	meta.identity = identity.NewConfig(names)

	return diags
}
