// Package region owns the Unikorn concept of a region: one OpenStack region behind the shared
// Keystone. For now it holds the unikorn_regions data source; region preparation resources
// (flavors, images, provider networks) join it later.
package region

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var _ datasource.DataSourceWithConfigure = (*regionsDataSource)(nil)

// NewRegionsDataSource is the constructor the provider lists.
func NewRegionsDataSource() datasource.DataSource {
	return &regionsDataSource{
		DataSourceBase: adapter.NewDataSourceBase[adapter.Meta](adapter.Kind{TypeName: "regions", Noun: "regions"}),
	}
}

type regionsDataSource struct {
	adapter.DataSourceBase[adapter.Meta]
}

func (d *regionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The regions this provider serves (its `regions` argument), as the Keystone catalog describes them: " +
			"each region's services and their endpoints. Every region listed here passed the provider's catalog check.",
		Attributes: map[string]schema.Attribute{
			"default_region": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The provider's default region, used by regional resources that set no `region`.",
			},
			"regions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The served regions, in the order of the provider's `regions` argument.",
				NestedObject:        schema.NestedAttributeObject{Attributes: regionAttributes()},
			},
		},
	}
}

// regionAttributes describe one served region.
func regionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Region name, as in the Keystone catalog."},
		"services": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The catalog services that have endpoints in this region, sorted by type.",
			NestedObject:        schema.NestedAttributeObject{Attributes: serviceAttributes()},
		},
	}
}

// serviceAttributes describe one catalog service of a region.
func serviceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"endpoints": schema.MapAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Endpoint URL by interface (`public`, `internal`, `admin`).",
		},
		"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Service name, e.g. `nova`."},
		"type": schema.StringAttribute{Computed: true, MarkdownDescription: "Service type, e.g. `compute`, `network`, `load-balancer`."},
	}
}

func (d *regionsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !d.Configured() {
		resp.Diagnostics.AddError("Error reading regions", "The provider is not configured.")
		return
	}

	c := d.Meta.Cloud()
	state := regionsModel{
		DefaultRegion: types.StringValue(c.DefaultRegion()),
		Regions:       flattenRegions(ctx, c.Catalog(), &resp.Diagnostics),
	}

	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// flattenRegions is the catalog as the data source reports it.
func flattenRegions(ctx context.Context, catalog []cloud.CatalogRegion, diags *diag.Diagnostics) types.List {
	regions := make([]regionModel, len(catalog))

	for i, r := range catalog {
		services := make([]serviceModel, len(r.Services))

		for j, s := range r.Services {
			endpoints := make(map[string]string, len(s.Endpoints))
			for _, e := range s.Endpoints {
				endpoints[e.Interface] = e.URL
			}

			m, d := types.MapValueFrom(ctx, types.StringType, endpoints)
			diags.Append(d...)

			services[j] = serviceModel{Endpoints: m, Name: types.StringValue(s.Name), Type: types.StringValue(s.Type)}
		}

		regions[i] = regionModel{Name: types.StringValue(r.Name), Services: listOf(ctx, serviceAttributes(), services, diags)}
	}

	return listOf(ctx, regionAttributes(), regions, diags)
}

// listOf is the list of the objects described by attributes made of elems.
func listOf(ctx context.Context, attributes map[string]schema.Attribute, elems any, diags *diag.Diagnostics) types.List {
	list, d := types.ListValueFrom(ctx, schema.NestedAttributeObject{Attributes: attributes}.Type(), elems)
	diags.Append(d...)

	return list
}

type regionsModel struct {
	DefaultRegion types.String `tfsdk:"default_region"`
	Regions       types.List   `tfsdk:"regions"`
}

// regionModel is one region.
type regionModel struct {
	Name     types.String `tfsdk:"name"`
	Services types.List   `tfsdk:"services"`
}

// serviceModel is one catalog service of a region.
type serviceModel struct {
	Endpoints types.Map    `tfsdk:"endpoints"`
	Name      types.String `tfsdk:"name"`
	Type      types.String `tfsdk:"type"`
}
