package server

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithConfigure   = (*snapshotResource)(nil)
	_ resource.ResourceWithImportState = (*snapshotResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*snapshotResource)(nil)
)

// NewSnapshotResource is the constructor the provider lists: unikorn_server_snapshot.
func NewSnapshotResource() resource.Resource {
	return &snapshotResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "server_snapshot",
		Noun:     "server snapshot",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 5 * time.Minute, Delete: 10 * time.Minute},
	})}
}

// snapshotResource is unikorn_server_snapshot: a server's disk as an organization image.
type snapshotResource struct {
	adapter.ResourceBase[meta]
}

// snapshotModel is the resource's state.
type snapshotModel struct {
	CreatedAt      types.String   `tfsdk:"created_at"`
	ID             types.String   `tfsdk:"id"`
	IdentityID     types.String   `tfsdk:"identity_id"`
	MinDiskGB      types.Int64    `tfsdk:"min_disk_gb"`
	Name           types.String   `tfsdk:"name"`
	OrganizationID types.String   `tfsdk:"organization_id"`
	Properties     types.Map      `tfsdk:"properties"`
	Region         types.String   `tfsdk:"region"`
	ServerID       types.String   `tfsdk:"server_id"`
	SizeBytes      types.Int64    `tfsdk:"size_bytes"`
	Status         types.String   `tfsdk:"status"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
	Visibility     types.String   `tfsdk:"visibility"`
}

// spec is the snapshot m asks for.
func (m snapshotModel) spec() SnapshotSpec {
	return SnapshotSpec{
		Name: m.Name.ValueString(), ServerID: m.ServerID.ValueString(), OrganizationID: m.OrganizationID.ValueString(),
		Visibility: m.Visibility.ValueString(),
	}
}

func (r *snapshotResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A snapshot of a server's disk, published as an organization image: Nova's create-image " +
			"(as the identity's own user, or as the service user in an identity this provider did not make), polled until " +
			"Glance says the image is `active`, then published with `unikorn:organization:id` set, private unless " +
			"`visibility` says `public`. The image lives in the identity's project under `name`, by which it is found " +
			"again.\n\n" +
			"**Unikorn.** Like the snapshots Unikorn's region service takes, the image carries `" + PropertyIdentityID + "`: " +
			"the identity's ID as Unikorn names identities, its Keystone project's name without `unikorn-identity-` (the " +
			"`name` of a `unikorn_identity`; the UUID of an identity Unikorn made, whose user Unikorn then deletes the " +
			"snapshot as). Unikorn lists only public images, so it shows the snapshot to the organization only with " +
			"`visibility = \"public\"`, Unikorn's own shape.\n\n" +
			"**Adoption.** The image carries this provider's creation mark (the property `" + naming.MarkKindKey + "` = `" +
			SnapshotType + "`) from Nova's create-image request, and the completion mark (`" + naming.MarkCompletedKey +
			"` = `true`) from the create's last step (the publish). A create adopts an image of its name only when an " +
			"interrupted create of a `" + SnapshotType + "` of the same server left it unfinished, so that a killed apply " +
			"never leaves a twin; any other image of the name — another configuration's, one taken by hand or by " +
			"`unikorn_server_snapshot_now` — is refused before anything is made, with the `terraform import` command that " +
			"takes it over. A recorded image that is gone is replaced in the state by one of its name only when that one is " +
			"an unfinished create of this kind. The marks are kept by every publish and never show in `properties`.\n\n" +
			"Nova copies the " +
			"properties of the server's image into the snapshot, so the server's Unikorn image properties come with it and " +
			"`unikorn_images` / `unikorn_image` with `organization_id` return it (the stale `unikorn:digest` is removed: " +
			"organization images are not signature-checked). Destroying it deletes the image; Glance refuses while a server " +
			"or volume uses it, and the error says so.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region); the " +
			"provider's configured scope must see every project's images, as an admin's does.",
		Attributes: map[string]schema.Attribute{
			"created_at":  adapter.StableString("When Glance made the image (RFC 3339)."),
			"id":          adapter.IDAttribute("Glance ID of the snapshot image."),
			"identity_id": adapter.IdentityIDAttribute("snapshot"),
			"min_disk_gb": schema.Int64Attribute{Computed: true, MarkdownDescription: "Smallest root disk, in GB, that Nova boots the image on (the server's flavor's)."},
			"name":        adapter.NameAttribute(naming.KindSnapshot, "Glance name of the snapshot image, unique in the identity's project."),
			"organization_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The organization the image is published for: its `" + image.PropertyOrganizationID + "` " +
					"(the image data sources return it for this `organization_id`). Changes in place.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 255)},
			},
			"properties": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The image's Unikorn properties (its `unikorn:` keys) as Glance holds them: those of the " +
					"server's image, and the organization.",
			},
			"region": adapter.RegionAttribute("snapshot"),
			"server_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "ID of the server whose disk is taken (a `unikorn_server` of the identity). Changing it replaces the snapshot.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{adapter.UUID()},
			},
			"size_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Size of the image data in bytes."},
			"status":     schema.StringAttribute{Computed: true, MarkdownDescription: "Glance's status of the image (`active` once made)."},
			"timeouts":   adapter.TimeoutsAttribute(ctx),
			"visibility": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(VisibilityPrivate),
				MarkdownDescription: "Glance visibility the image is published with. `" + VisibilityPrivate + "` (the default): " +
					"only the identity's project (and the cloud's admins) see it; Unikorn does not list it. `" + VisibilityPublic +
					"`: Unikorn's shape of a snapshot, which Unikorn lists for the organization (`organization_id`); but Glance " +
					"then shows the image, a copy of the server's disk, to every project of the cloud — Unikorn's organization " +
					"filter is its own API's, not OpenStack's — so choose it only for disks that hold nothing secret. Making an " +
					"image public is admin-only under stock Glance policy (`publicize_image`): the provider makes that one " +
					"change in its admin scope. The default is private because a snapshot holds whatever the server wrote. " +
					"Changes in place.",
				Validators: []validator.String{stringvalidator.OneOf(Visibilities...)},
			},
		},
	}
}

