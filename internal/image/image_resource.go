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
	_ resource.ResourceWithImportState    = (*imageResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*imageResource)(nil)
	_ resource.ResourceWithValidateConfig = (*imageResource)(nil)
)

// NewImageResource is the constructor the provider lists.
func NewImageResource() resource.Resource {
	return &imageResource{adapter.NewRegionalAdmin[meta, *Manager, resourceModel](adapter.Kind{
		TypeName: "image", Noun: "image",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute},
	}, adapter.AdminOps[meta, *Manager, resourceModel]{
		Bind:    func(_ meta, c *cloud.Client, region string) (*Manager, error) { return bindManager(c, region) },
		Observe: observe,
		// Unprotecting it first when it is recorded as protected: the plan allowed that.
		Delete: func(ctx context.Context, mgr *Manager, m *resourceModel) error {
			return mgr.Delete(ctx, m.ID.ValueString(), m.Name.ValueString(), m.Protected.ValueBool())
		},
		Locate: func(ctx context.Context, mgr *Manager, idOrName string) (cloud.Located, error) {
			img, err := mgr.Locate(ctx, idOrName)
			if err != nil {
				return cloud.Located{}, err
			}

			return cloud.Located{ID: img.ID, Name: img.Name}, nil
		},
		ModifyPlan: checkPlan,
	})}
}

// imageResource is unikorn_image: a region's Glance image, an admin object of the region
// made in the service user's own project (no identity): the kit's regional admin resource
// (Read, Delete, ImportState, ModifyPlan) with its Create, Update and ValidateConfig.
type imageResource struct {
	adapter.RegionalAdmin[meta, *Manager, resourceModel, *resourceModel]
}

// bindManager is the image core of the resolved region in the service user's own scope.
func bindManager(c *cloud.Client, region string) (*Manager, error) {
	sc, err := c.Base().Image(region)
	if err != nil {
		return nil, err
	}

	return NewManager(sc, c.Base().ProjectID(), region, c.AdminRefusal), nil
}

// Create makes (or adopts) the image, records it, imports source_url by web-download, waits
// for it to be active, and converges what changes in place (protection last).
func (r *imageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, region adapter.InRegion, subject func(string) string) {
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
				r.Adopted(&resp.Diagnostics, created.Image.Name, created.Image.ID, fmt.Sprintf(
					"in the service user's project in %s (status %s, created at %s)", region, created.Image.Status,
					created.Image.CreatedAt.UTC().Format(time.RFC3339)))
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

// observe reads the recorded image again: by ID, else found again by name. The source is
// known from the state, except after an import or a re-find: Glance's import task says it then
// (while Glance keeps it).
func observe(ctx context.Context, mgr *Manager, m *resourceModel, _ *diag.Diagnostics) (adapter.Observed, error) {
	obs, err := mgr.Observe(ctx, m.ID.ValueString(), m.Name.ValueString())
	if obs.Image == nil || err != nil {
		return adapter.Observed{Gone: err == nil}, err
	}

	source := ""
	if m.SourceURL.IsNull() || obs.RefoundFrom != "" {
		if source, err = mgr.SourceURL(ctx, obs.Image.ID); err != nil {
			tflog.Warn(ctx, "Could not read the image's import task", map[string]any{"error": err.Error()})
		}
	}

	flatten(m, ViewOf(obs.Image, source), mgr.Region())

	return adapter.Observed{
		RefoundFrom: obs.RefoundFrom, Name: obs.Image.Name, ID: obs.Image.ID,
		Detail: " created at " + obs.Image.CreatedAt.UTC().Format(time.RFC3339),
	}, nil
}

// Update converges visibility, protection, tags, minimums, properties and organization in
// place (one JSON patch).
func (r *imageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, _ adapter.InRegion, subject func(string) string) {
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

// ValidateConfig checks the Unikorn properties and the organization's visibility.
func (r *imageResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[resourceModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	checkProperties(config, &resp.Diagnostics)
}

// checkPlan refuses, at plan time, to destroy or replace a protected image unless the same
// change turns protection off.
func checkPlan(_ context.Context, plan, config, state *resourceModel, diags *diag.Diagnostics) {
	switch {
	case state == nil || !state.Protected.ValueBool():
	case plan == nil:
		diags.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
			"The image %q (%s) is protected: Glance refuses to delete it, and so does this plan. Apply protected = false "+
				"first, then destroy it.", state.Name.ValueString(), state.ID.ValueString()))
	case !plan.Protected.Equal(types.BoolValue(false)):
		if why := replacedBy(*plan, *config, *state); len(why) > 0 {
			diags.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
				"The change replaces the protected image %q (%s), which deletes it (a new %s). Set protected = false in the "+
					"same change to allow that, or apply protected = false first.",
				state.Name.ValueString(), state.ID.ValueString(), strings.Join(why, ", ")))
		}
	}
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
