package volume

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*volumeResource)(nil)
	_ resource.ResourceWithImportState = (*volumeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*volumeResource)(nil)
)

// NewResource is the constructor the provider lists: unikorn_volume.
func NewResource() resource.Resource {
	return &volumeResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "volume",
		Noun:     "volume",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 30 * time.Minute, Delete: 30 * time.Minute},
	})}
}

// volumeResource is unikorn_volume: a Cinder volume in a tenant's project.
type volumeResource struct {
	adapter.ResourceBase[meta]
}

// volumeModel is the resource's state.
type volumeModel struct {
	Attachments types.List     `tfsdk:"attachments"`
	Bootable    types.Bool     `tfsdk:"bootable"`
	CreatedAt   types.String   `tfsdk:"created_at"`
	Description types.String   `tfsdk:"description"`
	ID          types.String   `tfsdk:"id"`
	IdentityID  types.String   `tfsdk:"identity_id"`
	ImageID     types.String   `tfsdk:"image_id"`
	Name        types.String   `tfsdk:"name"`
	ProjectID   types.String   `tfsdk:"project_id"`
	Region      types.String   `tfsdk:"region"`
	SizeGB      types.Int64    `tfsdk:"size_gb"`
	SnapshotID  types.String   `tfsdk:"snapshot_id"`
	Status      types.String   `tfsdk:"status"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
	VolumeClass types.String   `tfsdk:"volume_class"`
}

// inProject tells whether the volume lives in a unikorn_project's project (project_id).
func (m volumeModel) inProject() bool { return !m.ProjectID.IsNull() && !m.ProjectID.IsUnknown() }

// spec is the volume m asks for; config says whether the configuration manages the description.
func (m volumeModel) spec(config volumeModel) Spec {
	s := Spec{
		Name: m.Name.ValueString(), SizeGB: int(m.SizeGB.ValueInt64()), Class: config.VolumeClass.ValueString(),
		ImageID: config.ImageID.ValueString(), SnapshotID: config.SnapshotID.ValueString(),
	}

	if !config.Description.IsNull() && !config.Description.IsUnknown() {
		d := config.Description.ValueString()
		s.Description = &d
	}

	return s
}

// attachmentType is an element of attachments.
var attachmentType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"attachment_id": types.StringType, "device": types.StringType, "server_id": types.StringType,
}}

func (r *volumeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	identityID, projectID := adapter.OwnerAttributes("volume")

	resp.Schema = schema.Schema{
		MarkdownDescription: "A Cinder volume (block storage) in an identity's project, or in a `unikorn_project`'s, in a " +
			"region: empty, or made from an image or a volume snapshot. In an identity it is made as the identity's own " +
			"user (like servers), in a project as the service user; it is read, changed and deleted in the privileged " +
			"scope. It is found again by its exact Cinder name `" + naming.Volume("<name>") + "`.\n\n" +
			"**Size.** `size_gb` grows in place (Cinder's extend, also while the volume is attached); Cinder cannot shrink " +
			"a volume, so a smaller size is refused at plan time, also when the volume was grown out of band (the plan says " +
			"so, with the size it has).\n\n" +
			"**Adoption.** The volume carries this provider's creation mark (the metadata `" + naming.MarkKindKey + "` = `" +
			Type + "`) from Cinder's create request, and the completion mark (`" + naming.MarkCompletedKey + "` = `true`) " +
			"once Cinder says it is available. A create adopts a volume of its name only when an interrupted create of a " +
			"`" + Type + "` left it unfinished, so that a killed apply never leaves a twin; any other volume of the name is " +
			"refused before anything is made, with the `terraform import` command that takes it over. Unikorn's region " +
			"service makes no volumes (yet): the name and the marks are this provider's.\n\n" +
			"**Destroy** detaches the volume from every server it is attached to (through Nova), then deletes it. Cinder " +
			"refuses to delete a volume that has snapshots; the error says so, with the command that lists them.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region); the " +
			"provider's configured scope must see every project's volumes, as an admin's does. Requires Cinder's " +
			"microversion " + Microversion + " (Wallaby or later).",
		Attributes: map[string]schema.Attribute{
			"attachments": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The servers the volume is attached to, as Cinder says, sorted by server ID.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"attachment_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Cinder's ID of the attachment."},
					"device":        schema.StringAttribute{Computed: true, MarkdownDescription: "The device the server sees the volume as (`/dev/vdb`)."},
					"server_id":     schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the server."},
				}},
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
			"bootable": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Whether Cinder marks the volume bootable (a volume made from an image is).",
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"created_at": adapter.StableString("When Cinder made the volume (RFC 3339)."),
			"description": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Cinder's description of the volume. Unset: not managed (a new volume has none, an " +
					"imported one keeps its own). Changes in place.",
				Validators: []validator.String{stringvalidator.LengthAtMost(255)},
			},
			"id":          adapter.IDAttribute("Cinder ID of the volume."),
			"identity_id": identityID,
			"image_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "ID of the Glance image the volume is made from (the volume is then bootable, and " +
					"`size_gb` must hold the image). At most one of `image_id` and `snapshot_id`. Unset: the image Cinder " +
					"says the volume's data came from, if any (also through a snapshot). Changing it replaces the volume.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured()},
				Validators: []validator.String{
					adapter.UUID(),
					stringvalidator.ConflictsWith(path.MatchRoot("snapshot_id")),
				},
			},
			"name":       adapter.NameAttribute(naming.KindVolume, "Name of the volume, unique in the project; the Cinder name is `"+naming.Volume("<name>")+"`."),
			"project_id": projectID,
			"region":     adapter.RegionAttribute("volume"),
			"size_gb": schema.Int64Attribute{
				Required: true,
				MarkdownDescription: "Size in GiB. Grows in place (Cinder's extend, also while attached); a smaller size " +
					"is refused at plan time: Cinder cannot shrink a volume.",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"snapshot_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "ID of the Cinder volume snapshot the volume is made from. At most one of `image_id` " +
					"and `snapshot_id`. Unset: the snapshot Cinder says the volume was made from, if any. Changing it " +
					"replaces the volume.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured()},
				Validators:    []validator.String{adapter.UUID()},
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Cinder's status of the volume: `available`, or `in-use` while attached.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"volume_class": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "ID of the volume class (Cinder volume type) of the volume: one of the region's classes " +
					"that `unikorn_volume_classes` lists (the provider's `volume_classes`), checked at plan time. Unset: " +
					"Cinder's default type, recorded here. Changing it replaces the volume.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{adapter.UUID()},
			},
		},
	}
}

