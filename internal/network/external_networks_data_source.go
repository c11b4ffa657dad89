package network

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

var _ datasource.DataSourceWithConfigure = (*externalNetworksDataSource)(nil)

// NewExternalNetworksDataSource is the constructor the provider lists.
func NewExternalNetworksDataSource() datasource.DataSource {
	return &externalNetworksDataSource{
		DataSourceBase: adapter.NewDataSourceBase[meta](adapter.Kind{TypeName: "external_networks", Noun: "external networks"}),
	}
}

type externalNetworksDataSource struct {
	adapter.DataSourceBase[meta]
}

var externalNetworkAttrTypes = map[string]attr.Type{
	"description": types.StringType,
	"id":          types.StringType,
	"name":        types.StringType,
	"status":      types.StringType,
	"subnet_ids":  types.ListType{ElemType: types.StringType},
	"tags":        types.SetType{ElemType: types.StringType},
}

func (d *externalNetworksDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The external networks of a region that the provider's `external_networks` selector admits, in " +
			"Neutron's order: what the routers of `unikorn_network` may use. A network without `external_network_id` " +
			"uses the first one (`default_id`).",
		Attributes: map[string]schema.Attribute{
			"default_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "ID of the external network a `unikorn_network` without `external_network_id` routes through; null when there is none.",
			},
			"external_networks": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The admitted external networks.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description."},
						"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "Neutron network ID."},
						"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Name."},
						"status":      schema.StringAttribute{Computed: true, MarkdownDescription: "Neutron status, e.g. `ACTIVE`."},
						"subnet_ids": schema.ListAttribute{
							Computed:            true,
							ElementType:         types.StringType,
							MarkdownDescription: "IDs of the network's subnets.",
						},
						"tags": schema.SetAttribute{
							Computed:            true,
							ElementType:         types.StringType,
							MarkdownDescription: "Neutron tags (what the selector's `tags` match).",
						},
					},
				},
			},
			"region": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Region to list. Default: the provider's `region`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

func (d *externalNetworksDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data externalNetworksDataModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	const summary = "Error listing external networks"

	if !d.Configured() {
		resp.Diagnostics.AddError(summary, "The provider is not configured.")
		return
	}

	client := d.Meta.Cloud()

	region, err := client.ResolveRegion(data.Region.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), adapter.SummaryRegionNotServed, err.Error())
		return
	}

	sc, err := client.Base().Network(region)
	if err == nil {
		var nets []ExternalNetwork

		nets, err = d.Meta.NetworkConfig().ExternalNetworks(ctx, sc, region)
		data.set(region, nets)
	}

	if err != nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("region %s: %s", region, err))
		return
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// set fills the data from the external networks of region.
func (data *externalNetworksDataModel) set(region string, nets []ExternalNetwork) {
	elems := make([]attr.Value, 0, len(nets))

	for _, n := range nets {
		elems = append(elems, types.ObjectValueMust(externalNetworkAttrTypes, map[string]attr.Value{
			"description": types.StringValue(n.Description),
			"id":          types.StringValue(n.ID),
			"name":        types.StringValue(n.Name),
			"status":      types.StringValue(n.Status),
			"subnet_ids":  adapter.StringList(n.SubnetIDs, types.ListValueMust(types.StringType, nil)),
			"tags":        adapter.StringSet(n.Tags, types.SetValueMust(types.StringType, nil)),
		}))
	}

	data.Region = types.StringValue(region)
	data.ExternalNetworks = types.ListValueMust(types.ObjectType{AttrTypes: externalNetworkAttrTypes}, elems)
	data.DefaultID = types.StringNull()

	if len(nets) > 0 {
		data.DefaultID = types.StringValue(nets[0].ID)
	}
}

type externalNetworksDataModel struct {
	DefaultID        types.String `tfsdk:"default_id"`
	ExternalNetworks types.List   `tfsdk:"external_networks"`
	Region           types.String `tfsdk:"region"`
}
