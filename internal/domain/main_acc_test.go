package domain_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

func TestMain(m *testing.M) {
	acctest.AddSweeper("unikorn_domain", nil, sweepDomains)
	resource.TestMain(m)
}

// sweepDomains deletes, with everything in them, the domains whose names carry the test
// prefix (Keystone is global: one pass, not one per region). Run with
// `go test ./internal/domain/ -sweep=all`.
func sweepDomains(ctx context.Context, c *cloud.Client) error {
	svc, err := domain.NewService(c)
	if err != nil {
		return err
	}

	all, err := cloud.ListAll(ctx, domains.List(svc.Keystone, domains.ListOpts{}), domains.ExtractDomains, "domains")
	if err != nil {
		return err
	}

	var errs []error

	for _, d := range all {
		if strings.HasPrefix(d.Name, acctest.NamePrefix) {
			if _, err := svc.Delete(ctx, d.ID, "", true); err != nil {
				errs = append(errs, fmt.Errorf("domain %s (%s): %w", d.Name, d.ID, err))
			}
		}
	}

	return errors.Join(errs...)
}

// checkDomainDestroy asks Keystone that every unikorn_domain of the state is gone.
func checkDomainDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "unikorn_domain" {
				continue
			}

			_, err := domains.Get(context.Background(), acctest.AdminKeystone(t), rs.Primary.ID).Extract()

			switch {
			case err == nil:
				return fmt.Errorf("domain %s (%s) still exists", rs.Primary.Attributes["name"], rs.Primary.ID)
			case !domain.NotFound(err):
				return err
			}
		}

		return nil
	}
}

// checkKeystoneDomain asks Keystone that the domain of the test is what the state says, and
// the only one of its name.
func checkKeystoneDomain(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}

		a := rs.Primary.Attributes

		d, err := domains.Get(context.Background(), acctest.AdminKeystone(t), a["id"]).Extract()
		if err != nil {
			return err
		}

		if got := fmt.Sprintf("%s|%s|%t", d.Name, d.Description, d.Enabled); got != a["name"]+"|"+a["description"]+"|"+a["enabled"] {
			return fmt.Errorf("keystone has %s, the state %v", got, a)
		}

		svc, err := domain.NewService(acctest.Client(t))
		if err != nil {
			return err
		}

		if found, err := svc.Find(context.Background(), a["name"]); err != nil || found == nil || found.ID != a["id"] {
			return fmt.Errorf("finding %s by name: %+v, %v", a["name"], found, err)
		}

		return nil
	}
}

// outOfBand runs change on the domain at address in Keystone, as another tool would.
func outOfBand(t *testing.T, id *string, change func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error) func() {
	return func() {
		if err := change(context.Background(), acctest.AdminKeystone(t), *id); err != nil {
			t.Fatal(err)
		}
	}
}

// captureID records the ID of the resource at address.
func captureID(address string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}

		*id = rs.Primary.ID

		return nil
	}
}

// createProject makes a project in the domain *id, as a tenant of it would have.
func createProject(t *testing.T, id *string, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := projects.Create(context.Background(), acctest.AdminKeystone(t), projects.CreateOpts{Name: name, DomainID: *id}).Extract()
		return err
	}
}
