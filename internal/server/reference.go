package server

// This file is what the operations on an existing server share, whatever framework kind
// serves them (the console data source, the console session ephemeral resource, the reboot
// and snapshot actions): the reference to the server (identity, region, server ID), its
// attributes in each kind's schema package, and its binding to a tenant.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	datasourceschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	ephemeralschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// serverRef names an existing server: embedded in the models of the operations on one.
type serverRef struct {
	IdentityID types.String `tfsdk:"identity_id"`
	Region     types.String `tfsdk:"region"`
	ServerID   types.String `tfsdk:"server_id"`
}

// The descriptions of serverRef's attributes.
const (
	refIdentityDescription = "ID of the `unikorn_identity` (its Keystone project) that owns the server."
	refServerDescription   = "ID of the server (a `unikorn_server`'s `id`)."
	refRegionDescription   = "Region of the server. Default: the provider's `region`."
)

// refValidators are the validators of identity_id and server_id.
func refValidators(name string) []validator.String {
	if name == "server_id" {
		return []validator.String{adapter.UUID()}
	}

	return []validator.String{stringvalidator.LengthAtLeast(1)}
}

// refDataSourceAttributes are serverRef's attributes in a data source schema.
func refDataSourceAttributes() map[string]datasourceschema.Attribute {
	return map[string]datasourceschema.Attribute{
		"identity_id": datasourceschema.StringAttribute{Required: true, MarkdownDescription: refIdentityDescription, Validators: refValidators("identity_id")},
		"region":      adapter.RegionFilter("server"),
		"server_id":   datasourceschema.StringAttribute{Required: true, MarkdownDescription: refServerDescription, Validators: refValidators("server_id")},
	}
}

// refEphemeralAttributes are serverRef's attributes in an ephemeral resource schema.
func refEphemeralAttributes() map[string]ephemeralschema.Attribute {
	return map[string]ephemeralschema.Attribute{
		"identity_id": ephemeralschema.StringAttribute{Required: true, MarkdownDescription: refIdentityDescription, Validators: refValidators("identity_id")},
		"region": ephemeralschema.StringAttribute{
			Optional: true, Computed: true, MarkdownDescription: refRegionDescription,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"server_id": ephemeralschema.StringAttribute{Required: true, MarkdownDescription: refServerDescription, Validators: refValidators("server_id")},
	}
}

// refActionAttributes are serverRef's attributes in an action schema.
func refActionAttributes() map[string]actionschema.Attribute {
	return map[string]actionschema.Attribute{
		"identity_id": actionschema.StringAttribute{Required: true, MarkdownDescription: refIdentityDescription, Validators: refValidators("identity_id")},
		"region": actionschema.StringAttribute{
			Optional: true, MarkdownDescription: refRegionDescription,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"server_id": actionschema.StringAttribute{Required: true, MarkdownDescription: refServerDescription, Validators: refValidators("server_id")},
	}
}

// tenant binds the identity of ref in its region with scope: the region rule of the kit
// (adapter.ReadRegion: unset is the provider's default, recorded in ref; one that is not served
// is an attribute error). false when it failed (the diagnostics say why, under summary).
func (ref *serverRef) tenant(ctx context.Context, c *cloud.Client, scope cloud.Scope, summary string, diags *diag.Diagnostics) (*cloud.Tenant, bool) {
	if _, ok := adapter.ReadRegion(c, &ref.Region, diags); !ok {
		return nil, false
	}

	t, err := c.Tenant(ctx, ref.IdentityID.ValueString(), ref.Region.ValueString(), scope)
	if err != nil {
		diags.AddError(summary, ref.subject(nil)+": "+err.Error())
		return nil, false
	}

	return t, true
}

// service is the server core bound to ref's tenant with scope (tenant); false on failure.
func (ref *serverRef) service(ctx context.Context, c *cloud.Client, scope cloud.Scope, summary string, diags *diag.Diagnostics) (*Service, bool) {
	t, ok := ref.tenant(ctx, c, scope, summary, diags)
	if !ok {
		return nil, false
	}

	svc, err := NewService(t)
	if err != nil {
		diags.AddError(summary, ref.subject(t)+": "+err.Error())
		return nil, false
	}

	return svc, true
}

// subject names the server for messages: "server ID in project P, region R" (t nil: not
// bound yet).
func (ref serverRef) subject(t *cloud.Tenant) string {
	if t == nil {
		return adapter.Subject("server", ref.ServerID.ValueString(), where{IdentityID: ref.IdentityID, Region: ref.Region})
	}

	return adapter.Subject("server", ref.ServerID.ValueString(), t)
}
