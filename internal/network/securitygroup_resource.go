package network

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*securityGroupResource)(nil)
	_ resource.ResourceWithImportState = (*securityGroupResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*securityGroupResource)(nil)
)

// Prefixes under which rules that refer to a remote group are read back: the schema has no
// place for them, and they are removed by the next apply.
const (
	remoteGroupMarker        = "group:"
	remoteAddressGroupMarker = "address-group:"
)

// NewSecurityGroupResource is the constructor the provider lists.
func NewSecurityGroupResource() resource.Resource {
	return &securityGroupResource{}
}

type securityGroupResource struct {
	meta meta
}

func (r *securityGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_security_group"
}

var (
	portRangeAttrTypes = map[string]attr.Type{"max": types.Int64Type, "min": types.Int64Type}
	ruleAttrTypes      = map[string]attr.Type{
		"description":      types.StringType,
		"direction":        types.StringType,
		"port":             types.Int64Type,
		"port_range":       types.ObjectType{AttrTypes: portRangeAttrTypes},
		"protocol":         types.StringType,
		"remote_ip_prefix": types.StringType,
	}
	ruleType = types.ObjectType{AttrTypes: ruleAttrTypes}
)

func (r *securityGroupResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	portNumber := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: what + " (1-65535).",
			Validators:          []validator.Int64{int64validator.Between(1, 65535)},
		}
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "A Neutron security group `securitygroup-<name>` in an identity's project, with its rules " +
			"reconciled as a set: one request reads the group with its rules, the rules that are not configured are " +
			"deleted, and the missing ones are created together in one bulk request. Neutron's default egress rules " +
			"(any protocol to anywhere, IPv4 and IPv6) are never deleted. A rule added or removed out of band shows in " +
			"the next plan.\n\n" +
			"The group is found again by its exact name in the identity's project: a create adopts a group an " +
			"interrupted apply left behind (never a twin), and two groups with the name are an error that names both.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"description": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "Description of the security group. Updated in place.",
			},
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the Neutron security group.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"identity_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "ID of the `unikorn_identity` (its Keystone project) the group belongs to. Changing it " +
					"replaces the group.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the group; the Neutron security group is called `securitygroup-<name>`. " +
					"Changing it replaces the group.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{nameValidator{kind: naming.KindSecurityGroup}},
			},
			"region": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Region of the group. Default: the provider's `region`. Changing it replaces the group.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"rules": schema.SetNestedAttribute{
				Optional: true,
				Computed: true,
				Default:  setdefault.StaticValue(types.SetValueMust(ruleType, nil)),
				MarkdownDescription: "The rules, as a set. A rule is identified by all its attributes: changing one replaces " +
					"that rule only (Neutron rules cannot be updated), and the other rules stay untouched. Two rules that " +
					"Neutron would call duplicates (they differ only in `description`, or in `port = N` against " +
					"`port_range = { min = N, max = N }`) are rejected at plan time. Default: none besides Neutron's " +
					"default egress rules.",
				Validators: []validator.Set{rulesUnique{}},
				NestedObject: schema.NestedAttributeObject{
					Validators: []validator.Object{ruleValidator{}},
					Attributes: map[string]schema.Attribute{
						"description": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "Description of the rule.",
							Validators:          []validator.String{stringvalidator.LengthBetween(1, 255)},
						},
						"direction": schema.StringAttribute{
							Required:            true,
							MarkdownDescription: "`ingress` or `egress`.",
							Validators:          []validator.String{stringvalidator.OneOf(Directions...)},
						},
						"port": schema.Int64Attribute{
							Optional:            true,
							MarkdownDescription: "One port (1-65535), with `tcp` or `udp` only. Unset, with no `port_range`: every port.",
							Validators:          []validator.Int64{int64validator.Between(1, 65535)},
						},
						"port_range": schema.SingleNestedAttribute{
							Optional:            true,
							MarkdownDescription: "An inclusive port range, with `tcp` or `udp` only; not with `port`.",
							Attributes: map[string]schema.Attribute{
								"max": portNumber("Last port"),
								"min": portNumber("First port"),
							},
						},
						"protocol": schema.StringAttribute{
							Required:            true,
							MarkdownDescription: "One of `" + strings.Join(Protocols, "`, `") + "`.",
							Validators:          []validator.String{stringvalidator.OneOf(Protocols...)},
						},
						"remote_ip_prefix": schema.StringAttribute{
							Optional: true,
							MarkdownDescription: "The remote addresses, as a CIDR in canonical form. Unset: `" + DefaultRemoteIPPrefix +
								"`. The rule's ether type (IPv4 or IPv6) follows its family. A rule created out of band that " +
								"refers to a remote security group reads back as `" + remoteGroupMarker + "<ID>` (and is " +
								"removed by the next apply).",
							Validators: []validator.String{prefixValidator{}},
						},
					},
				},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true}),
		},
	}
}