// snapshots is the snapshot core bound to m's tenant with scope, and, to make or change a public
// snapshot, with the admin scope that publishes it (Snapshots.Publisher).
func (r *snapshotResource) snapshots(ctx context.Context, m snapshotModel, scope cloud.Scope) (*Snapshots, error) {
	t, err := r.Cloud().Tenant(ctx, m.IdentityID.ValueString(), m.Region.ValueString(), scope)
	if err != nil {
		return nil, err
	}

	snaps, err := NewSnapshots(t)
	if err != nil || scope != cloud.AsIdentity || m.Visibility.ValueString() != VisibilityPublic {
		return snaps, err
	}

	admin, err := r.Cloud().Tenant(ctx, m.IdentityID.ValueString(), m.Region.ValueString(), cloud.Admin)
	if err != nil {
		return nil, err
	}

	return snaps, snaps.Publisher(admin)
}

// open reads the model out of src, opens operation opKind on it and runs do with the snapshot
// core bound with scope; what fails before do runs is reported.
func (r *snapshotResource) open(ctx context.Context, opKind adapter.Op, src adapter.Source, scope cloud.Scope, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, m snapshotModel, snaps *Snapshots),
) {
	m, ok := adapter.Get[snapshotModel](ctx, src, diags)
	ctx, op, begun := r.Begin(ctx, opKind, m.Timeouts, diags)
	defer op.End(ctx)

	if !ok || !begun {
		return
	}

	ctx = tflog.SetField(ctx, "snapshot", m.Name.ValueString())

	snaps, err := r.snapshots(ctx, m, scope)
	if err != nil {
		op.Fail(adapter.Subject(m.Name.ValueString(), m.ID.ValueString(), where{IdentityID: m.IdentityID, Region: m.Region}), err)
		return
	}

	do(ctx, op, m, snaps)
}

// Create takes the snapshot (or adopts the one an interrupted apply left), records it, waits
// for Glance to say it is active and publishes it for the organization.
func (r *snapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.open(ctx, adapter.Create, req.Plan, cloud.AsIdentity, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, plan snapshotModel, snaps *Snapshots) {
		spec := plan.spec()

		img, adopted, err := snaps.Take(ctx, spec, true)
		if img == nil {
			op.Fail(adapter.Subject(spec.Name, "", snaps), err)
			return
		}

		if adopted {
			resp.Diagnostics.AddWarning("Adopted an existing snapshot", fmt.Sprintf("The snapshot image %q (%s) of server %s already "+
				"existed in %s, created %s, and was adopted instead of a new one being taken: a create of a "+
				"unikorn_server_snapshot began it and never finished (an interrupted apply leaves such images behind).",
				img.Name, img.ID, spec.ServerID, snaps, when(img.CreatedAt)))
		}

		// Record before waiting: a failed snapshot leaves a tainted resource, never an untracked image.
		flattenSnapshot(&plan, snaps.Region(), SnapshotOf(img))
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

		if err == nil {
			if img, err = snaps.Wait(ctx, img.ID, spec.ServerID, nil); err == nil {
				img, err = snaps.Finish(ctx, img, spec, SnapshotType)
			}
		}

		if img != nil {
			view := SnapshotOf(img)
			flattenSnapshot(&plan, snaps.Region(), view)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			unaccepted(&resp.Diagnostics, view)
		}

		if err != nil {
			op.Fail(adapter.Subject(spec.Name, plan.ID.ValueString(), snaps), err)
		}
	})
}

