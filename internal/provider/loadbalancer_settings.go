package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// loadbalancerSettings is the part of the provider block that configures the loadbalancer package.
type loadbalancerSettings struct{}

// loadbalancerMeta is what Configure derives from loadbalancerSettings for the loadbalancer package.
type loadbalancerMeta struct{}

// loadbalancerAttributes are the provider arguments of loadbalancerSettings.
func loadbalancerAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{}
}

// configure validates the settings and fills meta.
func (s loadbalancerSettings) configure(_ context.Context, _ *loadbalancerMeta) diag.Diagnostics {
	return nil
}

// loadbalancerResources are the resources of the loadbalancer package.
func loadbalancerResources() []func() resource.Resource {
	return nil
}

// loadbalancerDataSources are the data sources of the loadbalancer package.
func loadbalancerDataSources() []func() datasource.DataSource {
	return nil
}
