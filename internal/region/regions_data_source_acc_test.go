package region_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

func TestAccRegionsDataSource_basic(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `data "unikorn_regions" "test" {}`,
				Check:  checkRegionsServeTenants("data.unikorn_regions.test"),
			},
		},
	})
}

// checkRegionsServeTenants checks that exactly the regions of the environment are listed, in
// order, the first being the default, each with the services a tenant needs, and that no two
// regions share an endpoint: two regions behind one Keystone must be independent
// deployments, not aliases of each other.
func checkRegionsServeTenants(address string) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(attrs map[string]string) error {
		want := acctest.Regions()

		if got := attrs["regions.#"]; got != fmt.Sprint(len(want)) {
			return fmt.Errorf("regions.# = %s, want %d (%v)", got, len(want), want)
		}

		if got := attrs["default_region"]; got != want[0] {
			return fmt.Errorf("default_region = %q, want %q", got, want[0])
		}
		owner := map[string]string{} // endpoint URL -> region

		for i, region := range want {
			if got := attrs[fmt.Sprintf("regions.%d.name", i)]; got != region {
				return fmt.Errorf("regions.%d.name = %q, want %q", i, got, region)
			}

			types := map[string]bool{}

			for j := 0; attrs[fmt.Sprintf("regions.%d.services.%d.type", i, j)] != ""; j++ {
				prefix := fmt.Sprintf("regions.%d.services.%d", i, j)
				serviceType := attrs[prefix+".type"]
				types[serviceType] = true

				url := attrs[prefix+".endpoints.public"]
				if url == "" {
					return fmt.Errorf("region %s service %s has no public endpoint", region, serviceType)
				}

				if serviceType == "identity" {
					continue // Keystone is shared by design.
				}

				if other, dup := owner[url]; dup && other != region {
					return fmt.Errorf("regions %s and %s share the endpoint %s", other, region, url)
				}

				owner[url] = region
			}

			for _, need := range []string{"compute", "network", "image", "load-balancer"} {
				if !types[need] {
					return fmt.Errorf("region %s has no %s service", region, need)
				}
			}
		}

		return nil
	})
}
