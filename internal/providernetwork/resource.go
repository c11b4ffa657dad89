package providernetwork

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

var (
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
	return &providerNetworkResource{adapter.NewRegionalAdmin[meta, *Service, model](adapter.Kind{
		TypeName: "provider_network", Noun: "provider network",
		Timeouts: adapter.Timeouts{Create: 10 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute},
	}, adapter.AdminOps[meta, *Service, model]{
		Bind:    bind,
		Observe: observe,
		Delete:  func(ctx context.Context, svc *Service, m *model) error { return svc.Delete(ctx, m.ID.ValueString()) },
		Locate: func(ctx context.Context, svc *Service, idOrName string) (cloud.Located, error) {
			return svc.Located(ctx, idOrName)
		},
		ModifyPlan: modifyPlan,
	})}
}

// providerNetworkResource is unikorn_provider_network: the kit's regional admin resource
// (Read, Delete, ImportState, ModifyPlan) with its Create, Update and ValidateConfig.
type providerNetworkResource struct {
	adapter.RegionalAdmin[meta, *Service, model, *model]
}

// bind binds the core to the resolved region in the service user's own (admin) scope.
func bind(m meta, c *cloud.Client, region string) (*Service, error) {
	sess := c.Base()

	sc, err := sess.Network(region)
	if err != nil {
		return nil, err
	}

	svc := &Service{Client: sc, ProjectID: sess.ProjectID(), Region: region, Refusal: c.AdminRefusal}
	if cfg := m.NetworkConfig(); cfg != nil {
		svc.VLAN = cfg.ProviderNetwork
	}

	return svc, nil
}

// observe reads the recorded network again with its subnets: by ID, else found again by name.
func observe(ctx context.Context, svc *Service, m *model, diags *diag.Diagnostics) (adapter.Observed, error) {
	out, err := svc.Observe(ctx, m.ID.ValueString(), m.Name.ValueString())
	if out == nil || err != nil {
		return adapter.Observed{Gone: err == nil}, err
	}

	flatten(ctx, m, out, svc.Region, diags)

	return adapter.Observed{RefoundFrom: out.RefoundFrom, Name: out.Name, ID: out.ID, Detail: " in the service user's project"}, nil
}

// apply ensures the plan and records what exists, whatever happened next.
func (r *providerNetworkResource) apply(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, knownID string,
	region adapter.InRegion, subject func(string) string, state *tfsdk.State, diags *diag.Diagnostics,
) {
	spec := expand(ctx, *plan, diags)
	if diags.HasError() {
		return
	}

	out, err := svc.Ensure(ctx, spec, knownID)

	var made adapter.Made
	if out != nil {
		made = adapter.Made{ID: out.ID, Name: out.Name, Adopted: out.Adopted,
			Where: fmt.Sprintf("in the service user's project in %s", region)}
	}

	r.Record(ctx, op, plan, made, err, subject, state, diags, func(m *model) { flatten(ctx, m, out, svc.Region, diags) })
}

// Create creates the network and its subnets (or adopts what an interrupted create of a
// unikorn_provider_network left unfinished).
func (r *providerNetworkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, region adapter.InRegion, subject func(string) string) {
			r.apply(ctx, op, svc, plan, "", region, subject, &resp.State, &resp.Diagnostics)
		})
}

// Update converges the network and its subnets in place.
func (r *providerNetworkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, svc *Service, plan *model, region adapter.InRegion, subject func(string) string) {
			r.apply(ctx, op, svc, plan, prior.ID.ValueString(), region, subject, &resp.State, &resp.Diagnostics)
		})
}
