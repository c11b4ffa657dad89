package federation

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

var (
	_ resource.ResourceWithConfigure      = (*federationResource)(nil)
	_ resource.ResourceWithImportState    = (*federationResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*federationResource)(nil)
	_ resource.ResourceWithValidateConfig = (*federationResource)(nil)
)

// summaryExists is the summary of a create onto an identity provider that exists already.
const summaryExists = "Identity provider exists already"

// NewResource is unikorn_federation.
func NewResource() resource.Resource {
	return &federationResource{adapter.NewResourceBase[adapter.Meta](adapter.Kind{
		TypeName: "federation", Noun: "federation", Timeouts: domain.DefaultTimeouts,
	})}
}

type federationResource struct {
	adapter.ResourceBase[adapter.Meta]
}

// open is the kit's opening of a global admin resource (adapter.OpenGlobal).
func (r *federationResource) open(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string),
) {
	adapter.OpenGlobal[adapter.Meta, federationModel](ctx, &r.ResourceBase, opKind, src, diags, NewService, do)
}

// Create makes the identity provider, the mapping and the protocol.
func (r *federationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		r.apply(ctx, op, svc, m, "", subject, resp.State.Set, &resp.Diagnostics)
	})
}

// Update changes what Keystone lets change in place.
func (r *federationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state, ok := adapter.Get[federationModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		prior := state.Protocol.ValueString()
		if prior == "" {
			prior = m.Protocol.ValueString() // the protocol went missing: the identity provider exists
		}

		r.apply(ctx, op, svc, m, prior, subject, resp.State.Set, &resp.Diagnostics)
	})
}

// apply ensures the plan m and records what exists as soon as the identity provider does.
func (r *federationResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, priorProtocol, subject string,
	set func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics,
) {
	spec := m.spec(ctx, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, priorProtocol)

	var exists *domain.ExistsError

	switch {
	case out == nil && errors.As(err, &exists):
		diags.AddAttributeError(path.Root("idp_id"), summaryExists, err.Error())
		return
	case out == nil:
		op.Fail(subject, err)
		return
	}

	m.flatten(ctx, out)
	diags.Append(set(ctx, m)...)

	if err != nil {
		op.Fail(adapter.Subject(spec.IDPID, spec.IDPID, nil), err)
	}
}

// Read refreshes every attribute from Keystone; a federation whose identity provider is gone
// leaves the state.
func (r *federationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.open(ctx, adapter.Read, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		out, err := svc.Observe(ctx, m.idpID(), m.Protocol.ValueString())
		if err != nil {
			op.Fail(subject, err)
			return
		}

		if out == nil {
			tflog.Warn(ctx, "The identity provider is gone; removing the federation from the state", map[string]any{"idp_id": m.idpID()})
			resp.State.RemoveResource(ctx)

			return
		}

		m.flatten(ctx, out)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	})
}

// Delete deletes the protocol, the mapping and the identity provider.
func (r *federationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		if err := svc.Delete(ctx, m.idpID(), m.Protocol.ValueString()); err != nil {
			op.Fail(subject, err)
		}
	})
}

// ImportState imports a federation by its identity provider's ID; Read fills in the rest.
func (r *federationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, id string) (cloud.Located, error) {
		svc, err := NewService(r.Cloud())
		if err != nil {
			return cloud.Located{}, err
		}

		return svc.Locate(ctx, id)
	})
}
