package federation

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

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
