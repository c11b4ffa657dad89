package provider

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// endpointTypes are the catalog interfaces a user may choose.
var endpointTypes = []string{"public", "internal", "admin"}

// providerModel is the provider block.
// Concept settings files embed their own part of the block (catalogSettings, ...).
type providerModel struct {
	catalogSettings
	identitySettings
	networkSettings
	loadbalancerSettings
	volumeSettings

	AuthURL           types.String `tfsdk:"auth_url"`
	CACertFile        types.String `tfsdk:"cacert_file"`
	Cloud             types.String `tfsdk:"cloud"`
	CloudsYAML        types.String `tfsdk:"clouds_yaml"`
	Domain            types.String `tfsdk:"domain"`
	EndpointType      types.String `tfsdk:"endpoint_type"`
	Insecure          types.Bool   `tfsdk:"insecure"`
	MaxRetries        types.Int64  `tfsdk:"max_retries"`
	Password          types.String `tfsdk:"password"`
	ProjectDomainID   types.String `tfsdk:"project_domain_id"`
	ProjectDomainName types.String `tfsdk:"project_domain_name"`
	ProjectID         types.String `tfsdk:"project_id"`
	ProjectName       types.String `tfsdk:"project_name"`
	Region            types.String `tfsdk:"region"`
	Regions           types.List   `tfsdk:"regions"`
	UserDomainID      types.String `tfsdk:"user_domain_id"`
	UserDomainName    types.String `tfsdk:"user_domain_name"`
	UserID            types.String `tfsdk:"user_id"`
	UserName          types.String `tfsdk:"user_name"`
}

// stringSetting is one string argument of the provider block with the environment variables
// it falls back to, in order, and where the merged value goes.
type stringSetting struct {
	attribute string
	value     types.String
	env       []string
	target    *string
}

// cloudConfig merges the provider block with the environment: an argument wins over its
// environment variable; what is still empty is left for clouds.yaml (cloud.New reads it).
// getenv is os.Getenv outside of tests.
func (m providerModel) cloudConfig(ctx context.Context, getenv func(string) string) (cloud.Config, diag.Diagnostics) {
	var cfg cloud.Config
	var diags diag.Diagnostics

	settings := []stringSetting{
		{"auth_url", m.AuthURL, []string{"OS_AUTH_URL"}, &cfg.AuthURL},
		{"cacert_file", m.CACertFile, []string{"OS_CACERT"}, &cfg.CACertFile},
		{"cloud", m.Cloud, []string{"OS_CLOUD"}, &cfg.Cloud},
		{"clouds_yaml", m.CloudsYAML, []string{"OS_CLIENT_CONFIG_FILE"}, &cfg.CloudsYAML},
		{"domain", m.Domain, []string{"UNIKORN_DOMAIN"}, &cfg.Domain},
		{"endpoint_type", m.EndpointType, []string{"OS_INTERFACE", "OS_ENDPOINT_TYPE"}, &cfg.EndpointType},
		{"password", m.Password, []string{"OS_PASSWORD"}, &cfg.Password},
		{"project_domain_id", m.ProjectDomainID, []string{"OS_PROJECT_DOMAIN_ID"}, &cfg.ProjectDomainID},
		{"project_domain_name", m.ProjectDomainName, []string{"OS_PROJECT_DOMAIN_NAME"}, &cfg.ProjectDomainName},
		{"project_id", m.ProjectID, []string{"OS_PROJECT_ID", "OS_TENANT_ID"}, &cfg.ProjectID},
		{"project_name", m.ProjectName, []string{"OS_PROJECT_NAME", "OS_TENANT_NAME"}, &cfg.ProjectName},
		{"region", m.Region, []string{"OS_REGION_NAME"}, &cfg.Region},
		{"user_domain_id", m.UserDomainID, []string{"OS_USER_DOMAIN_ID"}, &cfg.UserDomainID},
		{"user_domain_name", m.UserDomainName, []string{"OS_USER_DOMAIN_NAME"}, &cfg.UserDomainName},
		{"user_id", m.UserID, []string{"OS_USER_ID"}, &cfg.UserID},
		{"user_name", m.UserName, []string{"OS_USERNAME"}, &cfg.UserName},
	}

	for _, s := range settings {
		if s.value.IsUnknown() {
			diags.Append(adapter.UnknownArgument(path.Root(s.attribute)))
			continue
		}

		*s.target = s.value.ValueString()

		for _, name := range s.env {
			if *s.target != "" {
				break
			}

			*s.target = getenv(name)
		}
	}

	switch {
	case m.Insecure.IsUnknown():
		diags.Append(adapter.UnknownArgument(path.Root("insecure")))
	case !m.Insecure.IsNull():
		insecure := m.Insecure.ValueBool()
		cfg.Insecure = &insecure
	default:
		insecure, err := envBool("OS_INSECURE", getenv("OS_INSECURE"))
		if err != nil {
			diags.AddAttributeError(path.Root("insecure"), "Invalid OS_INSECURE", err.Error())
		}

		cfg.Insecure = insecure
	}

	switch {
	case m.MaxRetries.IsUnknown():
		diags.Append(adapter.UnknownArgument(path.Root("max_retries")))
	case !m.MaxRetries.IsNull():
		cfg.MaxRetries = new(int(m.MaxRetries.ValueInt64()))
	case getenv("UNIKORN_MAX_RETRIES") != "":
		n, err := strconv.Atoi(getenv("UNIKORN_MAX_RETRIES"))
		if err != nil || n < 0 {
			diags.AddAttributeError(path.Root("max_retries"), "Invalid UNIKORN_MAX_RETRIES",
				fmt.Sprintf("UNIKORN_MAX_RETRIES must be a non-negative integer, got %q.", getenv("UNIKORN_MAX_RETRIES")))
		}

		cfg.MaxRetries = &n
	}

	switch {
	case m.Regions.IsUnknown():
		diags.Append(adapter.UnknownArgument(path.Root("regions")))
	case !m.Regions.IsNull():
		diags.Append(m.Regions.ElementsAs(ctx, &cfg.Regions, false)...)
	default:
		cfg.Regions = envList(getenv("UNIKORN_REGIONS"))
	}

	return cfg, diags
}
