package network

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*securityGroupResource)(nil)
	_ resource.ResourceWithImportState = (*securityGroupResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*securityGroupResource)(nil)
)

// NewSecurityGroupResource is the constructor the provider lists.
func NewSecurityGroupResource() resource.Resource {
	return &securityGroupResource{tenantResource: newTenantResource[securityGroupModel, SecurityGroupSpec, SecurityGroup, *securityGroupModel](
		adapter.Kind{TypeName: "security_group", Noun: "security group"},
		tenantKind[securityGroupModel, SecurityGroupSpec, SecurityGroup]{
			cloudName: naming.SecurityGroup,
			expand: func(_ context.Context, plan, config securityGroupModel, diags *diag.Diagnostics) SecurityGroupSpec {
				spec, d := expandSecurityGroupSpec(plan, config)
				diags.Append(d...)

				return spec
			},
			ensure: func(ctx context.Context, svc *Service, spec SecurityGroupSpec, prior *securityGroupModel) (*SecurityGroup, error) {
				known := ""
				if prior != nil {
					known = prior.ID.ValueString()
				}

				return svc.EnsureSecurityGroup(ctx, spec, known)
			},
			observe: func(ctx context.Context, svc *Service, m securityGroupModel) (*SecurityGroup, error) {
				return svc.ObserveSecurityGroup(ctx, m.Name.ValueString(), m.ID.ValueString())
			},
			remove: func(ctx context.Context, svc *Service, m securityGroupModel) error {
				return svc.DeleteSecurityGroup(ctx, m.Name.ValueString(), m.ID.ValueString())
			},
			flatten: flattenSecurityGroup,
			idOf:    func(o *SecurityGroup) string { return o.ID },
			refound: func(o *SecurityGroup) []Refound { return o.Refound },
			locate:  LocateSecurityGroup,
			// Read fills the rules in the form of the configuration when there is one; an
			// import has none.
			imported: func(ctx context.Context, state *tfsdk.State) diag.Diagnostics {
				return state.SetAttribute(ctx, path.Root("rules"), types.SetValueMust(ruleType, nil))
			},
		},
	)}
}

type securityGroupResource struct {
	tenantResource[securityGroupModel, SecurityGroupSpec, SecurityGroup, *securityGroupModel]
}

func (r *securityGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[securityGroupModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)

	// A description the configuration does not set is the group's own: kept as it is. A rule
	// is planned as the group has it when it matches (a rule without a description matches any).
	var stateDescription *types.String
	if p.State != nil {
		stateDescription = &p.State.Description
		p.Plan.Rules = planRulesKept(p.Plan.Rules, p.State.Rules)
	}

	p.Plan.Description = planKept(p.Plan.Description, p.Config.Description, stateDescription)

	p.Save(ctx, resp)
}
