package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// networkSettings is the part of the provider block that configures the network packages.
type networkSettings struct{}

// networkMeta is what Configure derives from networkSettings for the network packages.
type networkMeta struct{}

// networkAttributes are the provider arguments of networkSettings.
func networkAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{}
}

// configure validates the settings and fills meta.
func (s networkSettings) configure(_ context.Context, _ *networkMeta) diag.Diagnostics {
	return nil
}

// networkResources are the resources of the network packages.
func networkResources() []func() resource.Resource {
	return nil
}

// networkDataSources are the data sources of the network packages.
func networkDataSources() []func() datasource.DataSource {
	return nil
}
