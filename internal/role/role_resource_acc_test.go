package role_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
)

const address = "unikorn_role.test"

// config is a role "test" named name with the extra arguments, and a global role "base" named
// base that it may imply.
func config(name, base, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_role" "base" {
  name = %[2]q
}

resource "unikorn_role" "test" {
  name = %[1]q
  %[3]s
}
`, name, base, extra)
}

// domainConfig adds a domain "d" named domainName.
func domainConfig(domainName, name, base, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_domain" "d" {
  name = %[1]q
}
`, domainName) + config(name, base, extra)
}

// TestAccRole_basic creates a global role implying member and checks it in Keystone, imports
// it by ID and by name, renames it and converges its implied roles in place (with a role of
// the same configuration), undoes a rule removed and a rule added out of band, re-creates it
// after it was deleted out of band, and replaces it by a role of a domain (imported by
// DOMAIN_ID/name).
func TestAccRole_basic(t *testing.T) {
	acctest.PreCheck(t)

	name, renamed, base, domainName := acctest.RandomName(), acctest.RandomName(), acctest.RandomName(), acctest.RandomName()
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())

	var id string

	implies := func(names ...string) statecheck.StateCheck {
		checks := make([]knownvalue.Check, len(names))
		for i, n := range names {
			checks[i] = knownvalue.StringExact(n)
		}

		return statecheck.ExpectKnownValue(address, tfjsonpath.New("implies"), knownvalue.SetExact(checks))
	}

	twoRules := "implies = [\"member\", unikorn_role.base.name]\n  description = \"updated\""

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkRoleDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: config(name, base, `implies = ["member"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(address, tfjsonpath.New("id")),
					newID.AddStateValue(address, tfjsonpath.New("id")),
					implies("member"),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("domain_id"), knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkKeystoneRole(t, address), checkKeystoneRole(t, "unikorn_role.base"),
					acctest.CaptureID(address, &id)),
			},
			acctest.ImportStep(address, nil),
			acctest.ImportStep(address, acctest.ImportedAs(name)),
			{
				Config:            config(renamed, base, twoRules),
				ConfigPlanChecks:  acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(address, tfjsonpath.New("id")), implies("member", base)},
				Check:             checkKeystoneRole(t, address),
			},
			{
				// Drift: another tool removes one rule and adds another; the plan undoes both in place.
				PreConfig: func() {
					ctx := context.Background()
					if err := roles.DeleteRoleInferenceRule(ctx, acctest.AdminKeystone(t), id, acctest.RoleID(t, "member")).ExtractErr(); err != nil {
						t.Fatal(err)
					}

					if _, err := roles.CreateRoleInferenceRule(ctx, acctest.AdminKeystone(t), id, acctest.RoleID(t, "reader")).Extract(); err != nil {
						t.Fatal(err)
					}
				},
				Config:            config(renamed, base, twoRules),
				ConfigPlanChecks:  acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(address, tfjsonpath.New("id")), implies("member", base)},
				Check:             checkKeystoneRole(t, address),
			},
			{
				// Disappears: deleted out of band, the plan creates it again.
				PreConfig: func() {
					if err := roles.Delete(context.Background(), acctest.AdminKeystone(t), id).ExtractErr(); err != nil {
						t.Fatal(err)
					}
				},
				Config:            config(renamed, base, twoRules),
				ConfigPlanChecks:  acctest.Expect(address, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             checkKeystoneRole(t, address),
			},
			{
				// Replace: the role becomes specific to a domain; it may still imply global roles.
				Config:           domainConfig(domainName, renamed, base, twoRules+"\n  domain_id = unikorn_domain.d.id"),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.CompareValuePairs(address, tfjsonpath.New("domain_id"), "unikorn_domain.d", tfjsonpath.New("id"), compare.ValuesSame()),
				},
				Check: checkKeystoneRole(t, address),
			},
			acctest.ImportStep(address, func(s *terraform.State) (string, error) {
				a, err := acctest.Attributes(s, address)
				return a["domain_id"] + "/" + a["name"], err
			}),
		},
	})
}

// TestAccRole_planErrors: implied roles Keystone refuses, names it would not keep as written,
// and the name of a role that exists already are plan-time errors; an implied role that does not exist is an apply error naming it.
func TestAccRole_planErrors(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()

	steps := acctest.PlanErrors([]acctest.PlanError{
		{Config: config(name, acctest.RandomName(), `implies = ["admin"]`), Error: `(?s)implies.*admin`},
		{Config: config(name, acctest.RandomName(), fmt.Sprintf(`implies = [%q]`, name)), Error: `(?s)Role implies itself`},
		{Config: config(name, acctest.RandomName(), `implies = []`), Error: `(?s)implies.*at least 1`},
		{Config: config(name+" ", acctest.RandomName(), ""), Error: `(?s)Invalid name.*white`},
		{Config: config("member", acctest.RandomName(), ""), Error: `(?s)Role exists already.*terraform\s+import`},
	})

	steps = append(steps, resource.TestStep{
		Config:      config(name, acctest.RandomName(), fmt.Sprintf(`implies = [%q]`, acctest.RandomName())),
		ExpectError: regexp.MustCompile(`(?s)Error creating role.*not global roles`),
	})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkRoleDestroy(t),
		Steps:                    steps,
	})
}

// TestAccRole_requestCount logs, and bounds, the HTTP requests of one create (with one implied
// role) and one refresh from a cold client.
func TestAccRole_requestCount(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	ctx := context.Background()
	svc, c := acctest.FreshCore(t, role.NewService)

	var r *role.Role

	acctest.WithinBudget(t, c, "unikorn_role",
		acctest.Budget{What: "create (one listing of the global roles, the look for the name, role, one rule, completion mark)", Most: 5, Do: acctest.Made(t, &r,
			func() (*role.Role, error) {
				return svc.Create(ctx, role.Spec{Name: acctest.RandomName(), Implies: []string{"member"}})
			},
			func(ctx context.Context, r *role.Role) error { return svc.Delete(ctx, r.ID) })},
		acctest.Budget{What: "refresh", Most: 2, Do: func() error { _, _, err := svc.Observe(ctx, r.ID, r.Name, ""); return err }})
}
