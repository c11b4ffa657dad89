package provider_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TestSchemaProblems checks the schema check itself on small fake providers: it finds a
// missing description at any depth (nested attributes and blocks, in resources, data sources
// and the provider) and a schema ValidateImplementation rejects, each named by type and path.
func TestSchemaProblems(t *testing.T) {
	t.Parallel()

	described := func(d string) rschema.StringAttribute { return rschema.StringAttribute{Optional: true, Description: d} }

	tests := []struct {
		name     string
		provider *fakeProvider
		want     []problem
		// exact: the problems are exactly want; otherwise they include want.
		exact bool
	}{
		{
			name: "described at every depth",
			provider: &fakeProvider{
				schema: pschema.Schema{Attributes: map[string]pschema.Attribute{
					"endpoint": pschema.StringAttribute{Optional: true, MarkdownDescription: "Endpoint."},
				}},
				resources: []fakeResource{{name: "thing", schema: rschema.Schema{Attributes: map[string]rschema.Attribute{
					"rules": rschema.ListNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Rules.",
						NestedObject:        rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{"port": described("Port.")}},
					},
				}}}},
			},
			exact: true,
		},
		{
			name: "missing descriptions at any depth",
			provider: &fakeProvider{
				schema: pschema.Schema{Attributes: map[string]pschema.Attribute{
					"endpoint": pschema.StringAttribute{Optional: true},
				}},
				resources: []fakeResource{{name: "thing", schema: rschema.Schema{
					Attributes: map[string]rschema.Attribute{
						"top": rschema.StringAttribute{Optional: true},
						"rules": rschema.ListNestedAttribute{
							Optional:            true,
							MarkdownDescription: "Rules.",
							NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
								"match": rschema.SingleNestedAttribute{
									Optional:            true,
									MarkdownDescription: "Match.",
									Attributes: map[string]rschema.Attribute{
										"port":     rschema.Int64Attribute{Optional: true},
										"protocol": described("Protocol."),
									},
								},
							}},
						},
					},
					Blocks: map[string]rschema.Block{
						"legacy": rschema.ListNestedBlock{NestedObject: rschema.NestedBlockObject{
							Attributes: map[string]rschema.Attribute{"value": rschema.StringAttribute{Optional: true}},
						}},
					},
				}}},
				dataSources: []fakeDataSource{{name: "things", schema: dschema.Schema{Attributes: map[string]dschema.Attribute{
					"items": dschema.SetNestedAttribute{
						Computed:            true,
						MarkdownDescription: "Items.",
						NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
							"id": dschema.StringAttribute{Computed: true},
						}},
					},
				}}}},
			},
			want: []problem{
				{"data.fake_things", "items[*].id", "no Description or MarkdownDescription"},
				{"fake_thing", "legacy", "block without a description"},
				{"fake_thing", "legacy[*].value", "no Description or MarkdownDescription"},
				{"fake_thing", "rules[*].match.port", "no Description or MarkdownDescription"},
				{"fake_thing", "top", "no Description or MarkdownDescription"},
				{"provider", "endpoint", "no Description or MarkdownDescription"},
			},
			exact: true,
		},
		{
			name: "ValidateImplementation fails",
			provider: &fakeProvider{resources: []fakeResource{{name: "bad", schema: rschema.Schema{
				Attributes: map[string]rschema.Attribute{"Bad-Name": described("Not a valid attribute name.")},
			}}}},
			want: []problem{{"fake_bad", "", "Invalid Attribute/Block Name: When validating the schema, an implementation issue was " +
				"found. This is always an issue with the provider and should be reported to the provider developers.\n\n" +
				`"Bad-Name" at schema path "Bad-Name" is an invalid attribute/block name. Names must only contain lowercase ` +
				`alphanumeric characters (a-z, 0-9) and underscores (_).`}},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got := schemaProblems(context.Background(), tt.provider)

			if tt.exact && !slices.Equal(got, tt.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", table(got), table(tt.want))
			}

			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("problems do not include %+v:\n%s", w, table(got))
				}
			}
		})
	}
}

// fakeProvider serves the schemas of a test of the schema check.
type fakeProvider struct {
	schema      pschema.Schema
	resources   []fakeResource
	dataSources []fakeDataSource
}

func (p *fakeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fake"
}

func (p *fakeProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = p.schema
}

func (p *fakeProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *fakeProvider) Resources(context.Context) []func() resource.Resource {
	var out []func() resource.Resource
	for _, r := range p.resources {
		out = append(out, func() resource.Resource { return r })
	}

	return out
}

func (p *fakeProvider) DataSources(context.Context) []func() datasource.DataSource {
	var out []func() datasource.DataSource
	for _, d := range p.dataSources {
		out = append(out, func() datasource.DataSource { return d })
	}

	return out
}

type fakeResource struct {
	name   string
	schema rschema.Schema
}

func (r fakeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.name
}

func (r fakeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

func (fakeResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (fakeResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (fakeResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (fakeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

type fakeDataSource struct {
	name   string
	schema dschema.Schema
}

func (d fakeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.name
}

func (d fakeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

func (fakeDataSource) Read(context.Context, datasource.ReadRequest, *datasource.ReadResponse) {}