// where names a volume's tenant in messages before it is bound.
type where struct{ owner, region types.String }

func (w where) String() string {
	return fmt.Sprintf("project %s, region %s", w.owner.ValueString(), w.region.ValueString())
}

// owner is the project the volume lives in.
func (m volumeModel) owner() types.String {
	if m.inProject() {
		return m.ProjectID
	}

	return m.IdentityID
}

// volumes is the core bound to m's tenant: scope cloud.AsIdentity makes a volume as the
// identity's user, and falls back to the privileged scope in a unikorn_project's project, which
// has no identity user.
func (r *volumeResource) volumes(ctx context.Context, m volumeModel, scope cloud.Scope) (*Volumes, error) {
	c := r.Cloud()
	if c == nil {
		return nil, errors.New("the provider is not configured")
	}

	bind, projectID := c.Tenant, m.IdentityID.ValueString()

	if m.inProject() {
		if !m.IdentityID.IsNull() {
			return nil, errors.New("both identity_id and project_id are set: set exactly one")
		}

		bind, projectID = c.ProjectTenant, m.ProjectID.ValueString()
		if scope == cloud.AsIdentity {
			scope = cloud.Privileged
		}
	}

	t, err := bind(ctx, projectID, m.Region.ValueString(), scope)
	if err != nil {
		return nil, err
	}

	return New(t)
}

// open reads the model out of src, opens operation opKind on it and runs do with the core
// bound with scope; what fails before do runs is reported.
func (r *volumeResource) open(ctx context.Context, opKind adapter.Op, src adapter.Source, scope cloud.Scope, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, m volumeModel, vols *Volumes),
) {
	m, ok := adapter.Get[volumeModel](ctx, src, diags)
	ctx, op, begun := r.Begin(ctx, opKind, m.Timeouts, diags)
	defer op.End(ctx)

	if !ok || !begun {
		return
	}

	ctx = tflog.SetField(ctx, "volume", naming.Volume(m.Name.ValueString()))

	vols, err := r.volumes(ctx, m, scope)
	if err != nil {
		op.Fail(adapter.Subject(m.Name.ValueString(), m.ID.ValueString(), where{m.owner(), m.Region}), err)
		return
	}

	do(ctx, op, m, vols)
}

