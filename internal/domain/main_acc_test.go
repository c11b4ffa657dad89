package domain_test

import (
	"context"
	"fmt"
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
	acctest.Main(m, "unikorn_domain", nil, sweepDomains)
}

// sweepDomains deletes, with everything in them, the domains whose names carry the test
// prefix. Run with `go test ./internal/domain/ -sweep=all`.
var sweepDomains = acctest.GlobalSweep("domain", domain.NewService,
	func(ctx context.Context, svc *domain.Service) ([]domains.Domain, error) {
		return cloud.ListAll(ctx, domains.List(svc.Keystone, domains.ListOpts{}), domains.ExtractDomains, "domains")
	},
	func(d domains.Domain) (string, string) { return d.Name, d.ID },
	func(ctx context.Context, svc *domain.Service, d domains.Domain) error {
		_, err := svc.Delete(ctx, d.ID, "", true)
		return err
	})

// checkDomainDestroy asks Keystone that every unikorn_domain of the state is gone.
func checkDomainDestroy(t *testing.T) func(*terraform.State) error {
	return acctest.CheckGone(map[string]acctest.Getter{"unikorn_domain": func(ctx context.Context, a map[string]string) error {
		return domains.Get(ctx, acctest.AdminKeystone(t), a["id"]).Err
	}})
}

// checkKeystoneDomain asks Keystone that the domain of the test is what the state says, and
// the only one of its name.
func checkKeystoneDomain(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {

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
	})
}

// outOfBand runs change on the domain at address in Keystone, as another tool would.
func outOfBand(t *testing.T, id *string, change func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error) func() {
	return func() {
		if err := change(context.Background(), acctest.AdminKeystone(t), *id); err != nil {
			t.Fatal(err)
		}
	}
}

// createProject makes a project in the domain *id, as a tenant of it would have.
func createProject(t *testing.T, id *string, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := projects.Create(context.Background(), acctest.AdminKeystone(t), projects.CreateOpts{Name: name, DomainID: *id}).Extract()
		return err
	}
}
