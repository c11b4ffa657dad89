package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// catalogSettings is the part of the provider block that configures the catalog packages.
type catalogSettings struct{}

// catalogMeta is what Configure derives from catalogSettings for the catalog packages.
type catalogMeta struct{}

// catalogAttributes are the provider arguments of catalogSettings.
func catalogAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{}
}

// configure validates the settings and fills meta.
func (s catalogSettings) configure(_ context.Context, _ *catalogMeta) diag.Diagnostics {
	return nil
}

// catalogResources are the resources of the catalog packages.
func catalogResources() []func() resource.Resource {
	return nil
}

// catalogDataSources are the data sources of the catalog packages.
func catalogDataSources() []func() datasource.DataSource {
	return nil
}
