package domain_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// handMadeDomain makes a domain called name out of band (described "by hand"), with the tags
// (marks), and deletes it with what it holds when the test ends.
func handMadeDomain(t *testing.T, name string, tags []string) string {
	t.Helper()

	body := map[string]any{"name": name, "description": "by hand", "enabled": true}
	if tags != nil {
		body["tags"] = tags
	}

	var out struct {
		Domain struct {
			ID string `json:"id"`
		} `json:"domain"`
	}

	sc := acctest.AdminKeystone(t)
	if _, err := sc.Post(context.Background(), sc.ServiceURL("domains"), map[string]any{"domain": body}, &out,
		&gophercloud.RequestOpts{OkCodes: []int{201}}); err != nil {
		t.Fatalf("creating domain %s: %v", name, err)
	}

	t.Cleanup(func() {
		svc, err := domain.NewService(acctest.Client(t))
		if err == nil {
			_, err = svc.Delete(context.Background(), out.Domain.ID, "", true)
		}

		if err != nil {
			t.Errorf("deleting domain %s: %v", out.Domain.ID, err)
		}
	})

	return out.Domain.ID
}

// keystoneDomain is what Keystone holds of domain id.
func keystoneDomain(t *testing.T, id string) (*domain.Domain, error) {
	t.Helper()

	svc, err := domain.NewService(acctest.Client(t))
	if err != nil {
		return nil, err
	}

	return svc.Get(context.Background(), id)
}

// TestAccDomain_existingRefused: a domain of the name made by hand is refused by a
// unikorn_domain of that name, and left untouched: its description, enabled flag and marks are
// as they were, and it survives the test's destroy (issue 26, item 2).
func TestAccDomain_existingRefused(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	id := handMadeDomain(t, name, nil)

	untouched := func(*terraform.State) error {
		d, err := keystoneDomain(t, id)
		if err != nil || d == nil || d.Description != "by hand" || !d.Enabled || d.Mark.Marked() {
			return fmt.Errorf("domain %s: %+v (%v), want it untouched", id, d, err)
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDomainDestroy(t), untouched),
		Steps: []resource.TestStep{{
			Config:      config(name, `description = "mine"`),
			ExpectError: regexp.MustCompile(`(?s)Domain exists already.*` + id + `.*did\s+not\s+make\s+it.*terraform\s+import\s+unikorn_domain`),
		}},
	})
}

// TestAccDomain_interruptedCreateAdopted: a domain made directly with the creation mark of
// unikorn_domain and no completion mark (what a create killed after its POST leaves) is adopted
// by the unikorn_domain of its name: same ID, brought to the configuration, marked finished.
func TestAccDomain_interruptedCreateAdopted(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	id := handMadeDomain(t, name, naming.MadeFor(domain.TypeName).Tags())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDomainDestroy(t),
		Steps: []resource.TestStep{{
			Config:            config(name, `description = "mine"`),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(id))},
			Check: resource.ComposeAggregateTestCheckFunc(checkKeystoneDomain(t), func(*terraform.State) error {
				d, err := keystoneDomain(t, id)
				if err != nil || d == nil || d.Description != "mine" || d.Mark != naming.MadeFor(domain.TypeName).Done() {
					return fmt.Errorf("domain %s: %+v (%v), want it described \"mine\" and marked finished", id, d, err)
				}

				return nil
			}),
		}},
	})
}
