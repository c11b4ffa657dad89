package volume

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// Argument is the provider argument of this package.
const Argument = "volume_classes"

// ProviderAttributes are the provider arguments that configure volume classes:
// `volume_classes = { ids = [...], metadata = [{ id, media, performance, encrypted }] }`.
func ProviderAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		Argument: schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Which Cinder volume types the volume class data sources offer, and what the operator knows " +
				"about them. Unset: every public volume type, undescribed.",
			Attributes: map[string]schema.Attribute{
				"ids": adapter.StringSetArgument("Cinder volume type IDs that are offered; other public types are left out. " +
					"Unset: every public volume type."),
				"metadata": schema.ListNestedAttribute{
					Optional: true,
					MarkdownDescription: "What Cinder does not say about volume types, keyed by volume type `id` (each ID at most " +
						"once). A description of a type Cinder does not list (or `ids` leaves out) has no effect.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"encrypted": schema.BoolAttribute{Optional: true, MarkdownDescription: "Volumes of the type are encrypted at rest. Unset: unknown."},
						"id": schema.StringAttribute{
							Required: true, MarkdownDescription: "Cinder volume type ID.",
							Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
						},
						"media": schema.StringAttribute{
							Optional: true, MarkdownDescription: "The storage media: `ssd`, `hdd` or `nvme`. Unset: unknown.",
							Validators: []validator.String{stringvalidator.OneOf(Media()...)},
						},
						"performance": schema.StringAttribute{
							Optional: true, MarkdownDescription: "The performance tier, free text (e.g. `standard`, `high`). Unset: unknown.",
							Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
						},
					}},
					Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				},
			},
		},
	}
}

// settingsModel is the provider argument volume_classes.
type settingsModel struct {
	IDs      types.Set  `tfsdk:"ids"`
	Metadata types.List `tfsdk:"metadata"`
}

// descriptionModel is one element of volume_classes.metadata.
type descriptionModel struct {
	Encrypted   types.Bool   `tfsdk:"encrypted"`
	ID          types.String `tfsdk:"id"`
	Media       types.String `tfsdk:"media"`
	Performance types.String `tfsdk:"performance"`
}

// ExpandSettings turns the provider argument volume_classes into Settings: values only known
// after apply and an ID described twice are attribute errors; a description of a type that ids
// leaves out is a warning.
func ExpandSettings(ctx context.Context, v types.Object) (Settings, diag.Diagnostics) {
	var diags diag.Diagnostics

	root := path.Root(Argument)

	m, ok := adapter.ReadObjectArgument[settingsModel](ctx, root, v, &diags)
	if !ok {
		return Settings{}, diags
	}

	settings := Settings{
		IDs:          adapter.ReadStringSetArgument(ctx, root.AtName("ids"), m.IDs, &diags),
		Descriptions: map[string]Description{},
	}

	first := map[string]int{}
	duplicate := adapter.Keyed{Summary: "Duplicate volume class description", Subject: "Volume type", Each: "volume type"}

	for _, e := range adapter.ReadListArgument[descriptionModel](ctx, root.AtName("metadata"), m.Metadata, &diags) {
		d, p := e.Value, e.At

		id := d.ID.ValueString()
		if duplicate.Duplicate(first, id, e.Index, root.AtName("metadata"), &diags) {
			continue
		}

		settings.Descriptions[id] = Description{
			Media: d.Media.ValueString(), Performance: d.Performance.ValueString(), Encrypted: d.Encrypted.ValueBoolPointer(),
		}

		if len(settings.IDs) > 0 && !slices.Contains(settings.IDs, id) {
			diags.AddAttributeWarning(p.AtName("id"), "Volume class description without effect",
				fmt.Sprintf("Volume type %q is described but not offered by %s.ids, so the data sources never return it.", id, Argument))
		}
	}

	return settings, diags
}
