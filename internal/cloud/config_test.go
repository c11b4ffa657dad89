package cloud

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

const testCloudsYAML = `
clouds:
  full:
    auth:
      auth_url: https://keystone.example.com:5000/v3
      username: file-user
      password: file-password
      user_domain_name: FileDomain
      project_name: file-project
      project_domain_name: FileProjectDomain
    region_name: FileRegion
    interface: internal
    verify: false
  by-id:
    auth:
      auth_url: https://keystone.example.com/v3
      user_id: file-user-id
      password: file-password
      project_id: file-project-id
    region_name: FileRegion
  appcred:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com/v3
      application_credential_id: ac-id
      application_credential_secret: ac-secret
  no-password:
    auth:
      auth_url: https://keystone.example.com/v3
      username: file-user
      user_domain_id: default
`

func writeCloudsYAML(t *testing.T) string {
	t.Helper()

	path := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(path, []byte(testCloudsYAML), 0o600); err != nil {
		t.Fatal(err)
	}

	return path
}

func TestResolveSettings(t *testing.T) {
	t.Parallel()

	cloudsPath := writeCloudsYAML(t)
	yes, no := true, false

	type want struct {
		authURL, userName, userID, password, userDomainName, userDomainID string
		projectName, projectID, projectDomainName                         string
		region                                                            string
		regions                                                           []string
		availability                                                      gophercloud.Availability
		insecure                                                          bool
		maxRetries                                                        int
	}

	tests := []struct {
		name    string
		cfg     Config
		want    want
		wantErr []string // substrings of the error; nil = no error
	}{
		{
			name: "clouds.yaml entry alone",
			cfg:  Config{Cloud: "full", CloudsYAML: cloudsPath},
			want: want{
				authURL: "https://keystone.example.com:5000/v3", userName: "file-user", password: "file-password",
				userDomainName: "FileDomain", projectName: "file-project", projectDomainName: "FileProjectDomain",
				region: "FileRegion", availability: gophercloud.AvailabilityInternal, insecure: true, maxRetries: 5,
			},
		},
		{
			name: "explicit fields override the file",
			cfg: Config{
				Cloud: "full", CloudsYAML: cloudsPath,
				AuthURL: "https://other.example.com/v3", UserName: "explicit-user", Password: "explicit-password",
				UserDomainID: "explicit-domain-id", ProjectID: "explicit-project-id", Region: "ExplicitRegion",
				EndpointType: "public", Insecure: &no, MaxRetries: new(2), Regions: []string{"ExplicitRegion", "Two", "Two"},
			},
			want: want{
				authURL: "https://other.example.com/v3", userName: "explicit-user", password: "explicit-password",
				userDomainID: "explicit-domain-id", projectID: "explicit-project-id",
				projectDomainName: "FileProjectDomain", region: "ExplicitRegion", regions: []string{"ExplicitRegion", "Two"},
				availability: gophercloud.AvailabilityPublic, insecure: false, maxRetries: 2,
			},
		},
		{
			name: "explicit user ID replaces the file's user name",
			cfg:  Config{Cloud: "full", CloudsYAML: cloudsPath, UserID: "explicit-user-id", MaxRetries: new(0)},
			want: want{
				authURL: "https://keystone.example.com:5000/v3", userID: "explicit-user-id", password: "file-password",
				userDomainName: "FileDomain", projectName: "file-project", projectDomainName: "FileProjectDomain",
				region: "FileRegion", availability: gophercloud.AvailabilityInternal, insecure: true, maxRetries: 0,
			},
		},
		{
			name: "explicit user name replaces the file's user ID",
			cfg:  Config{Cloud: "by-id", CloudsYAML: cloudsPath, UserName: "named", UserDomainName: "D", Insecure: &yes},
			want: want{
				authURL: "https://keystone.example.com/v3", userName: "named", password: "file-password",
				userDomainName: "D", projectID: "file-project-id", region: "FileRegion",
				availability: gophercloud.AvailabilityPublic, insecure: true, maxRetries: 5,
			},
		},
		{
			name: "fields alone without clouds.yaml",
			cfg: Config{
				CloudsYAML: cloudsPath, // ignored without a cloud name
				AuthURL:    "http://127.0.0.1:5000/v3", UserID: "uid", Password: "pw", ProjectName: "p", ProjectDomainID: "default",
			},
			want: want{
				authURL: "http://127.0.0.1:5000/v3", userID: "uid", password: "pw", projectName: "p",
				availability: gophercloud.AvailabilityPublic, maxRetries: 5,
			},
		},
		{
			name:    "nothing set names every missing field",
			cfg:     Config{},
			wantErr: []string{"auth_url (OS_AUTH_URL)", "user_name (OS_USERNAME)", "user_id (OS_USER_ID)", "password (OS_PASSWORD)"},
		},
		{
			name:    "user name without domain",
			cfg:     Config{AuthURL: "http://k/v3", UserName: "u", Password: "pw"},
			wantErr: []string{`user_name "u" needs its domain`, "OS_USER_DOMAIN_NAME"},
		},
		{
			name:    "project name without any domain",
			cfg:     Config{AuthURL: "http://k/v3", UserID: "u", Password: "pw", ProjectName: "p"},
			wantErr: []string{`project_name "p" needs its domain`, "OS_PROJECT_DOMAIN_NAME"},
		},
		{
			name:    "password missing in file and config",
			cfg:     Config{Cloud: "no-password", CloudsYAML: cloudsPath},
			wantErr: []string{"password (OS_PASSWORD)", `clouds.yaml entry "no-password"`},
		},
		{
			name:    "application credential entry still needs a password",
			cfg:     Config{Cloud: "appcred", CloudsYAML: cloudsPath},
			wantErr: []string{"password (OS_PASSWORD)", "application credential", "user_name (OS_USERNAME)"},
		},
		{
			name:    "unknown cloud",
			cfg:     Config{Cloud: "nope", CloudsYAML: cloudsPath},
			wantErr: []string{`reading cloud "nope"`, "OS_CLOUD"},
		},
		{
			name:    "bad auth URL and endpoint type",
			cfg:     Config{AuthURL: "keystone:5000", UserID: "u", Password: "pw", EndpointType: "private"},
			wantErr: []string{`auth_url (OS_AUTH_URL) "keystone:5000" is not an http(s) URL`, `endpoint_type (OS_INTERFACE) "private"`},
		},
		{
			name:    "unreadable CA file",
			cfg:     Config{AuthURL: "https://k/v3", UserID: "u", Password: "pw", CACertFile: filepath.Join(t.TempDir(), "missing.pem")},
			wantErr: []string{"cacert_file (OS_CACERT)"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			s, err := resolveSettings(tt.cfg)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("want error containing %q, got settings %v", tt.wantErr, s)
				}

				for _, sub := range tt.wantErr {
					if !strings.Contains(err.Error(), sub) {
						t.Errorf("error %q lacks %q", err, sub)
					}
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			got := want{
				authURL: s.authURL, userName: s.userName, userID: s.userID, password: s.password,
				userDomainName: s.userDomainName, userDomainID: s.userDomainID,
				projectName: s.projectName, projectID: s.projectID, projectDomainName: s.projectDomainName,
				region: s.region, regions: s.regions, availability: s.availability,
				insecure: s.tlsConfig != nil && s.tlsConfig.InsecureSkipVerify, maxRetries: s.maxRetries,
			}

			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("settings:\n got  %#v\n want %#v", got, tt.want)
			}
		})
	}
}

