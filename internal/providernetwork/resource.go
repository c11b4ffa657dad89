package providernetwork

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

var (
	_ resource.ResourceWithConfigure      = (*providerNetworkResource)(nil)
	_ resource.ResourceWithImportState    = (*providerNetworkResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*providerNetworkResource)(nil)
	_ resource.ResourceWithValidateConfig = (*providerNetworkResource)(nil)
)

// meta is what this package needs of the provider's client bundle: the cloud, and network's
// configuration for the provider's provider_network (its VLAN ranges).
type meta interface {
	Cloud() *cloud.Client
	NetworkConfig() *network.Config
}

// NewResource is unikorn_provider_network.
func NewResource() resource.Resource {
	return &providerNetworkResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "provider_network", Noun: "provider network",
		Timeouts: adapter.Timeouts{Create: 10 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute},
	})}
}

type providerNetworkResource struct {
	adapter.ResourceBase[meta]
}

// bind binds the core to the resolved region in the service user's own (admin) scope.
func (r *providerNetworkResource) bind(c *cloud.Client, region string) (*Service, error) {
	sess := c.Base()

	sc, err := sess.Network(region)
	if err != nil {
		return nil, err
	}

	svc := &Service{Client: sc, ProjectID: sess.ProjectID(), Region: region, Refusal: c.AdminRefusal}
	if cfg := r.Meta.NetworkConfig(); cfg != nil {
		svc.VLAN = cfg.ProviderNetwork
	}

	return svc, nil
}

// run is the kit's opening of an admin resource (adapter.OpenAdmin); the model carries the
// resolved region.
func (r *providerNetworkResource) run(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, svc *Service, m *model, subject func(id string) string),
) {
	adapter.OpenAdmin[meta, model](ctx, &r.ResourceBase, opKind, src, diags, r.bind,
		func(ctx context.Context, op *adapter.Operation, svc *Service, m *model, subject func(string) string) {
			m.Region = types.StringValue(svc.Region)
			do(ctx, op, svc, m, subject)
		})
}

// apply ensures the plan and records what exists, whatever happened next.
func (r *providerNetworkResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, knownID string,
	subject func(string) string, state *tfsdk.State, diags *diag.Diagnostics,
) {
	spec := expand(ctx, *plan, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, knownID)
	if out == nil || out.ID == "" {
		op.Fail(subject(knownID), err)
		return
	}

	if out.Adopted {
		diags.AddWarning("Adopted an existing provider network", fmt.Sprintf(
			"The network %s (%s) already existed in the service user's project and was adopted instead of a new one "+
				"being made (an interrupted apply leaves such networks behind). If another workspace manages it, remove "+
				"this resource from this configuration.", out.Name, out.ID))
	}

	flatten(ctx, plan, out, diags)
	diags.Append(state.Set(ctx, plan)...)

	if err != nil {
		op.Fail(subject(out.ID), err)
	}
}

// Create adopts or creates the network and its subnets.
func (r *providerNetworkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.run(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, subject func(string) string) {
			r.apply(ctx, op, svc, plan, "", subject, &resp.State, &resp.Diagnostics)
		})
}

// Update converges the network and its subnets in place.
func (r *providerNetworkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.run(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, subject func(string) string) {
			r.apply(ctx, op, svc, plan, prior.ID.ValueString(), subject, &resp.State, &resp.Diagnostics)
		})
}

// Read refreshes every attribute from Neutron; a network gone by ID and found again by name
// is said with a warning, one gone altogether leaves the state.
func (r *providerNetworkResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.run(ctx, adapter.Read, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, state *model, subject func(string) string) {
			out, err := svc.Observe(ctx, state.ID.ValueString(), state.Name.ValueString())
			if out == nil && err == nil {
				tflog.Warn(ctx, "The provider network is gone; removing it from state")
				resp.State.RemoveResource(ctx)

				return
			}

			if err != nil {
				op.Fail(subject(state.ID.ValueString()), err)
				return
			}

			if out.RefoundFrom != "" {
				resp.Diagnostics.AddWarning("Found again by name", fmt.Sprintf(
					"The provider network %s recorded as %s is gone; %s, the network of that name in the service user's "+
						"project, is taken for it. If it is not the one this configuration made, remove this resource from "+
						"the state before applying or destroying.", out.Name, out.RefoundFrom, out.ID))
			}

			flatten(ctx, state, out, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		})
}

// Delete deletes the subnets, then the network; gone is success.
func (r *providerNetworkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.run(ctx, adapter.Delete, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, state *model, subject func(string) string) {
			if err := svc.Delete(ctx, state.ID.ValueString()); err != nil {
				op.Fail(subject(state.ID.ValueString()), err)
			}
		})
}

// ImportState imports by `REGION/ID`, `REGION/name`, `ID` or `name`.
func (r *providerNetworkResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		svc, err := r.bind(r.Cloud(), region)
		if err != nil {
			return cloud.Located{}, err
		}

		return svc.Located(ctx, idOrName)
	})
}
