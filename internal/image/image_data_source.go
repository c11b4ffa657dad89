package image

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// NewImageDataSource is the constructor the provider lists.
func NewImageDataSource() datasource.DataSource {
	return newDataSource[singleImageModel]("image",
		"One Glance image of a region, checked and translated like those of `unikorn_images` and found with "+
			"the same filters. Exactly one image must match, unless `most_recent = true` picks the newest; otherwise the error "+
			"says how many matched and lists them. Matching images left out by the schema or signature checks are listed in "+
			"`rejected`, each with a warning, and named in the error when nothing else matches.",
		map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the image found (the same as `image.id`)."},
			"image": adapter.ComputedObject("The image found, with the same attributes as an element of `unikorn_images.images`.",
				imageAttributes()),
			"most_recent": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "When several images match, pick the newest (latest `created_at`) instead of failing.",
			},
		})
}

type singleImageModel struct {
	filterModel

	ID         types.String `tfsdk:"id"`
	Image      types.Object `tfsdk:"image"`
	MostRecent types.Bool   `tfsdk:"most_recent"`
	Rejected   types.List   `tfsdk:"rejected"`
}

func (m *singleImageModel) keep(ctx context.Context, sel selection, diags *diag.Diagnostics) {
	found, ok := pickOne(sel, m.MostRecent.ValueBool(), diags)
	if !ok {
		return
	}

	m.Image = adapter.ObjectOf(ctx, imageType, flattenImage(ctx, found, diags), diags)
	m.ID = types.StringValue(found.ID)
	m.Rejected = flattenRejected(ctx, sel.rejected, diags)

	tflog.Debug(ctx, "Found image", map[string]any{"image_id": found.ID, "image_name": found.Name})
}

// pickOne is the singular's rule: the newest match when mostRecent is set,
// else exactly one match. A failure names the rejected images that would
// have matched; false when there is none to pick (the diagnostics say why).
func pickOne(sel selection, mostRecent bool, diags *diag.Diagnostics) (Image, bool) {
	if mostRecent && len(sel.matches) > 0 {
		return MostRecent(sel.matches), true
	}

	found, err := ExactlyOne(sel.matches)

	switch {
	case errors.Is(err, ErrNoMatch):
		detail := fmt.Sprintf("No image in region %s matches the filters.", sel.region)
		if len(sel.rejected) > 0 {
			reasons := make([]string, len(sel.rejected))
			for i, r := range sel.rejected {
				reasons[i] = fmt.Sprintf("%s (%s): %s", r.Name, r.ID, r.Reason)
			}

			detail += fmt.Sprintf(" Left out because of the schema or the signature check, though they match:\n%s", strings.Join(reasons, "\n"))
		}

		diags.AddError("No image found", detail)
	case errors.Is(err, ErrAmbiguous):
		diags.AddError("Several images found",
			fmt.Sprintf("In region %s: %s. Narrow the filters, or set most_recent = true to pick the newest.", sel.region, err))
	case err != nil:
		diags.AddError("Error selecting an image", err.Error())
	}

	return found, err == nil
}
