package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// TestMetaServesEveryConcept: every resource and data source the provider lists accepts the
// provider's client bundle in Configure. Each concept asserts the small interface it needs of
// Meta at run time, so a method Meta lacks would otherwise only show as "Unexpected provider
// data" on a real apply.
func TestMetaServesEveryConcept(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	p := &unikornProvider{}
	meta := &Meta{}

	for _, newResource := range p.Resources(ctx) {
		r := newResource()

		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "unikorn"}, &md)

		c, ok := r.(resource.ResourceWithConfigure)
		if !ok {
			t.Errorf("%s has no Configure", md.TypeName)

			continue
		}

		var resp resource.ConfigureResponse
		c.Configure(ctx, resource.ConfigureRequest{ProviderData: meta}, &resp)

		if resp.Diagnostics.HasError() {
			t.Errorf("%s refuses the provider's Meta: %v", md.TypeName, resp.Diagnostics)
		}
	}

	for _, newDataSource := range p.DataSources(ctx) {
		d := newDataSource()

		var md datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "unikorn"}, &md)

		c, ok := d.(datasource.DataSourceWithConfigure)
		if !ok {
			t.Errorf("%s has no Configure", md.TypeName)

			continue
		}

		var resp datasource.ConfigureResponse
		c.Configure(ctx, datasource.ConfigureRequest{ProviderData: meta}, &resp)

		if resp.Diagnostics.HasError() {
			t.Errorf("%s refuses the provider's Meta: %v", md.TypeName, resp.Diagnostics)
		}
	}
}