func (r *securityGroupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		r.meta = m
	}
}

func (r *securityGroupResource) service(ctx context.Context, m securityGroupModel) (*Service, error) {
	return NewService(ctx, r.meta.Cloud(), r.meta.NetworkConfig(), m.IdentityID.ValueString(), m.Region.ValueString())
}

func (r *securityGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan securityGroupModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSecurityGroupSpec(plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := naming.SecurityGroup(spec.Name)
	ctx = tflog.SetField(ctx, "security_group", name)

	svc, err := r.service(ctx, plan)
	if err != nil {
		resp.Diagnostics.AddError("Error creating security group", fmt.Sprintf("%s: %s", name, err))
		return
	}

	plan.Region = types.StringValue(svc.Region())
	before := r.meta.Cloud().RequestCount()

	out, err := svc.EnsureSecurityGroup(ctx, spec, "")

	tflog.Debug(ctx, "Created the security group", map[string]any{
		"requests": r.meta.Cloud().RequestCount() - before, "rules": len(spec.Rules),
	})

	if out == nil {
		resp.Diagnostics.AddError("Error creating security group", fmt.Sprintf("%s in project %s, region %s: %s",
			name, svc.ProjectID(), svc.Region(), err))

		return
	}

	// The group exists: record it whatever happened next.
	state := plan
	flattenSecurityGroup(&state, out, err == nil)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)

	if err != nil {
		resp.Diagnostics.AddError("Error creating security group", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			name, out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *securityGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state securityGroupModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Read(ctx, defaultReadTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := state.Name.ValueString()
	ctx = tflog.SetField(ctx, "security_group", naming.SecurityGroup(name))

	svc, err := r.service(ctx, state)
	if err != nil {
		resp.Diagnostics.AddError("Error reading security group", fmt.Sprintf("%s: %s", naming.SecurityGroup(name), err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	out, err := svc.ObserveSecurityGroup(ctx, name, state.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Error reading security group", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.SecurityGroup(name), state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))

		return
	}

	tflog.Debug(ctx, "Read the security group", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		tflog.Warn(ctx, "The security group is gone; removing it from state")
		resp.State.RemoveResource(ctx)

		return
	}

	state.Region = types.StringValue(svc.Region())
	flattenSecurityGroup(&state, out, false)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *securityGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state securityGroupModel

	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)

	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)

	spec, diags := expandSecurityGroupSpec(plan)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := naming.SecurityGroup(spec.Name)
	ctx = tflog.SetField(ctx, "security_group", name)

	svc, err := r.service(ctx, plan)
	if err != nil {
		resp.Diagnostics.AddError("Error updating security group", fmt.Sprintf("%s: %s", name, err))
		return
	}

	before := r.meta.Cloud().RequestCount()

	out, err := svc.EnsureSecurityGroup(ctx, spec, state.ID.ValueString())

	tflog.Debug(ctx, "Updated the security group", map[string]any{"requests": r.meta.Cloud().RequestCount() - before})

	if out == nil {
		resp.Diagnostics.AddError("Error updating security group", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			name, state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))

		return
	}

	newState := plan
	flattenSecurityGroup(&newState, out, err == nil)
	resp.Diagnostics.Append(resp.State.Set(ctx, &newState)...)

	if err != nil {
		resp.Diagnostics.AddError("Error updating security group", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			name, out.ID, svc.ProjectID(), svc.Region(), err))
	}
}

func (r *securityGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state securityGroupModel

	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := state.Name.ValueString()
	ctx = tflog.SetField(ctx, "security_group", naming.SecurityGroup(name))

	svc, err := r.service(ctx, state)
	if err != nil {
		resp.Diagnostics.AddError("Error deleting security group", fmt.Sprintf("%s: %s", naming.SecurityGroup(name), err))
		return
	}

	if err := svc.DeleteSecurityGroup(ctx, name, state.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("Error deleting security group", fmt.Sprintf("%s (%s) in project %s, region %s: %s",
			naming.SecurityGroup(name), state.ID.ValueString(), svc.ProjectID(), svc.Region(), err))
	}
}

func (r *securityGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	loc, region, err := importLocate(ctx, r.meta, req.ID, LocateSecurityGroup)
	if err != nil {
		resp.Diagnostics.AddError("Error importing security group", err.Error())
		return
	}

	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), loc.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("identity_id"), loc.ProjectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), loc.Name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rules"), types.SetValueMust(ruleType, nil))...)
}

