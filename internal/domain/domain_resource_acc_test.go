package domain_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

const address = "unikorn_domain.test"

func config(name, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_domain" "test" {
  name = %[1]q
  %[2]s
}
`, name, extra)
}

// TestAccDomain_basic creates a domain and checks it in Keystone, imports it by ID and by
// name, renames, re-describes and disables it in place (same ID), sees a change made out of
// band and undoes it, and re-creates it after it was deleted out of band.
func TestAccDomain_basic(t *testing.T) {
	acctest.PreCheck(t)

	name, renamed := acctest.RandomName(), acctest.RandomName()
	sameID := statecheck.CompareValue(compare.ValuesSame())

	var id string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDomainDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: config(name, `description = "acceptance"`),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("force_destroy"), knownvalue.Bool(false)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkKeystoneDomain(t), acctest.CaptureID(address, &id)),
			},
			acctest.ImportStep(address, nil),
			acctest.ImportStep(address, acctest.ImportedAs(name)),
			{
				Config:           config(renamed, "description = \"updated\"\n  enabled = false"),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("enabled"), knownvalue.Bool(false)),
				},
				Check: checkKeystoneDomain(t),
			},
			{
				// Drift: another tool re-describes and enables it; the plan undoes that in place.
				PreConfig: outOfBand(t, &id, func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
					desc, on := "changed out of band", true
					_, err := domains.Update(ctx, sc, id, domains.UpdateOpts{Description: &desc, Enabled: &on}).Extract()

					return err
				}),
				Config:            config(renamed, "description = \"updated\"\n  enabled = false"),
				ConfigPlanChecks:  acctest.Expect(address, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             checkKeystoneDomain(t),
			},
			{
				// Disappears: deleted out of band, the plan creates it again.
				PreConfig: outOfBand(t, &id, func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
					return domains.Delete(ctx, sc, id).ExtractErr() // disabled already
				}),
				Config:           config(renamed, "description = \"updated\"\n  enabled = false"),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionCreate),
				Check:            checkKeystoneDomain(t),
			},
		},
	})
}

// TestAccDomain_forceDestroy: a domain that holds a project (made out of band) is not
// destroyed, and the error names the project; with force_destroy set (in place, no call) the
// destroy deletes the project and the domain.
func TestAccDomain_forceDestroy(t *testing.T) {
	acctest.PreCheck(t)

	name, project := acctest.RandomName(), acctest.RandomName()

	var id string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkDomainDestroy(t), func(*terraform.State) error {
			all, err := acctest.AllPages(context.Background(), projects.List(acctest.AdminKeystone(t), projects.ListOpts{DomainID: id}), projects.ExtractProjects)
			if err != nil {
				return err
			}

			if len(all) > 0 {
				return fmt.Errorf("%d projects of domain %s are left", len(all), id)
			}

			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: config(name, ""),
				Check:  resource.ComposeAggregateTestCheckFunc(acctest.CaptureID(address, &id), createProject(t, &id, project)),
			},
			{
				Config:      config(name, ""),
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)Domain not empty.*` + regexp.QuoteMeta(project) + `.*force_destroy`),
			},
			{
				Config:           config(name, "force_destroy = true"),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check:            checkKeystoneDomain(t),
			},
		},
	})
}

// TestAccDomain_planErrors: Keystone's Default domain, the provider's managed domain and a
// domain that exists already are refused at plan time, by name and on import; so are names
// Keystone would not keep as written.
func TestAccDomain_planErrors(t *testing.T) {
	acctest.PreCheck(t)

	managedID, err := acctest.Client(t).ManagedDomainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	managed, err := domains.Get(context.Background(), acctest.AdminKeystone(t), managedID).Extract()
	if err != nil {
		t.Fatal(err)
	}

	existing := acctest.RandomName()

	d, err := domains.Create(context.Background(), acctest.AdminKeystone(t), domains.CreateOpts{Name: existing}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() {
		svc, err := domain.NewService(acctest.Client(t))
		if err == nil {
			_, err = svc.Delete(context.Background(), d.ID, "", true)
		}

		if err != nil {
			t.Errorf("deleting %s: %v", existing, err)
		}
	})

	steps := acctest.PlanErrors([]acctest.PlanError{
		{Config: config("Default", ""), Error: `(?s)Domain not manageable.*Default`},
		{Config: config("default", ""), Error: `Domain not manageable`},
		{Config: config(managed.Name, ""), Error: `(?s)Domain not manageable.*managed`},
		{Config: config(existing, ""), Error: `(?s)Domain exists already.*` + d.ID + `.*terraform`},
		{Config: config(" padded", ""), Error: `(?s)Invalid name.*white`},
		{Config: config(acctest.RandomName()+"-0123456789012345678901234567890123456789012345678901234567890", ""), Error: `(?s)Invalid name.*longer`},
	})

	for _, importID := range []string{"default", managedID, managed.Name} {
		steps = append(steps, resource.TestStep{
			Config: config(acctest.RandomName(), ""), ResourceName: address, ImportState: true, ImportStateId: importID,
			ExpectError: regexp.MustCompile(`(?s)Error importing domain.*never`),
		})
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// TestAccDomain_requestCount logs, and bounds, the HTTP requests of one create and one
// refresh from a cold client (authentication at construction not counted).
func TestAccDomain_requestCount(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	ctx := context.Background()
	svc, c := acctest.FreshCore(t, domain.NewService)

	var d *domain.Domain

	acctest.WithinBudget(t, c, "unikorn_domain",
		acctest.Budget{What: "create (the look for the name, domain, completion mark)", Most: 3, Do: acctest.Made(t, &d,
			func() (*domain.Domain, error) {
				return svc.Create(ctx, domain.Spec{Name: acctest.RandomName(), Enabled: true})
			},
			func(ctx context.Context, d *domain.Domain) error {
				_, err := svc.Delete(ctx, d.ID, "", false)
				return err
			})},
		acctest.Budget{What: "refresh", Most: 1, Do: func() error { _, _, err := svc.Observe(ctx, d.ID, d.Name); return err }},
		acctest.Budget{What: "delete", Most: 5, Do: func() error { _, err := svc.Delete(ctx, d.ID, "", false); return err }})
}