// Create makes the volume (or adopts the one an interrupted apply left), records it, waits for
// Cinder to say it is available and marks it made.
func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	config, ok := adapter.Get[volumeModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	r.open(ctx, adapter.Create, req.Plan, cloud.AsIdentity, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, plan volumeModel, vols *Volumes) {
		spec := plan.spec(config)

		vol, adopted, err := vols.Make(ctx, spec)
		if vol == nil {
			op.Fail(adapter.Subject(naming.Volume(spec.Name), "", vols), err)
			return
		}

		if adopted {
			resp.Diagnostics.AddWarning("Adopted an existing volume", fmt.Sprintf("The volume %q (%s) already existed in %s, "+
				"created %s, left unfinished by an interrupted create of this provider (it carries the creation mark and no "+
				"completion mark), and was adopted and completed instead of a new one being made.", vol.Name, vol.ID, vols,
				when(vol.CreatedAt)))
		}

		// Record before waiting: a failed create leaves a tainted resource, never an untracked volume.
		flatten(&plan, vols.Region(), vol)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

		if err == nil {
			if vol, err = vols.WaitMade(ctx, vol.ID); err == nil {
				if vol, err = vols.Converge(ctx, vol, spec); err == nil { // an adopted volume of another size or description
					vol, err = vols.Finish(ctx, vol)
				}
			}
		}

		if vol != nil {
			flatten(&plan, vols.Region(), vol)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}

		if err != nil {
			op.Fail(adapter.Subject(naming.Volume(spec.Name), plan.ID.ValueString(), vols), err)
		}
	})
}

// when says when t was, for messages.
func when(t time.Time) string {
	if t.IsZero() {
		return "at a time Cinder does not say"
	}

	return "at " + t.UTC().Format(time.RFC3339)
}

// Read refreshes the volume from Cinder: one found again by name says so; one that is gone
// leaves the state, so the plan makes it again.
func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.open(ctx, adapter.Read, req.State, cloud.Privileged, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, state volumeModel, vols *Volumes) {
		id := state.ID.ValueString()

		obs, err := vols.Observe(ctx, id, state.Name.ValueString())
		if err != nil {
			op.Fail(adapter.Subject(naming.Volume(state.Name.ValueString()), id, vols), err)
			return
		}

		if obs.Volume == nil {
			tflog.Warn(ctx, "The volume is gone; removing it from state", map[string]any{"volume_id": id})
			resp.State.RemoveResource(ctx)

			return
		}

		if obs.RefoundFrom != "" {
			resp.Diagnostics.AddWarning("Found again by name", fmt.Sprintf("The volume %q recorded as %s is gone from %s; %s, "+
				"the volume of that name created %s, carries this provider's creation mark for a %s and no completion mark (an "+
				"interrupted create), so it is taken for it. If it is not the one this configuration made, remove this resource "+
				"from the state before applying or destroying.", obs.Volume.Name, obs.RefoundFrom, vols, obs.Volume.ID, when(obs.Volume.CreatedAt), Type))
		}

		flatten(&state, vols.Region(), obs.Volume)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	})
}

// Update grows the volume and changes its description in place.
func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	config, ok := adapter.Get[volumeModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	r.open(ctx, adapter.Update, req.Plan, cloud.Privileged, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, plan volumeModel, vols *Volumes) {
		id := plan.ID.ValueString()
		subject := adapter.Subject(naming.Volume(plan.Name.ValueString()), id, vols)

		vol, err := vols.Get(ctx, id)
		if err != nil {
			op.Fail(subject, err)
			return
		}

		vol, err = vols.Converge(ctx, vol, plan.spec(config))
		flatten(&plan, vols.Region(), vol)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

		if err != nil {
			op.Fail(subject, err)
		}
	})
}

// Delete detaches and deletes the recorded volume; already gone is success.
func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.open(ctx, adapter.Delete, req.State, cloud.Privileged, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, state volumeModel, vols *Volumes) {
		if err := vols.Delete(ctx, state.ID.ValueString()); err != nil {
			op.Fail(adapter.Subject(naming.Volume(state.Name.ValueString()), state.ID.ValueString(), vols), err)
		}
	})
}

// ImportState imports a volume from `REGION/ID`, `REGION/name`, `ID` or `name`, in whatever
// project it is; Read fills in the rest.
func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		return Locate(ctx, r.Cloud(), region, idOrName)
	})
}

