package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	adapter.Meta
	// VolumeClassCache is the volume class listing shared by every volume class data source
	// of the provider process.
	VolumeClassCache() *Cache
}

// NewVolumeClassesDataSource is the constructor the provider lists: unikorn_volume_classes.
func NewVolumeClassesDataSource() datasource.DataSource {
	return adapter.NewCatalogDataSource[meta, Class, Filter, classesModel](classes, "volume_classes",
		"The volume classes of a region: its public Cinder volume types, restricted to the provider's "+
			"`volume_classes.ids` and described by its `volume_classes.metadata` (media, performance tier, encryption), "+
			"filtered. All volume class data sources of a region share one Cinder listing per Terraform run.",
		filterAttributes(), map[string]schema.Attribute{
			"volume_classes": adapter.ComputedList("The volume classes that match every filter, sorted by name (then ID).", classAttributes()),
		})
}

// NewVolumeClassDataSource is the constructor the provider lists: unikorn_volume_class.
func NewVolumeClassDataSource() datasource.DataSource {
	return adapter.NewCatalogDataSource[meta, Class, Filter, classModel](classes, "volume_class",
		"One volume class of a region, described like those of `unikorn_volume_classes` and found with the same "+
			"filters. Exactly one volume class must match; otherwise the error says how many matched and lists them.",
		filterAttributes(), map[string]schema.Attribute{
			"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the volume class found (its Cinder volume type ID)."},
			"volume_class": adapter.ComputedObject("The volume class found, as an element of `unikorn_volume_classes.volume_classes`.", classAttributes()),
		})
}

// classes is the listing of the volume class data sources: a region's public volume types,
// listed once per region and run (VolumeClassCache).
var classes = adapter.CatalogListing[meta, Class, Filter]{
	Noun: "volume classes", Field: "volume_classes",
	List: func(ctx context.Context, m meta, region string) ([]Class, error) {
		cinder, err := m.Cloud().Base().BlockStorage(region)
		if err != nil {
			return nil, err
		}

		return m.VolumeClassCache().Classes(ctx, region, cinder)
	},
	Match: Filter.Match,
}

// filterAttributes are the filters both data sources take.
func filterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"encrypted": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Only volume classes described as encrypted (`true`) or as not encrypted (`false`).",
		},
		"media":       adapter.OneOfFilter("Only volume classes of this media: `ssd`, `hdd` or `nvme`.", Media()...),
		"name":        adapter.TextFilter("Only the volume class (Cinder volume type) of exactly this name."),
		"performance": adapter.TextFilter("Only volume classes of this performance tier."),
		"region":      adapter.RegionFilter("volume classes"),
	}
}

// filterModel holds the filters both data sources take.
type filterModel struct {
	Encrypted   types.Bool   `tfsdk:"encrypted"`
	Media       types.String `tfsdk:"media"`
	Name        types.String `tfsdk:"name"`
	Performance types.String `tfsdk:"performance"`
	Region      types.String `tfsdk:"region"`
}

// Query is the region to list and the core Filter of the model.
func (f *filterModel) Query() (*types.String, Filter) { return &f.Region, f.filter() }

// filter is the core Filter of the model.
func (f filterModel) filter() Filter {
	return Filter{
		Name: f.Name.ValueString(), Media: f.Media.ValueString(), Performance: f.Performance.ValueString(),
		Encrypted: f.Encrypted.ValueBoolPointer(),
	}
}

// classesModel is unikorn_volume_classes.
type classesModel struct {
	filterModel

	VolumeClasses types.List `tfsdk:"volume_classes"`
}

func (m *classesModel) Keep(ctx context.Context, matches []Class, _ string, diags *diag.Diagnostics) {
	m.VolumeClasses = adapter.ListOf(ctx, classType, matches, flattenClass, diags)
}

// singular is the rule of unikorn_volume_class: exactly one match.
var singular = adapter.Singular[Class]{Noun: "volume class", Nouns: "volume classes", Label: label}

// classModel is unikorn_volume_class.
type classModel struct {
	filterModel

	ID          types.String `tfsdk:"id"`
	VolumeClass types.Object `tfsdk:"volume_class"`
}

func (m *classModel) Keep(ctx context.Context, matches []Class, region string, diags *diag.Diagnostics) {
	found, ok := singular.One(matches, region,
		fmt.Sprintf("No volume class in region %s matches the filters (after the provider's volume_classes.ids).", region),
		"Narrow the filters.", diags)
	if !ok {
		return
	}

	m.ID = types.StringValue(found.ID)
	m.VolumeClass = adapter.ObjectOf(ctx, classType, flattenClass(found), diags)
}

// classAttributes describe one volume class of a result.
func classAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Cinder's description of the volume type; null when it has none."},
		"encrypted":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether volumes of the class are encrypted, from the provider's `volume_classes.metadata`; null when not described."},
		"extra_specs": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Cinder's extra specs of the volume type (as far as the service user may see them)."},
		"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "Cinder volume type ID."},
		"media":       schema.StringAttribute{Computed: true, MarkdownDescription: "The storage media (`ssd`, `hdd` or `nvme`) from the provider's `volume_classes.metadata`; null when not described."},
		"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Cinder volume type name: what a volume asks for."},
		"performance": schema.StringAttribute{Computed: true, MarkdownDescription: "The performance tier from the provider's `volume_classes.metadata`; null when not described."},
	}
}

// classType is the object type of one volume class, from its schema.
var classType = adapter.ObjectType(classAttributes())

// classValue is one volume class of a result.
type classValue struct {
	Description types.String `tfsdk:"description"`
	Encrypted   types.Bool   `tfsdk:"encrypted"`
	ExtraSpecs  types.Map    `tfsdk:"extra_specs"`
	ID          types.String `tfsdk:"id"`
	Media       types.String `tfsdk:"media"`
	Name        types.String `tfsdk:"name"`
	Performance types.String `tfsdk:"performance"`
}

// flattenClass is one volume class of a result.
func flattenClass(c Class) classValue {
	return classValue{
		Description: adapter.StringOrNull(c.Description),
		Encrypted:   types.BoolPointerValue(c.Encrypted),
		ExtraSpecs:  adapter.StringMap(c.ExtraSpecs, adapter.NeverNullMap),
		ID:          types.StringValue(c.ID),
		Media:       adapter.StringOrNull(c.Media),
		Name:        types.StringValue(c.Name),
		Performance: adapter.StringOrNull(c.Performance),
	}
}
