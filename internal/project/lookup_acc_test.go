package project_test

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

// Two projects of one name cannot exist in a domain (Keystone keeps project names unique in a
// domain, and the look-up by name takes one): so there is no test of a name with two matches.

// TestAccProjectLookup_basic: in a domain of its own, the data source finds a project that the
// resource makes in the same configuration, by name (with domain_id) and by ID, and shows what
// the resource shows; a run that reads both look-ups asks Keystone for a listing of projects
// once (the by-name look-up's exact-name query). It finds a project made by hand (no mark of this
// provider) as an import shows it (its tag, no role bindings, null quotas), and changes nothing
// of it (untouched: not tagged or marked, nothing granted, no group made). A name no project has
// is refused.
func TestAccProjectLookup_basic(t *testing.T) {
	acctest.PreCheck(t)

	domainID, name, byHand := acctest.TestDomain(t), acctest.RandomName(), acctest.RandomName()
	handMadeID := handMadeProject(t, domainID, byHand, nil)
	log := acctest.NewRequestLog()

	config := projectConfig(domainID, name, `
  description = "looked up"
  tags        = ["team=lookup"]
  quotas      = { compute = { instances = 3 } }`, `
data "unikorn_project" "by_name" {
  name      = unikorn_project.test.name
  domain_id = unikorn_project.test.domain_id
}

data "unikorn_project" "by_id" {
  id = unikorn_project.test.id
}
`)
	handMade := fmt.Sprintf(`
data "unikorn_project" "by_hand" {
  name      = %[1]q
  domain_id = %[2]q
}
`, byHand, domainID)

	var checks []statecheck.StateCheck

	for _, ds := range []string{"data.unikorn_project.by_name", "data.unikorn_project.by_id"} {
		for _, attr := range []string{"id", "name", "domain_id", "description", "enabled", "tags", "group_id", "group_name",
			"quotas", "role_bindings", "user_domain_id"} {
			checks = append(checks, statecheck.CompareValuePairs(address, tfjsonpath.New(attr), ds, tfjsonpath.New(attr), compare.ValuesSame()))
		}

		checks = append(checks, statecheck.ExpectKnownValue(ds, tfjsonpath.New("quotas").AtMapKey("compute").AtMapKey("instances"),
			knownvalue.Int64Exact(3)))
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(managedOnly(checkDestroy(t, nil)),
			untouched(t, handMadeID, domainID, byHand)),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: checks,
				Check:             acctest.KeystoneProjectListingOnce(t, log, 2, "project"),
			},
			{
				Config: config + handMade,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_project.by_hand", tfjsonpath.New("id"), knownvalue.StringExact(handMadeID)),
					statecheck.ExpectKnownValue("data.unikorn_project.by_hand", tfjsonpath.New("tags"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("team")})),
					statecheck.ExpectKnownValue("data.unikorn_project.by_hand", tfjsonpath.New("role_bindings"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_project.by_hand", tfjsonpath.New("quotas"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.unikorn_project.by_hand", tfjsonpath.New("group_id"), knownvalue.Null()),
				},
				Check: untouched(t, handMadeID, domainID, byHand),
			},
			{
				Config: config + fmt.Sprintf(`
data "unikorn_project" "missing" {
  name      = %[1]q
  domain_id = %[2]q
}
`, name+"-none", domainID),
				ExpectError: regexp.MustCompile(`No project found(.|\n)*No project is called "` + name + `-none"(.|\n)*in\s+domain_id\s+` + domainID),
			},
		},
	})
}

// managedOnly is check on the managed resources of the state: the data sources, which the state
// holds too (by_hand's project outlives the test's destroy), are set aside while it runs.
func managedOnly(check func(*terraform.State) error) func(*terraform.State) error {
	return func(s *terraform.State) error {
		all := s.RootModule().Resources
		managed := map[string]*terraform.ResourceState{}

		for key, rs := range all {
			if !strings.HasPrefix(key, "data.") {
				managed[key] = rs
			}
		}

		s.RootModule().Resources = managed
		defer func() { s.RootModule().Resources = all }()

		return check(s)
	}
}
