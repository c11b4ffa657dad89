package image

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var (
	_ resource.ResourceWithConfigure      = (*imageResource)(nil)
	_ resource.ResourceWithImportState    = (*imageResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*imageResource)(nil)
	_ resource.ResourceWithValidateConfig = (*imageResource)(nil)
)

// NewImageResource is the constructor the provider lists.
func NewImageResource() resource.Resource {
	return &imageResource{ResourceBase: adapter.NewResourceBase[meta](adapter.Kind{
		TypeName: "image", Noun: "image",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute},
	})}
}

// imageResource is unikorn_image: a region's Glance image, an admin object of the region
// made in the service user's own project (no identity).
type imageResource struct {
	adapter.ResourceBase[meta]
}

// bindManager is the image core of the resolved region in the service user's own scope.
func bindManager(c *cloud.Client, region string) (*Manager, error) {
	sc, err := c.Base().Image(region)
	if err != nil {
		return nil, err
	}

	return NewManager(sc, c.Base().ProjectID(), region, c.AdminRefusal), nil
}

// run is the kit's opening of an admin resource (adapter.OpenAdmin).
func (r *imageResource) run(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, mgr *Manager, m *resourceModel, subject func(id string) string),
) {
	adapter.OpenAdmin[meta, resourceModel](ctx, &r.ResourceBase, opKind, src, diags, bindManager, do)
}

// Create makes (or adopts) the image, records it, imports source_url by web-download, waits
// for it to be active, and converges what changes in place (protection last).
func (r *imageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.run(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, subject func(string) string) {
			spec := expand(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			created, err := mgr.Create(ctx, spec)
			if created.Image == nil {
				op.Fail(subject(""), err)
				return
			}

			if created.Adopted {
				resp.Diagnostics.AddWarning("Adopted an existing image", adoptedDetail(created.Image.Name, created.Image.ID,
					string(created.Image.Status), mgr.Region(), created.Image.CreatedAt))
			}

			// Record before waiting: a failed import leaves a tainted resource, never an untracked image.
			record := func(v *Glance) {
				flatten(plan, v, mgr.Region())
				resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
			}

			record(ViewOf(created.Image, spec.SourceURL))

			if err != nil {
				op.Fail(subject(created.Image.ID), err)
				return
			}

			img, err := mgr.Import(ctx, created.Image, spec.SourceURL)
			if err == nil {
				img, err = mgr.Converge(ctx, img, spec)
			}

			record(ViewOf(img, spec.SourceURL))

			if err != nil {
				op.Fail(subject(created.Image.ID), err)
			}
		})
}

// adoptedDetail says that an existing image was taken over instead of a new one made.
func adoptedDetail(name, id, status, region string, created time.Time) string {
	return fmt.Sprintf("The image %q (%s, status %s) already existed in the service user's project in region %s, created "+
		"at %s, and was adopted instead of a new one being made (an interrupted apply leaves such images behind). If another "+
		"workspace manages it, remove this resource from this configuration.", name, id, status, region,
		created.UTC().Format(time.RFC3339))
}

// Read refreshes every attribute from Glance: an image gone by ID and found again by name is
// said with a warning; one that is gone altogether leaves the state.
func (r *imageResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.run(ctx, adapter.Read, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, state *resourceModel, subject func(string) string) {
			obs, err := mgr.Observe(ctx, state.ID.ValueString(), state.Name.ValueString())
			if err != nil {
				op.Fail(subject(state.ID.ValueString()), err)
				return
			}

			if obs.Image == nil {
				tflog.Warn(ctx, "The image is gone; removing it from state", map[string]any{"image_id": state.ID.ValueString()})
				resp.State.RemoveResource(ctx)

				return
			}

			if obs.RefoundFrom != "" {
				resp.Diagnostics.AddWarning("Found again by name", fmt.Sprintf(
					"The image %q recorded as %s is gone from region %s; %s, the image of that name created at %s, is taken "+
						"for it. If it is not the one this configuration made, remove this resource from the state before "+
						"applying or destroying.", obs.Image.Name, obs.RefoundFrom, mgr.Region(), obs.Image.ID,
					obs.Image.CreatedAt.UTC().Format(time.RFC3339)))
			}

			// The source is known from the state, except after an import or a re-find: Glance's
			// import task says it then (while Glance keeps it).
			source := ""
			if state.SourceURL.IsNull() || obs.RefoundFrom != "" {
				if source, err = mgr.SourceURL(ctx, obs.Image.ID); err != nil {
					tflog.Warn(ctx, "Could not read the image's import task", map[string]any{"error": err.Error()})
				}
			}

			flatten(state, ViewOf(obs.Image, source), mgr.Region())
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		})
}

