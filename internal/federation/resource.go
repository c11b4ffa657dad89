package federation

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure      = (*federationResource)(nil)
	_ resource.ResourceWithImportState    = (*federationResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*federationResource)(nil)
	_ resource.ResourceWithValidateConfig = (*federationResource)(nil)
)

// Summaries of the federation's own diagnostics: a create onto an identity provider that exists
// already, a rule that is not valid.
const (
	summaryExists = "Identity provider exists already"
	summaryRule   = "Invalid mapping rule"
)

// NewResource is unikorn_federation.
func NewResource() resource.Resource {
	return &federationResource{domain.NewKeystoneResource[adapter.Meta, *Service, federationModel, *federationModel](domain.Keystone[*Service, federationModel, Federation]{
		TypeName: "federation",
		Bind:     NewService,
		Observe: func(ctx context.Context, svc *Service, m *federationModel, _ *diag.Diagnostics) (*Federation, bool, string, error) {
			f, err := svc.Observe(ctx, m.idpID(), m.Protocol.ValueString())
			return f, false, "identity provider", err
		},
		Flatten: func(ctx context.Context, m *federationModel, f *Federation, _ *diag.Diagnostics) (string, string) {
			m.flatten(ctx, f)
			return f.IDPID, f.IDPID
		},
		Locate: func(ctx context.Context, svc *Service, id string) (cloud.Located, error) { return svc.Locate(ctx, id) },
	})}
}

type federationResource struct {
	domain.KeystoneResource[adapter.Meta, *Service, federationModel, *federationModel, Federation]
}

// Create makes the identity provider, the mapping and the protocol.
func (r *federationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		r.apply(ctx, op, svc, m, "", subject, &resp.State, &resp.Diagnostics)
	})
}

// Update changes what Keystone lets change in place.
func (r *federationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state, ok := adapter.Get[federationModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		prior := state.Protocol.ValueString()
		if prior == "" {
			prior = m.Protocol.ValueString() // the protocol went missing: the identity provider exists
		}

		r.apply(ctx, op, svc, m, prior, subject, &resp.State, &resp.Diagnostics)
	})
}

// apply ensures the plan m and records what exists as soon as the identity provider does.
func (r *federationResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, priorProtocol, subject string,
	state *tfsdk.State, diags *diag.Diagnostics,
) {
	spec := m.spec(ctx, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, priorProtocol)
	domain.Recorded(op, diags, path.Root("idp_id"), summaryExists, out, err, subject, r.Record(ctx, m, state, diags))
}

// Delete deletes the protocol, the mapping and the identity provider.
func (r *federationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		if err := svc.Delete(ctx, m.idpID(), m.Protocol.ValueString()); err != nil {
			op.Fail(subject, err)
		}
	})
}

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
