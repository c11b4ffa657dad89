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

var _ datasource.DataSourceWithConfigure = (*imageDataSource)(nil)

// NewImageDataSource is the constructor the provider lists.
func NewImageDataSource() datasource.DataSource {
	return &imageDataSource{}
}

type imageDataSource struct {
	meta meta
}

func (d *imageDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_image"
}

func (d *imageDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attributes := filterAttributes()
	attributes["id"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "ID of the image found (the same as `image.id`).",
	}
	attributes["image"] = schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The image found, with the same attributes as an element of `unikorn_images.images`.",
		Attributes:          imageAttributes(),
	}
	attributes["most_recent"] = schema.BoolAttribute{
		Optional:            true,
		MarkdownDescription: "When several images match, pick the newest (latest `created_at`) instead of failing.",
	}
	attributes["rejected"] = rejectedAttribute()

	resp.Schema = schema.Schema{
		MarkdownDescription: "One Glance image of a region, checked and translated like those of `unikorn_images` and found with " +
			"the same filters. Exactly one image must match, unless `most_recent = true` picks the newest; otherwise the error " +
			"says how many matched and lists them. Matching images left out by the schema or signature checks are listed in " +
			"`rejected`, each with a warning, and named in the error when nothing else matches.",
		Attributes: attributes,
	}
}

func (d *imageDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		d.meta = m
	}
}

func (d *imageDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before this data source was read. This is a bug in the provider; please report it.")
		return
	}

	var data singleImageModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_image")

	sel, diags := data.selectImages(ctx, d.meta)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	found, diags := pickOne(sel, data.MostRecent.ValueBool())
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	item, diags := flattenImage(ctx, found)
	resp.Diagnostics.Append(diags...)

	data.Image, diags = types.ObjectValueFrom(ctx, imageAttrTypes, item)
	resp.Diagnostics.Append(diags...)

	data.Rejected, diags = flattenRejected(ctx, sel.rejected)
	resp.Diagnostics.Append(diags...)

	data.ID = types.StringValue(found.ID)

	if resp.Diagnostics.HasError() {
		return
	}

	tflog.Debug(ctx, "Found image", map[string]any{"image_id": found.ID, "image_name": found.Name})

	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// pickOne is the singular's rule: the newest match when mostRecent is set,
// else exactly one match. A failure names the rejected images that would
// have matched.
func pickOne(sel selection, mostRecent bool) (Image, diag.Diagnostics) {
	var diags diag.Diagnostics

	if mostRecent && len(sel.matches) > 0 {
		return MostRecent(sel.matches), nil
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

	return found, diags
}

type singleImageModel struct {
	filterModel

	ID         types.String `tfsdk:"id"`
	Image      types.Object `tfsdk:"image"`
	MostRecent types.Bool   `tfsdk:"most_recent"`
	Rejected   types.List   `tfsdk:"rejected"`
}