// ModifyPlan applies the region rule, keeps an unmanaged description as the volume has it, and
// refuses at plan time what Cinder would refuse at apply: a smaller size, and a volume class
// the region does not offer.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[volumeModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)

	switch {
	case !p.Config.Description.IsNull():
	case p.State == nil:
		p.Plan.Description = types.StringValue("")
	default:
		p.Plan.Description = p.State.Description
	}

	if s := p.State; s != nil && !p.Plan.SizeGB.IsUnknown() && p.Plan.SizeGB.ValueInt64() < s.SizeGB.ValueInt64() {
		resp.Diagnostics.AddAttributeError(path.Root("size_gb"), "Volume cannot shrink", fmt.Sprintf("The volume %s has %d GiB "+
			"and the configuration asks for %d GiB: Cinder cannot shrink a volume. Set size_gb to %d or more (a size changed "+
			"out of band is kept so), or replace the volume (its data is lost) with terraform apply -replace.",
			s.ID.ValueString(), s.SizeGB.ValueInt64(), p.Plan.SizeGB.ValueInt64(), s.SizeGB.ValueInt64()))
	}

	r.checkClass(ctx, p, &resp.Diagnostics)

	p.Save(ctx, resp)
}

// checkClass refuses, when the volume is made or its class changes, a configured volume class
// that the region does not offer (CheckClass).
func (r *volumeResource) checkClass(ctx context.Context, p *adapter.Plan[volumeModel], diags *diag.Diagnostics) {
	want, region := p.Config.VolumeClass, p.Plan.Region

	switch {
	case !r.Configured(), want.IsNull(), want.IsUnknown(), region.IsUnknown():
		return
	case p.State != nil && p.State.VolumeClass.Equal(want):
		return
	}

	CheckClass(ctx, r.Cloud(), r.Meta.VolumeClassCache(), region.ValueString(), want.ValueString(), path.Root("volume_class"), diags)
}

// CheckClass refuses, at the attribute at, a volume class (ID) that region does not offer: the
// provider's volume_classes, from one Cinder listing per region and run, shared with the volume
// class data sources (cache). When the classes cannot be listed it warns that the class was not
// checked (Cinder checks it when the volume is made).
func CheckClass(ctx context.Context, c *cloud.Client, cache *Cache, region, class string, at path.Path, diags *diag.Diagnostics) {
	cinder, err := c.Base().BlockStorage(region)
	if err == nil {
		var classes []Class

		if classes, err = cache.Classes(ctx, region, cinder); err == nil {
			offered := make([]string, 0, len(classes))

			for _, c := range classes {
				if c.ID == class {
					return
				}

				offered = append(offered, label(c))
			}

			diags.AddAttributeError(at, "Unknown volume class", fmt.Sprintf("Region %s offers no volume "+
				"class %s. Its volume classes (the provider's volume_classes, as unikorn_volume_classes lists them): %s.",
				region, class, orNone(offered)))

			return
		}
	}

	diags.AddAttributeWarning(at, "Volume class not checked", fmt.Sprintf("The volume classes of "+
		"region %s could not be listed, so the volume class was not checked at plan time (Cinder checks it when the volume is "+
		"made): %v", region, err))
}

// orNone joins names, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}

	return strings.Join(names, ", ")
}

// flatten refreshes m from vol in region.
func flatten(m *volumeModel, region string, vol *Volume) {
	m.ID = types.StringValue(vol.ID)
	m.Region = types.StringValue(region)
	m.Status = types.StringValue(vol.Status)
	m.Description = types.StringValue(vol.Description)
	m.Bootable = types.BoolValue(vol.Bootable)
	m.SizeGB = types.Int64Value(int64(vol.SizeGB))
	m.ImageID = adapter.StringOrNull(vol.ImageID)
	m.SnapshotID = adapter.StringOrNull(vol.SnapshotID)

	if name, ok := UserName(vol.Name); ok {
		m.Name = types.StringValue(name)
	}

	if vol.ClassID != "" { // a create's first record: Cinder's answer to the POST may not say
		m.VolumeClass = types.StringValue(vol.ClassID)
	} else if m.VolumeClass.IsUnknown() {
		m.VolumeClass = types.StringNull()
	}

	m.CreatedAt = types.StringNull()
	if !vol.CreatedAt.IsZero() {
		m.CreatedAt = types.StringValue(vol.CreatedAt.UTC().Format(time.RFC3339))
	}

	elems := make([]attr.Value, 0, len(vol.Attachments))
	for _, a := range vol.Attachments {
		elems = append(elems, types.ObjectValueMust(attachmentType.AttrTypes, map[string]attr.Value{
			"attachment_id": types.StringValue(a.AttachmentID), "device": types.StringValue(a.Device),
			"server_id": types.StringValue(a.ServerID),
		}))
	}

	m.Attachments = types.ListValueMust(attachmentType, elems)
}
