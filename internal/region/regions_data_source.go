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

// NewRegionsDataSource is the constructor the provider lists.
func NewRegionsDataSource() datasource.DataSource {
	return adapter.NewDataSource(adapter.Kind{TypeName: "regions", Noun: "regions"},
		adapter.DataSourceSchema("The regions this provider serves (its `regions` argument), as the Keystone catalog describes them: "+
			"each region's services and their endpoints. Every region listed here passed the provider's catalog check.",
			map[string]schema.Attribute{
				"default_region": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "The provider's default region, used by regional resources that set no `region`.",
				},
				"regions": adapter.ComputedList("The served regions, in the order of the provider's `regions` argument.", regionAttributes()),
			}),
		func(ctx context.Context, m adapter.Meta, data *regionsModel, diags *diag.Diagnostics) {
			c := m.Cloud()
			data.DefaultRegion = types.StringValue(c.DefaultRegion())
			data.Regions = flattenRegions(ctx, c.Catalog(), diags)
		})
}

// regionAttributes describe one served region.
func regionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name":     schema.StringAttribute{Computed: true, MarkdownDescription: "Region name, as in the Keystone catalog."},
		"services": adapter.ComputedList("The catalog services that have endpoints in this region, sorted by type.", serviceAttributes()),
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

// flattenRegions is the catalog as the data source reports it.
func flattenRegions(ctx context.Context, catalog []cloud.CatalogRegion, diags *diag.Diagnostics) types.List {
	serviceType := adapter.ObjectType(serviceAttributes())

	return adapter.ListOf(ctx, adapter.ObjectType(regionAttributes()), catalog, func(r cloud.CatalogRegion) regionModel {
		return regionModel{Name: types.StringValue(r.Name), Services: adapter.ListOf(ctx, serviceType, r.Services, flattenService, diags)}
	}, diags)
}

// flattenService is one catalog service of a region: its endpoints by interface.
func flattenService(s cloud.CatalogService) serviceModel {
	endpoints := make(map[string]string, len(s.Endpoints))
	for _, e := range s.Endpoints {
		endpoints[e.Interface] = e.URL
	}

	return serviceModel{Endpoints: adapter.StringMap(endpoints, adapter.NeverNullMap), Name: types.StringValue(s.Name), Type: types.StringValue(s.Type)}
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