// Update converges visibility, protection, tags, minimums, properties and organization in
// place (one JSON patch).
func (r *imageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.run(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, subject func(string) string) {
			spec := expand(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			id := plan.ID.ValueString()

			img, err := mgr.Get(ctx, id)
			if err == nil {
				img, err = mgr.Converge(ctx, img, spec)
			}

			if err != nil {
				op.Fail(subject(id), err)
				return
			}

			flatten(plan, ViewOf(img, spec.SourceURL), mgr.Region())
			resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		})
}

// Delete deletes the recorded image (unprotecting it first when it is recorded as protected:
// the plan allowed that); already gone is success.
func (r *imageResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.run(ctx, adapter.Delete, req.State, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, state *resourceModel, subject func(string) string) {
			id := state.ID.ValueString()
			if err := mgr.Delete(ctx, id, state.Name.ValueString(), state.Protected.ValueBool()); err != nil {
				op.Fail(subject(id), err)
			}
		})
}

// ImportState imports by `REGION/ID`, `REGION/name`, `ID` or `name` (a bare one means the
// provider's default region); Read fills in the rest.
func (r *imageResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportRegional(ctx, req, resp, func(ctx context.Context, region, idOrName string) (cloud.Located, error) {
		mgr, err := bindManager(r.Cloud(), region)
		if err != nil {
			return cloud.Located{}, err
		}

		img, err := mgr.Locate(ctx, idOrName)
		if err != nil {
			return cloud.Located{}, err
		}

		return cloud.Located{ID: img.ID, Name: img.Name}, nil
	})
}

// ValidateConfig checks the Unikorn properties and the organization's visibility.
func (r *imageResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[resourceModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	checkProperties(config, &resp.Diagnostics)
}

// ModifyPlan applies the region rule and refuses, at plan time, to destroy or replace a
// protected image unless the same change turns protection off.
func (r *imageResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		planDestroy(ctx, req, &resp.Diagnostics)
		return
	}

	p, ok := adapter.OpenPlan[resourceModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}

	p.Plan.Region = r.PlanRegion(p.Plan.Region, p.Config.Region, &resp.Diagnostics)

	if s := p.State; s != nil && s.Protected.ValueBool() && !p.Plan.Protected.Equal(types.BoolValue(false)) {
		if why := replacedBy(p.Plan, p.Config, *s); len(why) > 0 {
			resp.Diagnostics.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
				"The change replaces the protected image %q (%s), which deletes it (a new %s). Set protected = false in the "+
					"same change to allow that, or apply protected = false first.",
				s.Name.ValueString(), s.ID.ValueString(), strings.Join(why, ", ")))
		}
	}

	p.Save(ctx, resp)
}

// replacedBy names the attributes whose known planned values replace the image (the
// attributes' own plan modifiers decide the same; the resource's ModifyPlan does not see them).
func replacedBy(plan, config, state resourceModel) []string {
	var why []string

	for _, a := range []struct {
		name         string
		planned, was types.String
		replaces     bool
	}{
		{"name", plan.Name, state.Name, true},
		{"disk_format", plan.DiskFormat, state.DiskFormat, true},
		{"container_format", plan.ContainerFormat, state.ContainerFormat, true},
		{"source_url", plan.SourceURL, state.SourceURL, !state.SourceURL.IsNull()},
		{"region", config.Region, state.Region, !config.Region.IsNull()},
	} {
		if a.replaces && !a.planned.IsUnknown() && !a.planned.Equal(a.was) {
			why = append(why, a.name)
		}
	}

	return why
}

// planDestroy refuses to destroy an image that is protected in the state.
func planDestroy(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if req.State.Raw.IsNull() {
		return
	}

	var protected types.Bool

	var name, id types.String

	diags.Append(req.State.GetAttribute(ctx, path.Root("protected"), &protected)...)
	diags.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	diags.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)

	if protected.ValueBool() {
		diags.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
			"The image %q (%s) is protected: Glance refuses to delete it, and so does this plan. Apply protected = false "+
				"first, then destroy it.", name.ValueString(), id.ValueString()))
	}
}
