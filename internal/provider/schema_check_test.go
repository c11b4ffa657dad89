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

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
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
				resources: []resource.Resource{fakeResource("thing", rschema.Schema{Attributes: map[string]rschema.Attribute{
					"rules": rschema.ListNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Rules.",
						NestedObject:        rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{"port": described("Port.")}},
					},
				}})},
			},
			exact: true,
		},
		{
			name: "missing descriptions at any depth",
			provider: &fakeProvider{
				schema: pschema.Schema{Attributes: map[string]pschema.Attribute{
					"endpoint": pschema.StringAttribute{Optional: true},
				}},
				resources: []resource.Resource{fakeResource("thing", rschema.Schema{
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
				})},
				dataSources: []datasource.DataSource{fakeDataSource("things", dschema.Schema{Attributes: map[string]dschema.Attribute{
					"items": dschema.SetNestedAttribute{
						Computed:            true,
						MarkdownDescription: "Items.",
						NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
							"id": dschema.StringAttribute{Computed: true},
						}},
					},
				}})},
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
			provider: &fakeProvider{resources: []resource.Resource{fakeResource("bad", rschema.Schema{
				Attributes: map[string]rschema.Attribute{"Bad-Name": described("Not a valid attribute name.")},
			})}},
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
	resources   []resource.Resource
	dataSources []datasource.DataSource
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
	return constructors(p.resources)
}

func (p *fakeProvider) DataSources(context.Context) []func() datasource.DataSource {
	return constructors(p.dataSources)
}

// constructors are constructors of the given values, as a provider lists them.
func constructors[T any](values []T) []func() T {
	out := make([]func() T, len(values))
	for i, v := range values {
		out[i] = func() T { return v }
	}

	return out
}

// fakeDataSource is the data source unikorn_<name>, written on the kit, that serves s.
func fakeDataSource(name string, s dschema.Schema) datasource.DataSource {
	return adapter.NewDataSource[adapter.Meta, struct{}](adapter.Kind{TypeName: name, Noun: name}, s, nil)
}

// fakeResource is the resource unikorn_<name>, written on the kit, that serves s.
func fakeResource(name string, s rschema.Schema) resource.Resource {
	return &schemaOnlyResource{ResourceBase: adapter.NewResourceBase[adapter.Meta](adapter.Kind{TypeName: name, Noun: name}), schema: s}
}

type schemaOnlyResource struct {
	adapter.ResourceBase[adapter.Meta]

	schema rschema.Schema
}

func (r *schemaOnlyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

func (*schemaOnlyResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {
}
func (*schemaOnlyResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}
func (*schemaOnlyResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {
}
func (*schemaOnlyResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
