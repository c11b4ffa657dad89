package federation

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// summaryRule is the summary of a rule that is not valid.
const summaryRule = "Invalid mapping rule"

// ValidateConfig checks the rules in their common form: groups and group_domain_id go
// together, every condition has exactly one of any_one_of and not_any_of, and the rules, once
// written as Keystone's JSON, pass Keystone's mapping schema (each problem at its rule).
func (r *federationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[federationModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	rms, conds, ok := ruleModels(ctx, m.Rules)
	if !ok {
		return
	}

	for i, rm := range rms {
		at := path.Root("rules").AtListIndex(i)

		if rm.Groups.IsNull() != rm.GroupDomainID.IsNull() {
			resp.Diagnostics.AddAttributeError(at.AtName("group_domain_id"), summaryRule, fmt.Sprintf(
				"rules[%d]: groups and group_domain_id go together: the groups are named in that domain.", i))
		}

		for j, cm := range conds[i] {
			if !cm.AnyOneOf.IsUnknown() && !cm.NotAnyOf.IsUnknown() && cm.AnyOneOf.IsNull() == cm.NotAnyOf.IsNull() {
				resp.Diagnostics.AddAttributeError(at.AtName("match").AtListIndex(j), summaryRule, fmt.Sprintf(
					"rules[%d].match[%d]: set exactly one of any_one_of and not_any_of.", i, j))
			}
		}
	}

	if resp.Diagnostics.HasError() {
		return
	}

	rules, ok := expandRules(ctx, m.Rules)
	if !ok {
		return
	}

	rendered, err := Render(rules)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("rules"), summaryRule, err.Error())
		return
	}

	for _, p := range CheckRulesJSON(rendered) {
		resp.Diagnostics.AddAttributeError(ruleAt(p.Path), summaryRule, "rules"+p.String())
	}
}

// ruleAt is the attribute path of the rule a JSON path ("[2].remote[0]") is in.
func ruleAt(jsonPath string) path.Path {
	if i := ruleIndex(jsonPath); i >= 0 {
		return path.Root("rules").AtListIndex(i)
	}

	return path.Root("rules")
}

// ModifyPlan fills what follows from the configuration: id and mapping_id from idp_id, and
// rules_json from rules (the JSON the provider will write).
func (r *federationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[federationModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	plan, config := &p.Plan, p.Config

	plan.ID = plan.IDPID
	plan.MappingID = types.StringUnknown()

	if !plan.IDPID.IsUnknown() {
		plan.MappingID = types.StringValue(naming.FederationMapping(plan.IDPID.ValueString()))
	}

	if !config.Rules.IsNull() {
		plan.RulesJSON = types.StringUnknown()

		if rules, ok := expandRules(ctx, plan.Rules); ok {
			if rendered, err := Render(rules); err == nil {
				plan.RulesJSON = types.StringValue(rendered)
			}
		}
	}

	p.Save(ctx, resp)
}
