package provider

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

func nullModel() providerModel {
	return providerModel{
		AuthURL: types.StringNull(), CACertFile: types.StringNull(), Cloud: types.StringNull(),
		CloudsYAML: types.StringNull(), Domain: types.StringNull(), EndpointType: types.StringNull(),
		Insecure: types.BoolNull(), MaxRetries: types.Int64Null(), Password: types.StringNull(),
		ProjectDomainID: types.StringNull(), ProjectDomainName: types.StringNull(),
		ProjectID: types.StringNull(), ProjectName: types.StringNull(), Region: types.StringNull(),
		Regions: types.ListNull(types.StringType), UserDomainID: types.StringNull(),
		UserDomainName: types.StringNull(), UserID: types.StringNull(), UserName: types.StringNull(),
	}
}

func TestCloudConfig(t *testing.T) {
	t.Parallel()

	yes := true

	tests := []struct {
		name    string
		model   func(m *providerModel)
		env     map[string]string
		want    cloud.Config
		wantErr bool
	}{
		{
			name: "nothing set",
			want: cloud.Config{},
		},
		{
			name: "environment fills what the block leaves empty",
			env: map[string]string{
				"OS_CLOUD": "unikorn", "OS_CLIENT_CONFIG_FILE": "/tmp/clouds.yaml",
				"OS_AUTH_URL": "http://k:5000/v3", "OS_USERNAME": "svc", "OS_PASSWORD": "pw",
				"OS_USER_DOMAIN_NAME": "Default", "OS_TENANT_NAME": "legacy", "OS_REGION_NAME": "RegionOne",
				"OS_INTERFACE": "internal", "OS_INSECURE": "true", "UNIKORN_DOMAIN": "managed",
				"UNIKORN_REGIONS": "RegionOne, RegionTwo,", "UNIKORN_MAX_RETRIES": "3",
			},
			want: cloud.Config{
				Cloud: "unikorn", CloudsYAML: "/tmp/clouds.yaml", AuthURL: "http://k:5000/v3",
				UserName: "svc", Password: "pw", UserDomainName: "Default", ProjectName: "legacy",
				Region: "RegionOne", EndpointType: "internal", Insecure: &yes, Domain: "managed",
				Regions: []string{"RegionOne", "RegionTwo"}, MaxRetries: new(3),
			},
		},
		{
			name: "arguments win over the environment",
			model: func(m *providerModel) {
				m.Password = types.StringValue("from-block")
				m.Region = types.StringValue("RegionTwo")
				m.Regions = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("RegionTwo")})
				m.MaxRetries = types.Int64Value(0)
				m.Insecure = types.BoolValue(true)
			},
			env: map[string]string{
				"OS_PASSWORD": "from-env", "OS_REGION_NAME": "RegionOne", "UNIKORN_REGIONS": "RegionOne",
				"UNIKORN_MAX_RETRIES": "7", "OS_INSECURE": "false",
			},
			want: cloud.Config{Password: "from-block", Region: "RegionTwo", Regions: []string{"RegionTwo"}, Insecure: &yes, MaxRetries: new(0)},
		},
		{
			name: "OS_PROJECT_NAME wins over the legacy OS_TENANT_NAME",
			env:  map[string]string{"OS_PROJECT_NAME": "new", "OS_TENANT_NAME": "old"},
			want: cloud.Config{ProjectName: "new"},
		},
		{
			name:    "bad OS_INSECURE",
			env:     map[string]string{"OS_INSECURE": "maybe"},
			wantErr: true,
		},
		{
			name:    "bad UNIKORN_MAX_RETRIES",
			env:     map[string]string{"UNIKORN_MAX_RETRIES": "-2"},
			wantErr: true,
		},
		{
			name:    "unknown argument",
			model:   func(m *providerModel) { m.AuthURL = types.StringUnknown() },
			wantErr: true,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			m := nullModel()
			if tt.model != nil {
				tt.model(&m)
			}

			got, diags := m.cloudConfig(context.Background(), func(k string) string { return tt.env[k] })
			if diags.HasError() != tt.wantErr {
				t.Fatalf("diagnostics = %v, want error %v", diags, tt.wantErr)
			}

			if tt.wantErr {
				return
			}

			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("cloudConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
