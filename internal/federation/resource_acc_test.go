package federation_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

const address = "unikorn_federation.test"

func config(idpID, domainID, body string) string {
	return fmt.Sprintf(`
resource "unikorn_federation" "test" {
  idp_id    = %[1]q
  domain_id = %[2]q
  %[3]s
}
`, idpID, domainID, body)
}

// TestAccFederation_basic makes the identity provider, mapping and protocol of an OpenID
// Connect login from rules in their common form and proves the mapping with Keystone's own
// mapping engine (a matching assertion maps to the user and groups, a non-matching one to
// nothing); imports it; changes everything that changes in place (description, enabled,
// remote IDs, rules, the protocol); moves to rules_json (proven again); sees a protocol
// deleted and rules changed out of band and puts them back; and destroys it all.
func TestAccFederation_basic(t *testing.T) {
	acctest.PreCheck(t)

	domainID := acctest.TestDomain(t)
	idpID := acctest.RandomName()
	issuer := "https://" + idpID + ".idp.example.com"

	common := func(groups, extra string) string {
		return config(idpID, domainID, fmt.Sprintf(`
  remote_ids = [%[1]q]
  protocol   = "openid"
  rules = [{
    user_attribute  = "OIDC-preferred_username"
    match           = [{ attribute = "OIDC-groups", any_one_of = ["staff", "contractors"] }]
    groups          = %[2]s
    group_domain_id = %[3]q
  }]
  %[4]s`, issuer, groups, domainID, extra))
	}

	asJSON := config(idpID, domainID, fmt.Sprintf(`
  remote_ids = [%[1]q, "%[1]s/v2"]
  protocol   = "mapped"
  rules_json = jsonencode([{
    local  = [{ user = { name = "{0}" } }, { groups = "{1}", domain = { id = %[2]q } }]
    remote = [{ type = "OIDC-preferred_username" }, { type = "OIDC-groups", whitelist = ["staff", "dev"] }]
  }])`, issuer, domainID))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: common(`["members"]`, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkKeystone(t, idpID, domainID, []string{issuer}, true, []string{"openid:" + naming.FederationMapping(idpID)}),
					checkMapped(t, idpID, "OIDC-preferred_username: alice\nOIDC-groups: staff;dev\n", "alice", domainID, "members"),
					checkMapped(t, idpID, "OIDC-preferred_username: mallory\nOIDC-groups: guests\n", "", domainID),
				),
			},
			acctest.ImportStep(address, nil),
			{
				Config:           common(`["members", "staff"]`, "description = \"corporate SSO\"\n  enabled = false"),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkKeystone(t, idpID, domainID, []string{issuer}, false, []string{"openid:" + naming.FederationMapping(idpID)}),
					checkMapped(t, idpID, "OIDC-preferred_username: bob\nOIDC-groups: contractors\n", "bob", domainID, "members", "staff"),
				),
			},
			{
				Config:           asJSON,
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkKeystone(t, idpID, domainID, []string{issuer, issuer + "/v2"}, true, []string{"mapped:" + naming.FederationMapping(idpID)}),
					checkMapped(t, idpID, "OIDC-preferred_username: carol\nOIDC-groups: staff;guests;dev\n", "carol", domainID, "dev", "staff"),
				),
			},
			{
				// Drift: the protocol deleted and the rules changed by hand.
				PreConfig: func() {
					sc := acctest.AdminKeystone(t)
					ctx := context.Background()

					if _, err := sc.Delete(ctx, sc.ServiceURL("OS-FEDERATION", "identity_providers", idpID, "protocols", "mapped"), nil); err != nil {
						t.Fatal(err)
					}

					err := federation.UpdateMapping(ctx, sc, naming.FederationMapping(idpID), federation.UpdateMappingOpts{Rules: []federation.MappingRule{{
						Local:  []federation.RuleLocal{{User: &federation.RuleUser{Name: "{0}"}}},
						Remote: []federation.RuleRemote{{Type: "REMOTE_USER"}},
					}}}).Err
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:           asJSON,
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkKeystone(t, idpID, domainID, []string{issuer, issuer + "/v2"}, true, []string{"mapped:" + naming.FederationMapping(idpID)}),
					checkMapped(t, idpID, "OIDC-preferred_username: carol\nOIDC-groups: dev\n", "carol", domainID, "dev"),
				),
			},
		},
	})
}

// checkKeystone asks Keystone for the identity provider (domain, remote IDs, enabled), its
// protocols ("protocol:mapping") and that the mapping holds the rules of the state.
func checkKeystone(t *testing.T, idpID, domainID string, remoteIDs []string, enabled bool, protos []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		sc := acctest.AdminKeystone(t)

		var body struct {
			IDP struct {
				DomainID  string   `json:"domain_id"`
				Enabled   bool     `json:"enabled"`
				RemoteIDs []string `json:"remote_ids"`
			} `json:"identity_provider"`
		}

		if _, err := sc.Get(context.Background(), sc.ServiceURL("OS-FEDERATION", "identity_providers", idpID), &body, nil); err != nil {
			return err
		}

		slices.Sort(body.IDP.RemoteIDs)
		slices.Sort(remoteIDs)

		if body.IDP.DomainID != domainID || body.IDP.Enabled != enabled || !slices.Equal(body.IDP.RemoteIDs, remoteIDs) {
			return fmt.Errorf("identity provider %s: %+v; want domain %s, enabled %t, remote IDs %v", idpID, body.IDP, domainID, enabled, remoteIDs)
		}

		got, err := protocols(t, idpID)
		if err != nil || !slices.Equal(got, protos) {
			return fmt.Errorf("protocols %v (%v), want %v", got, err, protos)
		}

		rules, err := keystoneRules(t, idpID)
		if err != nil {
			return err
		}

		state := s.RootModule().Resources[address].Primary.Attributes["rules_json"]
		if !sameJSON(rules, state) {
			return fmt.Errorf("keystone's rules\n  %s\nare not the state's\n  %s", rules, state)
		}

		return nil
	}
}

