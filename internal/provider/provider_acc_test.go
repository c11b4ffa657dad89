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

// TestAccProvider_cloudsYAMLArguments configures the provider from a clouds.yaml named by the
// `cloud` and `clouds_yaml` arguments: a copy of the environment's file under another cloud
// name, so only the arguments can lead the provider to it.
func TestAccProvider_cloudsYAMLArguments(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "unikorn" {
  cloud       = "acc-copy"
  clouds_yaml = %[1]q
  region      = %[2]q
  regions     = [%[2]q]
}

data "unikorn_regions" "test" {}
`, copyCloudsYAML(t, "acc-copy"), lastRegion()),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.unikorn_regions.test", "default_region", lastRegion()),
					resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.#", "1"),
					resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.0.name", lastRegion()),
				),
			},
		},
	})
}

// TestAccProvider_environment configures the provider from OS_* variables alone, without
// clouds.yaml. It sets process environment variables, so it must not run in parallel.
func TestAccProvider_environment(t *testing.T) {
	if os.Getenv("TF_ACC") != "" {
		acctest.PreCheck(t)

		entry := acctest.CloudsYAMLEntry(t)
		t.Setenv("OS_CLOUD", "")
		t.Setenv("OS_CLIENT_CONFIG_FILE", filepath.Join(t.TempDir(), "absent.yaml"))
		t.Setenv("OS_AUTH_URL", entry.Auth.AuthURL)
		t.Setenv("OS_USERNAME", entry.Auth.Username)
		t.Setenv("OS_PASSWORD", entry.Auth.Password)
		t.Setenv("OS_USER_DOMAIN_NAME", entry.Auth.UserDomainName)
		t.Setenv("OS_PROJECT_NAME", entry.Auth.ProjectName)
		t.Setenv("OS_PROJECT_DOMAIN_NAME", entry.Auth.ProjectDomainName)
		t.Setenv("OS_REGION_NAME", lastRegion())
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `data "unikorn_regions" "test" {}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.unikorn_regions.test", "default_region", lastRegion()),
					resource.TestCheckResourceAttr("data.unikorn_regions.test", "regions.#", fmt.Sprint(len(acctest.Regions()))),
				),
			},
		},
	})
}

// TestAccProvider_missingRegion asks for a region the catalog does not have: Configure fails
// and names it.
func TestAccProvider_missingRegion(t *testing.T) {
	missing := "Region" + strings.ReplaceAll(acctest.RandomName(), "-", "")

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "unikorn" {
  regions = [%[1]q, %[2]q]
}

data "unikorn_regions" "test" {}
`, firstRegion(), missing),
				ExpectError: regexp.MustCompile(`(?s)Region "` + missing + `".*not in the Keystone catalog`),
			},
		},
	})
}

// TestAccProvider_wrongPassword fails Configure with a message that says what failed.
func TestAccProvider_wrongPassword(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "unikorn" {
  password = %[1]q
}

data "unikorn_regions" "test" {}
`, "wrong-"+acctest.RandomName()),
				ExpectError: regexp.MustCompile(`(?s)Unable to authenticate to OpenStack.*password`),
			},
		},
	})
}

// TestAccCloud_wrongPasswordHasNoSecret checks, against the real Keystone, that the error
// the provider turns into its diagnostic never carries the password.
func TestAccCloud_wrongPasswordHasNoSecret(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}

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

func firstRegion() string {
	if regions := acctest.Regions(); len(regions) > 0 {
		return regions[0]
	}

	return ""
}

func lastRegion() string {
	if regions := acctest.Regions(); len(regions) > 0 {
		return regions[len(regions)-1]
	}

	return ""
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