// unaccepted warns that the image data sources will leave the snapshot out, and why.
func unaccepted(diags *diag.Diagnostics, s *Snapshot) {
	if s.Unaccepted == "" || s.Status != "active" {
		return
	}

	diags.AddWarning("Snapshot not accepted by the image data sources", fmt.Sprintf("The snapshot image %q (%s) does not "+
		"carry valid Unikorn image properties, so unikorn_images and unikorn_image leave it out: %s. The server's image "+
		"lacked them.", s.Name, s.ID, s.Unaccepted))
}

// Read refreshes the snapshot from Glance: one found again by name says so; one that is gone
// leaves the state, so the plan takes it again.
func (r *snapshotResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.open(ctx, adapter.Read, req.State, cloud.Privileged, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, state snapshotModel, snaps *Snapshots) {
		id := state.ID.ValueString()

		obs, err := snaps.Observe(ctx, id, state.Name.ValueString())
		if err != nil {
			op.Fail(adapter.Subject(state.Name.ValueString(), id, snaps), err)
			return
		}

		if obs.Image == nil {
			tflog.Warn(ctx, "The snapshot image is gone; removing it from state", map[string]any{"image_id": id})
			resp.State.RemoveResource(ctx)

			return
		}

		if obs.RefoundFrom != "" {
			resp.Diagnostics.AddWarning("Snapshot found again by name", fmt.Sprintf("The snapshot image %q recorded as %s is gone "+
				"from %s; %s, the image of that name created %s, is taken for it. If it is not the one this configuration made, "+
				"remove this resource from the state before applying.", obs.Image.Name, obs.RefoundFrom, snaps, obs.Image.ID,
				when(obs.Image.CreatedAt)))
		}

		flattenSnapshot(&state, snaps.Region(), SnapshotOf(obs.Image))
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	})
}

// Update publishes the image for another organization or with another visibility (a Glance patch
// of each that changes).
func (r *snapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.open(ctx, adapter.Update, req.Plan, cloud.AsIdentity, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, plan snapshotModel, snaps *Snapshots) {
		id := plan.ID.ValueString()
		subject := adapter.Subject(plan.Name.ValueString(), id, snaps)

		img, err := snaps.Get(ctx, id)
		if err == nil {
			img, err = snaps.Publish(ctx, img, plan.spec())
		}

		if err != nil {
			op.Fail(subject, err)
			return
		}

		flattenSnapshot(&plan, snaps.Region(), SnapshotOf(img))
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	})
}

// Delete deletes the recorded image; already gone is success, in use is a clear error.
func (r *snapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.open(ctx, adapter.Delete, req.State, cloud.Privileged, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, state snapshotModel, snaps *Snapshots) {
		if err := snaps.Delete(ctx, state.ID.ValueString(), state.Name.ValueString()); err != nil {
			op.Fail(adapter.Subject(state.Name.ValueString(), state.ID.ValueString(), snaps), err)
		}
	})
}

// ImportState imports a snapshot image from `REGION/ID`, `REGION/name`, `ID` or `name`, in
// whatever identity's project it is; Read fills in the rest.
func (r *snapshotResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		return LocateSnapshot(ctx, r.Cloud(), region, idOrName)
	})
}

// ModifyPlan applies the region rule.
func (r *snapshotResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p, ok := adapter.OpenPlan[snapshotModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)

	if s := p.State; s != nil && !p.Plan.OrganizationID.Equal(s.OrganizationID) {
		p.Plan.Properties = types.MapUnknown(types.StringType)
	}

	p.Save(ctx, resp)
}

// flattenSnapshot refreshes m from the image s in region.
func flattenSnapshot(m *snapshotModel, region string, s *Snapshot) {
	m.ID = types.StringValue(s.ID)
	m.Name = types.StringValue(s.Name)
	m.Region = types.StringValue(region)
	m.Status = types.StringValue(s.Status)
	m.SizeBytes = types.Int64Value(s.SizeBytes)
	m.MinDiskGB = types.Int64Value(int64(s.MinDiskGB))
	m.Properties = adapter.StringMap(UnikornProperties(s.Properties), adapter.NeverNullMap)
	m.OrganizationID = adapter.StringOrNull(s.OrganizationID)
	if s.Visibility != "" { // a create's first record: Nova's answer does not say
		m.Visibility = types.StringValue(s.Visibility)
	}

	if s.ServerID != "" {
		m.ServerID = types.StringValue(s.ServerID)
	}

	m.CreatedAt = types.StringNull() // a create's first record: Nova's answer does not say
	if !s.CreatedAt.IsZero() {
		m.CreatedAt = types.StringValue(s.CreatedAt.UTC().Format(time.RFC3339))
	}
}