func TestConfigErrorType(t *testing.T) {
	t.Parallel()

	_, err := resolveSettings(Config{AuthURL: "http://k/v3"})

	var cfgErr *ConfigError
	if !errors.As(err, &cfgErr) || len(cfgErr.Problems) != 2 {
		t.Fatalf("want a ConfigError with 2 problems, got %v", err)
	}
}

func TestSecretsNotPrinted(t *testing.T) {
	t.Parallel()

	cfg := Config{AuthURL: "http://k/v3", UserID: "u", Password: fakePassword}
	s, err := resolveSettings(cfg)
	if err != nil {
		t.Fatal(err)
	}

	for _, text := range []string{
		fmt.Sprint(cfg), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(&cfg),
		fmt.Sprint(s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s),
	} {
		if strings.Contains(text, fakePassword) {
			t.Errorf("printed the password: %s", text)
		}
	}
}

func TestBaseScope(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct {
		name string
		s    settings
		want gophercloud.AuthScope
	}{
		{"project ID", settings{projectID: "p", projectName: "ignored"}, gophercloud.AuthScope{ProjectID: "p"}},
		{"project name with its domain", settings{projectName: "p", projectDomainName: "PD", userDomainID: "ud"},
			gophercloud.AuthScope{ProjectName: "p", DomainName: "PD"}},
		{"project name falls back to the user's domain", settings{projectName: "p", userDomainID: "ud"},
			gophercloud.AuthScope{ProjectName: "p", DomainID: "ud"}},
		{"domain scope from clouds.yaml", settings{domainScopeName: "d"}, gophercloud.AuthScope{DomainName: "d"}},
		{"unscoped", settings{}, gophercloud.AuthScope{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := *tt.s.baseScope(); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
