package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// regionsStep configures the provider block with arguments (none: the environment alone)
// and reads unikorn_regions, which must pass check, or fail with wantErr when it is set.
func regionsStep(arguments string, check resource.TestCheckFunc, wantErr string) resource.TestStep {
	step := resource.TestStep{
		Config: fmt.Sprintf("provider \"unikorn\" {\n%s\n}\n\ndata \"unikorn_regions\" \"test\" {}\n", arguments),
		Check:  check,
	}

	if wantErr != "" {
		step.ExpectError = regexp.MustCompile(wantErr)
	}

	return step
}

// TestAccProvider_configure configures the provider from its arguments, and fails Configure
// with a message that says what failed:
//   - clouds.yaml arguments: a clouds.yaml named by the `cloud` and `clouds_yaml` arguments, a
//     copy of the environment's file under another cloud name, so that only the arguments
//     can lead the provider to it;
//   - a missing region: a region the catalog does not have is named;
//   - a wrong password.
func TestAccProvider_configure(t *testing.T) {
	missing := "Region" + strings.ReplaceAll(acctest.RandomName(), "-", "")

	tests := []struct {
		name      string
		arguments func(t *testing.T) string
		check     resource.TestCheckFunc
		wantErr   string
		bedOnly   string // what of the local bed the case needs ("": none)
	}{
		{
			name: "clouds.yaml arguments",
			arguments: func(t *testing.T) string {
				return fmt.Sprintf("  cloud = \"acc-copy\"\n  clouds_yaml = %[1]q\n  region = %[2]q\n  regions = [%[2]q]",
					copyCloudsYAML(t, "acc-copy"), acctest.LastRegion())
			},
			check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.unikorn_regions.test", "default_region", acctest.LastRegion()),
				resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.#", "1"),
				resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.0.name", acctest.LastRegion()),
			),
		},
		{
			name:      "missing region",
			arguments: func(*testing.T) string { return fmt.Sprintf("  regions = [%q, %q]", acctest.FirstRegion(), missing) },
			wantErr:   `(?s)Region "` + missing + `".*not in the Keystone catalog`,
		},
		{
			// A second service user of the local cloud, admin on its own project only: the
			// grant it lacks is named at Configure with the command that adds it.
			name:      "service user without the managed domain's grant",
			arguments: func(*testing.T) string { return `  cloud = "unikorn-nogrant"` },
			wantErr: words(`Service user lacks grants`) + `.*` + words(`admin (or manager) on the managed domain unikorn`) +
				`.*` + words(`openstack role add --user unikorn-nogrant --user-domain Default --domain unikorn admin`),
			bedOnly: `its second service user without grants, the clouds.yaml entry "unikorn-nogrant"`,
		},
		{
			name:      "managed domain that does not exist",
			arguments: func(*testing.T) string { return fmt.Sprintf("  domain = %q", missing) },
			wantErr:   words(`Managed domain not usable`) + `.*` + words(missing),
		},
		{
			name:      "wrong password",
			arguments: func(*testing.T) string { return fmt.Sprintf("  password = %q", "wrong-"+acctest.RandomName()) },
			wantErr:   `(?s)Unable to authenticate to OpenStack.*password`,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bedOnly != "" {
				acctest.LocalBedOnly(t, tt.bedOnly)
			}

			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{regionsStep(tt.arguments(t), tt.check, tt.wantErr)},
			})
		})
	}
}

// TestAccProvider_environment configures the provider from OS_* variables alone, without
// clouds.yaml. It sets process environment variables, so it must not run in parallel.
func TestAccProvider_environment(t *testing.T) {
	acctest.PreCheck(t)

	entry := acctest.CloudsYAMLEntry(t)
	for name, value := range map[string]string{
		"OS_CLOUD":               "",
		"OS_CLIENT_CONFIG_FILE":  filepath.Join(t.TempDir(), "absent.yaml"),
		"OS_AUTH_URL":            entry.Auth.AuthURL,
		"OS_USERNAME":            entry.Auth.Username,
		"OS_PASSWORD":            entry.Auth.Password,
		"OS_USER_DOMAIN_NAME":    entry.Auth.UserDomainName,
		"OS_PROJECT_NAME":        entry.Auth.ProjectName,
		"OS_PROJECT_DOMAIN_NAME": entry.Auth.ProjectDomainName,
		"OS_REGION_NAME":         acctest.LastRegion(),
	} {
		t.Setenv(name, value)
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{regionsStep("", resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("data.unikorn_regions.test", "default_region", acctest.LastRegion()),
			resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.#", fmt.Sprint(len(acctest.Regions()))),
		), "")},
	})
}

// TestAccCloud_wrongPasswordHasNoSecret checks, against the real Keystone, that the error
// the provider turns into its diagnostic never carries the password.
func TestAccCloud_wrongPasswordHasNoSecret(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	secret := "s3cret-" + acctest.RandomName()

	_, err := cloud.New(context.Background(), cloud.Config{
		Cloud:      os.Getenv("OS_CLOUD"),
		CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
		Password:   secret,
		Regions:    acctest.Regions(),
	})
	if err == nil {
		t.Fatal("authentication with a wrong password succeeded")
	}

	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the error carries the password: %v", err)
	}

	if !strings.Contains(err.Error(), "password") {
		t.Fatalf("the error does not say which auth method failed: %v", err)
	}
}

// copyCloudsYAML copies the environment's clouds.yaml entry into a new file under another
// cloud name and returns the file's path.
func copyCloudsYAML(t *testing.T, name string) string {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return ""
	}

	entry := acctest.CloudsYAMLEntry(t)
	file := filepath.Join(t.TempDir(), "clouds.yaml")
	content := fmt.Sprintf(`clouds:
  %s:
    region_name: %q
    auth:
      auth_url: %q
      username: %q
      password: %q
      user_domain_name: %q
      project_name: %q
      project_domain_name: %q
`, name, entry.RegionName, entry.Auth.AuthURL, entry.Auth.Username, entry.Auth.Password,
		entry.Auth.UserDomainName, entry.Auth.ProjectName, entry.Auth.ProjectDomainName)

	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}

	return file
}

// words is a pattern of the words of s in order, whatever white space the CLI wraps them with.
func words(s string) string {
	parts := strings.Fields(s)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}

	return "(?s)" + strings.Join(parts, `\s+`)
}
