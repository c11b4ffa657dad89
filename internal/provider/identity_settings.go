package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// identitySettings is the part of the provider block that configures the identity packages.
type identitySettings struct{}

// identityMeta is what Configure derives from identitySettings for the identity packages.
type identityMeta struct{}

// identityAttributes are the provider arguments of identitySettings.
func identityAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{}
}

// configure validates the settings and fills meta.
func (s identitySettings) configure(_ context.Context, _ *identityMeta) diag.Diagnostics {
	return nil
}

// identityResources are the resources of the identity packages.
func identityResources() []func() resource.Resource {
	return nil
}

// identityDataSources are the data sources of the identity packages.
func identityDataSources() []func() datasource.DataSource {
	return nil
}
