package identity_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// Two identities of one name cannot exist: an identity is the Keystone project
// unikorn-identity-<name> in the managed domain, and Keystone keeps project names unique in a
// domain. So there is no test of a name with two matches.

// TestAccIdentityLookup_basic: the data source finds an identity that the resource makes in the
// same configuration, by name and by ID, and shows what the resource shows (IDs, tags, roles,
// server groups); a run that reads both look-ups asks Keystone for the managed domain's projects
// once (the by-name look-up's exact-name query: the by-ID one reads the project by its ID, as
// the resource's refresh does); a name that no identity has is refused.
func TestAccIdentityLookup_basic(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.IdentityName()
	log := acctest.NewRequestLog()
	config := fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name               = %[1]q
  organization_id    = "org-l"
  unikorn_project_id = "proj-l"
  server_group       = { policy = "soft-anti-affinity" }
}

data "unikorn_identity" "by_name" {
  name = unikorn_identity.test.name
}

data "unikorn_identity" "by_id" {
  id = unikorn_identity.test.id
}
`, name)

	var checks []statecheck.StateCheck

	for _, ds := range []string{"data.unikorn_identity.by_name", "data.unikorn_identity.by_id"} {
		for _, attr := range []string{"id", "name", "project_id", "user_id", "trust_id", "application_credential_id",
			"organization_id", "unikorn_project_id", "roles", "server_group", "server_group_id", "server_group_ids", "quotas"} {
			checks = append(checks, statecheck.CompareValuePairs(address, tfjsonpath.New(attr), ds, tfjsonpath.New(attr), compare.ValuesSame()))
		}

		checks = append(checks,
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("made_by_provider"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("organization_id"), knownvalue.StringExact("org-l")),
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("user_id"), knownvalue.NotNull()))
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: checks,
				Check:             acctest.KeystoneProjectListingOnce(t, log, 2, "identity"),
			},
			{
				Config: config + fmt.Sprintf(`
data "unikorn_identity" "missing" {
  name = %q
}
`, name+"-none"),
				ExpectError: regexp.MustCompile(`No identity found(.|\n)*No identity is called "` + name + `-none"`),
			},
		},
	})
}

// TestAccIdentityLookup_unikorn: the data source finds, by name and by ID, an identity that
// Unikorn's region service made (acctest.CreateUnikornIdentity mirrors
// pkg/providers/internal/openstack/provider.go:CreateIdentity of nscaledev/uni-region), shows
// its user, tags, roles, credential (no secret), server group and keypair, and changes nothing
// that Unikorn relies on (Untouched: its password, its one credential, no trust, the keypair and
// server group).
func TestAccIdentityLookup_unikorn(t *testing.T) {
	acctest.PreCheck(t)

	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-u", "proj-u")
	untouched := func(*terraform.State) error { return u.Untouched(t) }

	var checks []statecheck.StateCheck

	for _, ds := range []string{"data.unikorn_identity.by_name", "data.unikorn_identity.by_id"} {
		for attr, want := range map[string]knownvalue.Check{
			"id": knownvalue.StringExact(u.ProjectID), "name": knownvalue.StringExact(u.ID),
			"user_id": knownvalue.StringExact(u.UserID), "application_credential_id": knownvalue.StringExact(u.CredentialID),
			"organization_id": knownvalue.StringExact("org-u"), "unikorn_project_id": knownvalue.StringExact("proj-u"),
			"made_by_provider": knownvalue.Bool(false), "trust_id": knownvalue.Null(),
			"roles":           knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("load-balancer_member"), knownvalue.StringExact("member")}),
			"server_group_id": knownvalue.StringExact(u.ServerGroupID), "keypair_name": knownvalue.StringExact("unikorn-openstack-provider"),
			"ssh_public_key": knownvalue.StringExact(strings.TrimSpace(u.KeypairPublicKey)),
		} {
			checks = append(checks, statecheck.ExpectKnownValue(ds, tfjsonpath.New(attr), want))
		}

		for region, id := range u.ServerGroupIDs {
			checks = append(checks, statecheck.ExpectKnownValue(ds, tfjsonpath.New("server_group_ids").AtMapKey(region), knownvalue.StringExact(id)))
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             untouched,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "unikorn_identity" "by_name" {
  name = %q
}

data "unikorn_identity" "by_id" {
  id = %q
}
`, u.ID, u.ProjectID),
			ConfigStateChecks: checks,
			Check:             untouched,
		}},
	})
}
