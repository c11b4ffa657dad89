// Package provider is the wiring of the Unikorn provider: its schema, Configure, and the
// explicit lists of resources, data sources, ephemeral resources, actions and list resources.
// Everything that talks to OpenStack lives in internal/cloud and the concept packages.
package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/federation"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/project"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/providernetwork"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/region"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

var (
	_ provider.Provider                       = (*unikornProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*unikornProvider)(nil)
	_ provider.ProviderWithActions            = (*unikornProvider)(nil)
)

// New returns the provider factory for the given release version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &unikornProvider{version: version}
	}
}

type unikornProvider struct {
	version string
}

func (p *unikornProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "unikorn"
	resp.Version = p.version
}

func (p *unikornProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Unikorn provider brings the Unikorn model of OpenStack to infrastructure-as-code: " +
			"identities (a Keystone project and user per tenant) in a managed domain, and the networks, security groups, " +
			"servers and load balancers that live inside them, across the regions behind one Keystone. " +
			"It authenticates exactly like the `openstack` CLI: from `clouds.yaml`, from `OS_*` environment variables, " +
			"or from the arguments below (arguments override the environment, which overrides `clouds.yaml`).",
		Attributes: mergeAttributes(map[string]schema.Attribute{
			"auth_url": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Keystone v3 endpoint, e.g. `https://keystone.example.com:5000/v3`. Falls back to `OS_AUTH_URL`, then to the `clouds.yaml` entry.",
			},
			"cacert_file": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of a PEM bundle of CA certificates to trust for every OpenStack endpoint. Falls back to `OS_CACERT`.",
			},
			"cloud": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the entry in `clouds.yaml` to use. Falls back to `OS_CLOUD`.",
			},
			"clouds_yaml": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of the `clouds.yaml` file. Falls back to `OS_CLIENT_CONFIG_FILE`; otherwise the usual locations (`./clouds.yaml`, `~/.config/openstack/clouds.yaml`, `/etc/openstack/clouds.yaml`) are searched.",
			},
			"domain": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The managed Keystone domain (name or ID) in which identities are created. Falls back to `UNIKORN_DOMAIN`.",
			},
			"endpoint_type": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Which catalog endpoints to use: `public` (default), `internal` or `admin`. Falls back to `OS_INTERFACE`.",
				Validators:          []validator.String{stringvalidator.OneOf(endpointTypes...)},
			},
			"insecure": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Skip TLS certificate verification. Only for test clouds. Falls back to `OS_INSECURE`.",
			},
			"max_retries": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "How often an idempotent request (GET, HEAD, PUT, DELETE) is retried after HTTP 429, 502, 503 or 504, " +
					"a dropped connection or no answer within 90 s, with backoff and `Retry-After`. A create (POST) is never retried blindly: " +
					"only Keystone's token request and an answer 429 (not processed) are; any other failed create is looked for by name " +
					"before it is made again. Default 5; `0` turns retries off. Falls back to `UNIKORN_MAX_RETRIES`.",
				Validators: []validator.Int64{int64validator.Between(0, 100)},
			},
			"password": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "Password of the service user. Falls back to `OS_PASSWORD`. Never logged.",
			},
			"project_domain_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "ID of the domain of the project to authenticate in. Falls back to `OS_PROJECT_DOMAIN_ID`.",
			},
			"project_domain_name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the domain of the project to authenticate in. Falls back to `OS_PROJECT_DOMAIN_NAME`.",
			},
			"project_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "ID of the project the service user authenticates in. Falls back to `OS_PROJECT_ID`.",
			},
			"project_name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the project the service user authenticates in. Falls back to `OS_PROJECT_NAME`.",
			},
			"region": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default region of regional resources. Falls back to `OS_REGION_NAME`, then to the `clouds.yaml` entry's `region_name`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"regions": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Every region this provider serves (default: `[region]`). Each is checked against the Keystone catalog " +
					"when the provider is configured. Falls back to `UNIKORN_REGIONS` (comma-separated).",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
				},
			},
			"user_domain_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "ID of the service user's domain. Falls back to `OS_USER_DOMAIN_ID`.",
			},
			"user_domain_name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the service user's domain. Falls back to `OS_USER_DOMAIN_NAME`.",
			},
			"user_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "ID of the service user. Falls back to `OS_USER_ID`.",
			},
			"user_name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the service user. Falls back to `OS_USERNAME`.",
			},
		}, catalogAttributes(), identityAttributes(), networkAttributes(),
			loadbalancerAttributes(), volume.ProviderAttributes()),
	}
}

