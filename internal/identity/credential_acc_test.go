package identity_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccIdentityCredential_ephemeral walks the pattern that keeps no secret in state: an
// identity made with its own credential is told to keep none (which deletes it in Keystone),
// and a short-lived credential opened by unikorn_identity_credential configures a second
// provider (the probe), which authenticates with it against Keystone inside the run. After the
// run the short-lived credential is gone from Keystone, and no secret is in the state.
func TestAccIdentityCredential_ephemeral(t *testing.T) {
	name := acctest.IdentityName()
	userID := statecheck.CompareValue(compare.ValuesSame())

	withEphemeral := fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name                   = %[1]q
  application_credential = false
}

ephemeral "unikorn_identity_credential" "test" {
  identity_id = unikorn_identity.test.id
  ttl         = "10m"
}

provider "probe" {
  clouds_yaml = ephemeral.unikorn_identity_credential.test.clouds_yaml
  cloud       = %[2]q
}

data "probe_token" "test" {}
`, name, naming.IdentityProject(name))

	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   acctest.EphemeralCLI,
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.WithProbe(),
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: identityArgs{}.config(name),
				ConfigStateChecks: []statecheck.StateCheck{
					userID.AddStateValue(address, tfjsonpath.New("user_id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("application_credential"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_secret"), knownvalue.NotNull()),
				},
				Check: checkCredentials(t, 1),
			},
			{
				Config: withEphemeral,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_secret"), knownvalue.Null()),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("clouds_yaml"), knownvalue.Null()),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					userID.AddStateValue(address, tfjsonpath.New("user_id")),
					// The probe authenticated with the short-lived credential as the identity's
					// user, in its project.
					statecheck.CompareValuePairs("data.probe_token.test", tfjsonpath.New("user_id"),
						address, tfjsonpath.New("user_id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.probe_token.test", tfjsonpath.New("project_id"),
						address, tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_id"), knownvalue.Null()),
				},
				// Neither the identity's own credential nor the short-lived one is left in
				// Keystone, and no secret is in the state.
				Check: resource.ComposeAggregateTestCheckFunc(checkCredentials(t, 0), checkNoSecretInState),
			},
		},
	})
}

// checkCredentials asserts, in Keystone, that the identity's user holds exactly n application
// credentials (of any name).
func checkCredentials(t *testing.T, n int) resource.TestCheckFunc {
	t.Helper()

	return acctest.CheckAttributes(address, func(a map[string]string) error {
		userID := a["user_id"]

		all, err := acctest.AllPages(context.Background(), applicationcredentials.List(acctest.AdminKeystone(t), userID, nil),
			applicationcredentials.ExtractApplicationCredentials)
		if err != nil {
			return fmt.Errorf("listing the application credentials of user %s: %w", userID, err)
		}

		if len(all) != n {
			names := make([]string, len(all))
			for i, ac := range all {
				names[i] = ac.Name + " (" + ac.ID + ")"
			}

			return fmt.Errorf("user %s holds %d application credentials, want %d: %s", userID, len(all), n, strings.Join(names, ", "))
		}

		return nil
	})
}

// checkNoSecretInState asserts that no attribute of any resource in the state holds a secret
// or a clouds.yaml.
func checkNoSecretInState(s *terraform.State) error {
	for addr, rs := range s.RootModule().Resources {
		for key, value := range rs.Primary.Attributes {
			if value != "" && (strings.Contains(key, "secret") || strings.Contains(key, "clouds_yaml") ||
				strings.Contains(value, "application_credential_secret")) {
				return fmt.Errorf("%s.%s holds a secret in the state", addr, key)
			}
		}
	}

	return nil
}