// checkMapped feeds assertion to Keystone's mapping engine with the rules Keystone holds for
// the identity provider, and checks the user name and groups (of domainID) it derives; an
// empty user means that nothing may map.
//
// Only the local cloud's mapping engine is at hand: on another cloud the check says so in the
// log and proves nothing.
func checkMapped(t *testing.T, idpID, assertion, user, domainID string, groups ...string) resource.TestCheckFunc {
	if !acctest.HasMappingEngine() {
		return func(*terraform.State) error {
			t.Logf("not proving the mapping of %q: Keystone's mapping engine runs on the local bed only (%s=1)", assertion, acctest.ExternalEnv)

			return nil
		}
	}

	return func(*terraform.State) error {
		rules, err := keystoneRules(t, idpID)
		if err != nil {
			return err
		}

		got, stderr, err := acctest.MappingEngine(context.Background(), t, rules, assertion)

		if user == "" {
			if err == nil || !strings.Contains(stderr, "Could not map any federated user properties") {
				return fmt.Errorf("assertion %q mapped to %+v (%v); want nothing mapped", assertion, got, err)
			}

			return nil
		}

		if err != nil {
			return fmt.Errorf("%w\n%s", err, stderr)
		}

		var names []string

		for _, g := range got.GroupNames {
			if g.Domain.ID != domainID {
				return fmt.Errorf("group %s mapped in domain %s, want %s", g.Name, g.Domain.ID, domainID)
			}

			names = append(names, g.Name)
		}

		slices.Sort(names)
		names = slices.Compact(names)

		if got.User.Name != user || !slices.Equal(names, groups) {
			return fmt.Errorf("assertion %q mapped to user %q in groups %v; want %q in %v", assertion, got.User.Name, names, user, groups)
		}

		return nil
	}
}

// TestAccFederation_badInput: mapping rules Keystone would refuse, in either form, an empty
// remote_ids, and both or neither of rules and rules_json are plan-time errors naming where.
func TestAccFederation_badInput(t *testing.T) {
	acctest.PreCheck(t)

	id := acctest.RandomName()

	steps := []struct{ body, want string }{
		{`remote_ids = ["x"]
  protocol   = "openid"
  rules_json = jsonencode([{ local = [{ user = { name = "{1}" } }], remote = [{ type = "a" }, { type = "b", any_one_of = ["x"] }] }])`,
			`Invalid mapping rules.*rules_json.*\[0\]\.local\[0\]\.user\.name: \{1\} refers to remote rule value 1`},
		{`remote_ids = ["x"]
  protocol   = "openid"
  rules_json = jsonencode([{ local = [{ group = { name = "g" } }], remote = [{ type = "a", regex = true }] }])`,
			`Invalid mapping rules.*\[0\]\.local\[0\]\.group: "domain" is required.*\[0\]\.remote\[0\]: "regex" needs one of`},
		{`remote_ids = ["x"]
  protocol   = "openid"
  rules      = [{ user_attribute = "a", match = [{ attribute = "b", any_one_of = ["x"], not_any_of = ["y"] }] }]`,
			`Invalid mapping rule.*rules\[0\]\.match\[0\]: set exactly one of any_one_of and not_any_of`},
		{`remote_ids = ["x"]
  protocol   = "openid"
  rules      = [{ user_attribute = "a", groups = ["g"] }]`,
			`Invalid mapping rule.*rules\[0\]: groups and group_domain_id go together`},
		{`remote_ids = []
  protocol   = "openid"
  rules      = [{ user_attribute = "a" }]`,
			`remote_ids.*set must contain at least 1 elements`},
		{`remote_ids = ["x"]
  protocol   = "openid"
  rules      = [{ user_attribute = "a" }]
  rules_json = "[]"`,
			`2 attributes specified when one \(and only one\) of \[rules,rules_json\]`},
		{`remote_ids = ["x"]
  protocol   = "openid"`,
			`No attribute specified when one \(and only one\) of \[rules,rules_json\]`},
		{`remote_ids = ["x"]
  protocol   = "oauth"
  rules      = [{ user_attribute = "a" }]`,
			`protocol value must be one of: \["openid" "saml2" "mapped"\]`},
	}

	ts := make([]resource.TestStep, len(steps))
	for i, s := range steps {
		ts[i] = resource.TestStep{
			Config:      config(id, "d", s.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile("(?s)" + strings.ReplaceAll(s.want, " ", `\s+`)),
		}
	}

	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: ts})
}

// sameJSON tells whether two JSON documents mean the same.
func sameJSON(a, b string) bool {
	return canonical(a) == canonical(b) && canonical(a) != ""
}