func (p *unikornProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var data providerModel

	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	cfg, diags := data.cloudConfig(ctx, os.Getenv)
	resp.Diagnostics.Append(diags...)

	if resp.Diagnostics.HasError() {
		return
	}

	// The version (main.version of a release, "dev" from source) names every OpenStack
	// request and the log line below.
	cfg.UserAgent = "terraform-provider-unikorn/" + p.version

	ctx = tflog.SetField(ctx, "regions", cfg.Regions)
	ctx = tflog.SetField(ctx, "version", p.version)
	tflog.Debug(ctx, "Configuring the Unikorn provider")

	client, err := cloud.New(ctx, cfg)
	if err != nil {
		addConfigureError(&resp.Diagnostics, err)
		return
	}

	if cfg.Domain != "" {
		// One read of the service user's grants, so that a missing one is named here with
		// the command that adds it, never met as a 403 halfway through an apply.
		features := []cloud.Feature{cloud.FeatureQuotas}
		if !data.ProviderNetwork.IsNull() {
			features = append(features, cloud.FeatureProviderNetwork)
		}

		if _, err := client.CheckGrants(ctx, features...); err != nil {
			addGrantError(&resp.Diagnostics, err)
			return
		}
	}

	configured := "Unikorn provider configured"
	if p.version == "dev" {
		configured += " (a development build, not a release)"
	}

	tflog.Info(ctx, configured, map[string]any{
		"default_region": client.DefaultRegion(), "grant_model": client.GrantModel().String(),
	})

	meta := &Meta{cloud: client}

	resp.Diagnostics.Append(data.catalogSettings.configure(ctx, &meta.catalogMeta)...)
	resp.Diagnostics.Append(data.identitySettings.configure(ctx, &meta.identityMeta)...)
	resp.Diagnostics.Append(data.networkSettings.configure(ctx, &meta.networkMeta)...)
	resp.Diagnostics.Append(data.loadbalancerSettings.configure(ctx, &meta.loadbalancerMeta)...)
	resp.Diagnostics.Append(data.volumeSettings.configure(ctx, &meta.volumeMeta)...)

	if resp.Diagnostics.HasError() {
		return
	}
	resp.DataSourceData = meta
	resp.ResourceData = meta
	resp.EphemeralResourceData = meta
	resp.ActionData = meta
	resp.ListResourceData = meta
}

// Resources lists every resource of the provider, each with its resource identity.
func (p *unikornProvider) Resources(_ context.Context) []func() resource.Resource {
	return adapter.WithIdentities([]func() resource.Resource{
		domain.NewDomainResource,
		federation.NewResource,
		flavor.NewFlavorResource,
		identity.NewResource,
		image.NewImageResource,
		loadbalancer.NewResource,
		loadbalancer.NewMembersResource,
		network.NewNetworkResource,
		network.NewSecurityGroupResource,
		project.NewResource,
		providernetwork.NewResource,
		role.NewRoleResource,
		server.NewResource,
		server.NewSnapshotResource,
		volume.NewResource,
	})
}

// DataSources lists every data source of the provider.
func (p *unikornProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		flavor.NewFlavorDataSource,
		flavor.NewFlavorsDataSource,
		identity.NewIdentityLookup,
		image.NewImageDataSource,
		image.NewImagesDataSource,
		network.NewExternalNetworksDataSource,
		network.NewNetworkLookup,
		network.NewSecurityGroupLookup,
		project.NewProjectLookup,
		region.NewRegionsDataSource,
		server.NewConsoleDataSource,
		server.NewServerLookup,
		volume.NewVolumeClassDataSource,
		volume.NewVolumeClassesDataSource,
		volume.NewVolumeLookup,
	}
}

// EphemeralResources lists every ephemeral resource of the provider (Terraform 1.10 and later).
func (p *unikornProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		identity.NewCredentialResource,
		server.NewConsoleSession,
	}
}