func (r *securityGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.meta == nil {
		return
	}

	var region, config types.String

	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("region"), &region)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("region"), &config)...)

	if resp.Diagnostics.HasError() {
		return
	}

	region = adapter.PlanRegion(r.meta.Cloud(), region, config, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("region"), region)...)
}

// expandSecurityGroupSpec turns the plan into the core's spec.
func expandSecurityGroupSpec(plan securityGroupModel) (SecurityGroupSpec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := SecurityGroupSpec{Name: plan.Name.ValueString(), Description: plan.Description.ValueString()}

	for _, elem := range plan.Rules.Elements() {
		obj, ok := elem.(types.Object)
		if !ok {
			continue
		}

		rule, ok := ruleFromConfig(obj)
		if !ok {
			diags.AddAttributeError(path.Root("rules"), "Unknown rule", "A rule is not known yet; rules must be known to apply.")
			continue
		}

		spec.Rules = append(spec.Rules, rule)
	}

	return spec, diags
}

// flattenSecurityGroup writes what Neutron holds into m. complete says that the group is
// known to hold exactly the rules of m (a successful reconciliation), which are kept as they
// are; otherwise each Neutron rule is written in the form m already uses for it, or in the
// canonical form, and Neutron's default egress rules are left out unless m holds them.
func flattenSecurityGroup(m *securityGroupModel, g *SecurityGroup, complete bool) {
	m.ID = types.StringValue(g.ID)
	m.Description = types.StringValue(g.Description)

	if g.ProjectID != "" {
		m.IdentityID = types.StringValue(g.ProjectID)
	}

	if complete && !m.Rules.IsUnknown() && !m.Rules.IsNull() {
		return
	}

	m.Rules = flattenRules(g.Rules, m.Rules)
}

// flattenRules is the rules set of observed, reusing the elements of prior that denote the
// same rules.
func flattenRules(observed []Rule, prior types.Set) types.Set {
	byKey := map[RuleKey][]attr.Value{}

	if !prior.IsNull() && !prior.IsUnknown() {
		for _, elem := range prior.Elements() {
			obj, ok := elem.(types.Object)
			if !ok {
				continue
			}

			if r, ok := ruleFromConfig(obj); ok {
				byKey[r.Key()] = append(byKey[r.Key()], elem)
			}
		}
	}

	elems := make([]attr.Value, 0, len(observed))

	for _, r := range observed {
		k := r.Key()

		if same := byKey[k]; len(same) > 0 {
			elems = append(elems, same[0])
			byKey[k] = same[1:]

			continue
		}

		if r.NeutronDefault {
			continue
		}

		elems = append(elems, ruleObject(r))
	}

	return types.SetValueMust(ruleType, elems)
}

// ruleObject is the canonical form of a rule: port for a single port, remote_ip_prefix and
// description null when they hold their defaults.
func ruleObject(r Rule) types.Object {
	port := types.Int64Null()
	portRange := types.ObjectNull(portRangeAttrTypes)

	switch {
	case r.PortMin == 0 && r.PortMax == 0:
	case r.PortMin == r.PortMax:
		port = types.Int64Value(int64(r.PortMin))
	default:
		portRange = types.ObjectValueMust(portRangeAttrTypes, map[string]attr.Value{
			"max": types.Int64Value(int64(r.PortMax)),
			"min": types.Int64Value(int64(r.PortMin)),
		})
	}

	prefix := types.StringNull()

	switch {
	case r.RemoteGroupID != "":
		prefix = types.StringValue(remoteGroupMarker + r.RemoteGroupID)
	case r.RemoteAddressGroupID != "":
		prefix = types.StringValue(remoteAddressGroupMarker + r.RemoteAddressGroupID)
	case r.RemoteIPPrefix != "" && r.RemoteIPPrefix != DefaultRemoteIPPrefix:
		prefix = types.StringValue(r.RemoteIPPrefix)
	}

	description := types.StringNull()
	if r.Description != "" {
		description = types.StringValue(r.Description)
	}

	return types.ObjectValueMust(ruleAttrTypes, map[string]attr.Value{
		"description":      description,
		"direction":        types.StringValue(r.Direction),
		"port":             port,
		"port_range":       portRange,
		"protocol":         types.StringValue(r.Protocol),
		"remote_ip_prefix": prefix,
	})
}

// securityGroupModel is the resource's data.
type securityGroupModel struct {
	Description types.String   `tfsdk:"description"`
	ID          types.String   `tfsdk:"id"`
	IdentityID  types.String   `tfsdk:"identity_id"`
	Name        types.String   `tfsdk:"name"`
	Region      types.String   `tfsdk:"region"`
	Rules       types.Set      `tfsdk:"rules"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}
