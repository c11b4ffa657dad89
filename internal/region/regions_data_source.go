// Package region owns the Unikorn concept of a region: one OpenStack region behind the shared
// Keystone. For now it holds the unikorn_regions data source; region preparation resources
// (flavors, images, provider networks) join it later.
package region

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var _ datasource.DataSourceWithConfigure = (*regionsDataSource)(nil)

// meta is what this package needs from the provider's client bundle.
type meta interface {
	Cloud() *cloud.Client
}

// NewRegionsDataSource is the constructor the provider lists.
func NewRegionsDataSource() datasource.DataSource {
	return &regionsDataSource{}
}

type regionsDataSource struct {
	meta meta
}

func (d *regionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_regions"
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
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name": schema.StringAttribute{
							Computed:            true,
							MarkdownDescription: "Region name, as in the Keystone catalog.",
						},
						"services": schema.ListNestedAttribute{
							Computed:            true,
							MarkdownDescription: "The catalog services that have endpoints in this region, sorted by type.",
							NestedObject: schema.NestedAttributeObject{
								Attributes: map[string]schema.Attribute{
									"endpoints": schema.MapAttribute{
										Computed:            true,
										ElementType:         types.StringType,
										MarkdownDescription: "Endpoint URL by interface (`public`, `internal`, `admin`).",
									},
									"name": schema.StringAttribute{
										Computed:            true,
										MarkdownDescription: "Service name, e.g. `nova`.",
									},
									"type": schema.StringAttribute{
										Computed:            true,
										MarkdownDescription: "Service type, e.g. `compute`, `network`, `load-balancer`.",
									},
								},
							},
						},
					},
				},
			},
		},
	}
}

func (d *regionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if m, ok := adapter.ProviderData[meta](req.ProviderData, &resp.Diagnostics); ok {
		d.meta = m
	}
}

func (d *regionsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	client := d.meta.Cloud()

	regions, diags := flattenRegions(client.Catalog())
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	state := regionsModel{
		DefaultRegion: types.StringValue(client.DefaultRegion()),
		Regions:       regions,
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func flattenRegions(catalog []cloud.CatalogRegion) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics

	regions := make([]attr.Value, 0, len(catalog))

	for _, r := range catalog {
		services := make([]attr.Value, 0, len(r.Services))

		for _, s := range r.Services {
			endpoints := make(map[string]attr.Value, len(s.Endpoints))
			for _, e := range s.Endpoints {
				endpoints[e.Interface] = types.StringValue(e.URL)
			}

			endpointMap, d := types.MapValue(types.StringType, endpoints)
			diags.Append(d...)

			service, d := types.ObjectValue(serviceAttrTypes, map[string]attr.Value{
				"endpoints": endpointMap,
				"name":      types.StringValue(s.Name),
				"type":      types.StringValue(s.Type),
			})
			diags.Append(d...)

			services = append(services, service)
		}

		serviceList, d := types.ListValue(types.ObjectType{AttrTypes: serviceAttrTypes}, services)
		diags.Append(d...)

		region, d := types.ObjectValue(regionAttrTypes, map[string]attr.Value{
			"name":     types.StringValue(r.Name),
			"services": serviceList,
		})
		diags.Append(d...)

		regions = append(regions, region)
	}

	list, d := types.ListValue(types.ObjectType{AttrTypes: regionAttrTypes}, regions)
	diags.Append(d...)

	return list, diags
}

var serviceAttrTypes = map[string]attr.Type{
	"endpoints": types.MapType{ElemType: types.StringType},
	"name":      types.StringType,
	"type":      types.StringType,
}

var regionAttrTypes = map[string]attr.Type{
	"name":     types.StringType,
	"services": types.ListType{ElemType: types.ObjectType{AttrTypes: serviceAttrTypes}},
}

type regionsModel struct {
	DefaultRegion types.String `tfsdk:"default_region"`
	Regions       types.List   `tfsdk:"regions"`
}
