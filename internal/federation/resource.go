package federation

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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
	return &federationResource{domain.NewKeystoneResource[*Service, federationModel]("federation", NewService)}
}

type federationResource struct {
	domain.KeystoneResource[*Service, federationModel, *federationModel]
}

// Create makes the identity provider, the mapping and the protocol.
func (r *federationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		r.apply(ctx, op, svc, m, "", subject, resp.State.Set, &resp.Diagnostics)
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
	domain.Recorded(op, diags, path.Root("idp_id"), summaryExists, out, err, subject, func(out *Federation) string {
		m.flatten(ctx, out)
		diags.Append(set(ctx, m)...)

		return adapter.Subject(spec.IDPID, spec.IDPID, nil)
	})
}

// Read refreshes every attribute from Keystone; a federation whose identity provider is gone
// leaves the state.
func (r *federationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Open(ctx, adapter.Read, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		out, err := svc.Observe(ctx, m.idpID(), m.Protocol.ValueString())
		if err != nil {
			op.Fail(subject, err)
			return
		}

		domain.Refreshed(ctx, resp, "", "identity provider", m.idpID(), out, false, func(out *Federation) (string, string) {
			m.flatten(ctx, out)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)

			return out.IDPID, out.IDPID
		})
	})
}

// Delete deletes the protocol, the mapping and the identity provider.
func (r *federationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *federationModel, subject string) {
		if err := svc.Delete(ctx, m.idpID(), m.Protocol.ValueString()); err != nil {
			op.Fail(subject, err)
		}
	})
}

// ImportState imports a federation by its identity provider's ID; Read fills in the rest.
func (r *federationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.Import(ctx, req, resp, func(ctx context.Context, svc *Service, id string) (cloud.Located, error) {
		return svc.Locate(ctx, id)
	})
}
