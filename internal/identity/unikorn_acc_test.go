package identity_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccIdentity_importUnikorn: a create of an identity of the name of one that Unikorn's region
// service made (project and user unikorn-identity-<UUID>, tags, roles, a password, an
// application credential) is refused and changes nothing; the identity is imported instead, by
// its project ID: the import is read-only (the user's password still works, its one credential
// is the same, no trust is made), the state holds what the cloud holds, and the next plan
// changes the identity in place only where the provider needs what Unikorn did not make: its
// trust, and a credential whose secret it knows, which that apply then makes.
func TestAccIdentity_importUnikorn(t *testing.T) {
	acctest.PreCheck(t)

	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-u", "proj-u")
	config := fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name               = %q
  organization_id    = "org-u"
  unikorn_project_id = "proj-u"
}
`, u.ID)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				// Not made by this provider: a create refuses it, before anything is written.
				Config: config,
				ExpectError: regexp.MustCompile(`(?s)` + words(`Keystone project named "`+naming.IdentityProject(u.ID)+`" already exists`) +
					`.*` + words("this provider did not make it") + `.*` + words("terraform import unikorn_identity.<address> "+u.ProjectID)),
			},
			{
				PreConfig: func() {
					if err := u.Untouched(t); err != nil {
						t.Error(err)
					}
				},
				Config:             config,
				ResourceName:       address,
				ImportState:        true,
				ImportStateId:      u.ProjectID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("imported %d states, want 1", len(states))
					}

					a := states[0].Attributes
					for attr, want := range map[string]string{
						"id": u.ProjectID, "name": u.ID, "user_id": u.UserID, "application_credential_id": u.CredentialID,
						"organization_id": "org-u", "unikorn_project_id": "proj-u", "application_credential": "true",
					} {
						if a[attr] != want {
							return fmt.Errorf("imported %s = %q, want %q", attr, a[attr], want)
						}
					}

					return u.Untouched(t)
				},
			},
			{
				// Nothing was rewritten by the import; the apply then makes the trust and a
				// credential of its own.
				PreConfig: func() {
					if err := u.Untouched(t); err != nil {
						t.Error(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(u.ProjectID)),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("user_id"), knownvalue.StringExact(u.UserID)),
						plancheck.ExpectUnknownValue(address, tfjsonpath.New("trust_id")),
						plancheck.ExpectUnknownValue(address, tfjsonpath.New("application_credential_secret")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("trust_id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_secret"), knownvalue.NotNull()),
				},
			},
		},
	})
}
