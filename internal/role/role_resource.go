package role

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

var (
	_ resource.ResourceWithConfigure      = (*roleResource)(nil)
	_ resource.ResourceWithImportState    = (*roleResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*roleResource)(nil)
	_ resource.ResourceWithValidateConfig = (*roleResource)(nil)
)

// Summaries of the role's own diagnostics.
const (
	summaryExists  = "Role exists already"
	summaryRefound = "Role found again by name"
	summarySelf    = "Role implies itself"
)

// NewRoleResource is unikorn_role.
func NewRoleResource() resource.Resource {
	return &roleResource{adapter.NewResourceBase[adapter.Meta](adapter.Kind{
		TypeName: "role", Noun: "role", Timeouts: domain.DefaultTimeouts,
	})}
}

type roleResource struct {
	adapter.ResourceBase[adapter.Meta]
}

// open is the kit's opening of a global admin resource (adapter.OpenGlobal).
func (r *roleResource) open(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string),
) {
	adapter.OpenGlobal[adapter.Meta, roleModel](ctx, &r.ResourceBase, opKind, src, diags, NewService, do)
}

// record writes what exists of the role, whatever happened to its rules: a failed apply leaves
// a tainted resource, never an untracked role.
func record(ctx context.Context, op *adapter.Operation, m *roleModel, out *Role, err error, subject string,
	state interface {
		Set(context.Context, any) diag.Diagnostics
	}, diags *diag.Diagnostics,
) {
	var exists *domain.ExistsError

	switch {
	case errors.As(err, &exists):
		diags.AddAttributeError(path.Root("name"), summaryExists, err.Error())
		return
	case out == nil:
		op.Fail(subject, err)
		return
	}

	m.flatten(out)
	diags.Append(state.Set(ctx, m)...)

	if err != nil {
		op.Fail(subject, err)
	}
}

// Create creates the role and its inference rules.
func (r *roleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		spec := m.spec(ctx, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}

		out, err := svc.Create(ctx, spec)
		record(ctx, op, m, out, err, subject, &resp.State, &resp.Diagnostics)
	})
}

// Read refreshes every attribute, the implied roles included, from Keystone: a role gone by ID
// and found again by its name is said with a warning, one gone altogether leaves the state.
func (r *roleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.open(ctx, adapter.Read, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		oldID := m.ID.ValueString()

		out, refound, err := svc.Observe(ctx, oldID, m.Name.ValueString(), m.DomainID.ValueString())
		if err != nil {
			op.Fail(subject, err)
			return
		}

		if out == nil {
			tflog.Warn(ctx, "The role is gone; removing it from the state", map[string]any{"role_id": oldID})
			resp.State.RemoveResource(ctx)

			return
		}

		if refound {
			resp.Diagnostics.AddWarning(summaryRefound, fmt.Sprintf("The %s role %s recorded as %s is gone; %s, the role of "+
				"that name, is taken for it. If this configuration did not make it, remove this resource from the state "+
				"before applying or destroying.", where(out.DomainID), out.Name, oldID, out.ID))
		}

		m.flatten(out)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	})
}

// Update changes name and description in place and converges the implied roles.
func (r *roleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[roleModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		spec := m.spec(ctx, &resp.Diagnostics)
		cur := prior.recorded(ctx, &resp.Diagnostics)

		if resp.Diagnostics.HasError() {
			return
		}

		out, err := svc.Update(ctx, cur, spec)
		record(ctx, op, m, out, err, subject, &resp.State, &resp.Diagnostics)
	})
}

// Delete deletes the role; already gone is success.
func (r *roleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *roleModel, subject string) {
		if err := svc.Delete(ctx, m.ID.ValueString()); err != nil {
			op.Fail(subject, err)
		}
	})
}

// ImportState imports a role by ID, by the name of a global role, or by DOMAIN_ID/name.
func (r *roleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, importID string) (cloud.Located, error) {
		svc, err := NewService(r.Cloud())
		if err != nil {
			return cloud.Located{}, err
		}

		return svc.Locate(ctx, importID)
	})
}

// ValidateConfig refuses a role that implies itself.
func (r *roleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := adapter.Get[roleModel](ctx, req.Config, &resp.Diagnostics)
	if !ok || m.Name.IsUnknown() || m.Name.IsNull() || m.Implies.IsNull() || m.Implies.IsUnknown() {
		return
	}

	for _, v := range m.Implies.Elements() {
		if s, ok := v.(types.String); ok && s.Equal(m.Name) {
			resp.Diagnostics.AddAttributeError(path.Root("implies").AtSetValue(s), summarySelf,
				fmt.Sprintf("Role %s cannot imply itself.", m.Name.ValueString()))
		}
	}
}

// ModifyPlan refuses, at plan time, to create a role whose name is taken in its scope (global,
// or the domain's) by a role this configuration does not manage: import it instead.
func (r *roleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[roleModel](ctx, req, &resp.Diagnostics)
	if !ok || !p.Creating() || r.Cloud() == nil || p.Plan.Name.IsUnknown() || p.Plan.DomainID.IsUnknown() {
		return
	}

	svc, err := NewService(r.Cloud())
	if err != nil {
		resp.Diagnostics.AddError("Error reading roles", err.Error())
		return
	}

	name, domainID := p.Plan.Name.ValueString(), p.Plan.DomainID.ValueString()

	existing, err := svc.Find(ctx, name, domainID)

	switch {
	case err != nil:
		resp.Diagnostics.AddError("Error reading roles", fmt.Sprintf("the %s roles named %q: %s", where(domainID), name, err))
	case existing != nil:
		resp.Diagnostics.AddAttributeError(path.Root("name"), summaryExists, (&domain.ExistsError{
			Kind: "role", Name: name, ID: existing.ID, Import: "unikorn_role.<name> " + existing.ID,
		}).Error())
	}
}