// Actions lists every action of the provider (Terraform 1.14 and later).
func (p *unikornProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		server.NewRebootAction,
		server.NewSnapshotNowAction,
	}
}

var _ provider.ProviderWithListResources = (*unikornProvider)(nil)

// ListResources lists every list resource of the provider (Terraform 1.14 and later,
// `terraform query`), one per resource: the global kinds (domains, federations, identities,
// projects, roles), the regional admin kinds (flavors, images, provider networks) and the
// identities' tenant kinds (load balancers, networks, security groups, servers, server
// snapshots, volumes).
func (p *unikornProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		adapter.GlobalList(domain.NewDomainResource, inCloud(domain.Listed)),
		adapter.GlobalList(federation.NewResource, inCloud(federation.Listed)),
		adapter.RegionalList(flavor.NewFlavorResource, flavor.Listed),
		adapter.GlobalList(identity.NewResource, func(ctx context.Context, m adapter.IdentityLister) ([]cloud.Located, error) {
			return m.ListIdentities(ctx)
		}),
		adapter.RegionalList(image.NewImageResource, image.Listed),
		adapter.TenantList(loadbalancer.NewResource, loadbalancer.List),
		adapter.TenantList(network.NewNetworkResource, network.ListNetworks),
		adapter.TenantList(network.NewSecurityGroupResource, network.ListSecurityGroups),
		adapter.GlobalList(project.NewResource, inCloud(project.Listed)),
		adapter.RegionalList(providernetwork.NewResource, providernetwork.Listed),
		adapter.GlobalList(role.NewRoleResource, inCloud(role.Listed)),
		adapter.TenantList(server.NewResource, server.List),
		adapter.TenantList(server.NewSnapshotResource, server.ListSnapshots),
		adapter.TenantList(volume.NewResource, volume.ListVolumes),
	}
}

// inCloud is the lister of a global kind that is listed from the cloud alone.
func inCloud(list func(ctx context.Context, c *cloud.Client) ([]cloud.Located, error)) adapter.GlobalLister {
	return func(ctx context.Context, m adapter.IdentityLister) ([]cloud.Located, error) {
		return list(ctx, m.Cloud())
	}
}

// mergeAttributes joins the core provider arguments with those that concept settings files
// (catalog_settings.go, identity_settings.go, ...) contribute.
func mergeAttributes(sets ...map[string]schema.Attribute) map[string]schema.Attribute {
	out := map[string]schema.Attribute{}
	for _, set := range sets {
		maps.Copy(out, set)
	}

	return out
}

// addConfigureError turns an error of cloud.New into a diagnostic that points at the right
// argument where it can.
func addConfigureError(diags *diag.Diagnostics, err error) {
	var regionErr *cloud.RegionError
	var authErr *cloud.AuthError

	switch {
	case errors.As(err, &regionErr):
		diags.AddAttributeError(path.Root("regions"),
			fmt.Sprintf("Region %q cannot be served", regionErr.Region), err.Error())
	case errors.As(err, &authErr):
		diags.AddError("Unable to authenticate to OpenStack", err.Error())
	default:
		diags.AddError("Unable to configure the Unikorn provider", err.Error())
	}
}

// addGrantError reports what the grant check found: a missing grant, or a managed domain
// that does not exist or that the service user cannot see.
func addGrantError(diags *diag.Diagnostics, err error) {
	var grantErr *cloud.GrantError

	if errors.As(err, &grantErr) {
		diags.AddError("Service user lacks grants", err.Error())
		return
	}

	diags.AddAttributeError(path.Root("domain"), "Managed domain not usable", err.Error())
}

// envList splits a comma-separated environment variable into its non-empty items.
func envList(value string) []string {
	var out []string

	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}

	return out
}

// envBool reads an OS_INSECURE-style boolean; an unparsable value is an error.
func envBool(name, value string) (*bool, error) {
	if value == "" {
		return nil, nil
	}

	b, err := strconv.ParseBool(value)
	if err != nil {
		return nil, fmt.Errorf("environment variable %s: %q is not a boolean", name, value)
	}

	return &b, nil
}
