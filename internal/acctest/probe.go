package acctest

// The probe provider: a test-only provider whose block takes a clouds.yaml (as
// unikorn_identity_credential opens one) and authenticates with it against Keystone when
// Terraform configures it, inside the run, while the ephemeral credential is open. Its data
// source probe_token tells whom the token is for, so a test can assert that the credential was
// usable and was the identity's.

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// WithProbe are the provider factories with the probe provider.
func WithProbe() map[string]func() (tfprotov6.ProviderServer, error) {
	out := maps.Clone(ProtoV6ProviderFactories)
	out["probe"] = providerserver.NewProtocol6WithError(&probeProvider{})

	return out
}

// probeToken is whom the probe's token was issued for.
type probeToken struct {
	UserID    types.String `tfsdk:"user_id"`
	ProjectID types.String `tfsdk:"project_id"`
}

type probeProvider struct{}

func (p *probeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "probe"
}

func (p *probeProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"clouds_yaml": schema.StringAttribute{Required: true, Sensitive: true, Description: "clouds.yaml to authenticate with"},
		"cloud":       schema.StringAttribute{Required: true, Description: "its cloud"},
	}}
}

func (p *probeProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg struct {
		CloudsYAML types.String `tfsdk:"clouds_yaml"`
		Cloud      types.String `tfsdk:"cloud"`
	}

	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)

	if resp.Diagnostics.HasError() {
		return
	}

	if cfg.CloudsYAML.IsUnknown() || cfg.Cloud.IsUnknown() {
		return // planned before the credential exists: the data source is read at apply
	}

	token, err := authenticate(ctx, cfg.CloudsYAML.ValueString(), cfg.Cloud.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("probe: authenticating", err.Error())
		return
	}

	resp.DataSourceData = token
}

// authenticate authenticates with the one cloud of a clouds.yaml and says whom the token is for.
func authenticate(ctx context.Context, doc, cloudName string) (probeToken, error) {
	ao, _, _, err := clouds.Parse(clouds.WithCloudsYAML(strings.NewReader(doc)), clouds.WithCloudName(cloudName))
	if err != nil {
		return probeToken{}, fmt.Errorf("parsing clouds_yaml: %w", err)
	}

	pc, err := openstack.AuthenticatedClient(ctx, ao)
	if err != nil {
		return probeToken{}, err
	}

	result, ok := pc.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return probeToken{}, fmt.Errorf("unexpected authentication result %T", pc.GetAuthResult())
	}

	user, err := result.ExtractUser()
	if err != nil {
		return probeToken{}, err
	}

	project, err := result.ExtractProject()
	if err != nil {
		return probeToken{}, err
	}

	return probeToken{UserID: types.StringValue(user.ID), ProjectID: types.StringValue(project.ID)}, nil
}

func (p *probeProvider) Resources(context.Context) []func() resource.Resource { return nil }

func (p *probeProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return &probeTokenDataSource{} }}
}

// probeTokenDataSource is probe_token: whom the provider's token is for.
type probeTokenDataSource struct {
	token *probeToken
}

func (d *probeTokenDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "probe_token"
}

func (d *probeTokenDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{Attributes: map[string]dsschema.Attribute{
		"user_id":    dsschema.StringAttribute{Computed: true, Description: "the token's user"},
		"project_id": dsschema.StringAttribute{Computed: true, Description: "the token's project"},
	}}
}

func (d *probeTokenDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if t, ok := req.ProviderData.(probeToken); ok {
		d.token = &t
	}
}

func (d *probeTokenDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.token == nil {
		resp.Diagnostics.AddError("probe: not authenticated", "the probe provider was configured without a credential")
		return
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, d.token)...)
}
