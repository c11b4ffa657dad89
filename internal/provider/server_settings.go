package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"
)

// serverSettings is the part of the provider block that configures the server package. It has
// no arguments: unikorn_server takes its flavor and image facts from the catalog settings.
type serverSettings struct{}

// serverMeta is what Configure derives from serverSettings for the server package. The server
// package needs Cloud, FlavorCache, FlavorOverrides and ImageCache, which Meta already has.
type serverMeta struct{}

// serverAttributes are the provider arguments of serverSettings.
func serverAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{}
}

// configure validates the settings and fills meta.
func (s serverSettings) configure(_ context.Context, _ *serverMeta) diag.Diagnostics {
	return nil
}

// serverResources are the resources of the server package.
func serverResources() []func() resource.Resource {
	return []func() resource.Resource{server.NewResource}
}

// serverDataSources are the data sources of the server package.
func serverDataSources() []func() datasource.DataSource {
	return nil
}
