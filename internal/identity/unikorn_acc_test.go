package identity_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
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
// application credential, a keypair and a server group in every region) is refused and changes
// nothing; the identity is imported instead, by its project ID, and adopted read-only: an apply
// of a configuration that mirrors it changes nothing Unikorn relies on (the user's password still
// logs in, its one application credential still authenticates, no trust is made, the keypair and
// server group are the same), and the next plan is empty; so does an apply that changes the
// project's description. A configuration that asks for another
// keypair or server group policy is refused at plan time on those attributes; a removed block
// hands the identity back as it is.
func TestAccIdentity_importUnikorn(t *testing.T) {
	acctest.PreCheck(t)

	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-u", "proj-u")
	identity := func(description, sshKey, policy string) string {
		return fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name               = %q
  organization_id    = "org-u"
  unikorn_project_id = "proj-u"
  description        = %q
  ssh_public_key     = %q
  server_group       = { policy = %q }
}
`, u.ID, description, sshKey, policy)
	}
	key := strings.TrimSpace(u.KeypairPublicKey)
	config := identity("", key, u.ServerGroupPolicy)
	described := identity("taken into Terraform", key, u.ServerGroupPolicy)

	untouched := func(*terraform.State) error { return u.Untouched(t) }

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		// The identity is handed back by the last step: it must still be there, untouched (its
		// fixture's cleanup deletes it).
		CheckDestroy: func(s *terraform.State) error {
			sc, _ := acctest.IdentityKeystone(t)
			if _, err := projects.Get(context.Background(), sc, u.ProjectID).Extract(); err != nil {
				return fmt.Errorf("the handed-back Unikorn identity's project %s: %w", u.ProjectID, err)
			}

			return u.Untouched(t)
		},
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
						"made_by_provider": "false", "ssh_public_key": strings.TrimSpace(u.KeypairPublicKey),
						"server_group.policy": u.ServerGroupPolicy, "server_group_id": u.ServerGroupID,
					} {
						if a[attr] != want {
							return fmt.Errorf("imported %s = %q, want %q", attr, a[attr], want)
						}
					}

					if a["trust_id"] != "" {
						return fmt.Errorf("imported trust_id = %q, want none", a["trust_id"])
					}

					return u.Untouched(t)
				},
			},
			{
				// The apply changes nothing Unikorn relies on, and makes nothing of its user's:
				// no trust, no credential of its own. The next plan is empty (the harness checks).
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectNonDestructive(address),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("user_id"), knownvalue.StringExact(u.UserID)),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("trust_id"), knownvalue.Null()),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_id"), knownvalue.StringExact(u.CredentialID)),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("server_group_id"), knownvalue.StringExact(u.ServerGroupID)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("made_by_provider"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("trust_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("application_credential_secret"), knownvalue.Null()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("keypair_name"), knownvalue.StringExact("unikorn-openstack-provider")),
				},
				Check: untouched,
			},
			{
				// A change the configuration may make (the project's description) is applied in
				// place, as the service user: still nothing of the user's is touched.
				Config:           described,
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("description"), knownvalue.StringExact("taken into Terraform")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("trust_id"), knownvalue.Null()),
				},
				Check: untouched,
			},
			{
				// Another key and another policy would need the user's password (and replace what
				// Unikorn made): refused at plan time, on each attribute.
				Config:   identity("taken into Terraform", otherKey, "anti-affinity"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + words("Change refused in an identity made elsewhere") + `.*` +
					words("with "+address+",") + `.*` + words("replacing the keypair") + `.*` +
					words("changing the policy of its server group")),
			},
			{
				// Handed back: gone from the state, untouched in the cloud (CheckDestroy).
				Config: `
removed {
  from = unikorn_identity.test

  lifecycle {
    destroy = false
  }
}
`,
				Check: untouched,
			},
		},
	})
}

// otherKey is a public key that no Unikorn fixture holds.
const otherKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICO9S+AuZv+wYUAjA9T5keFy60w4+hPIuE+ibpsz0eDg other@example"
