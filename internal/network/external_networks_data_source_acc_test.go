package network_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccExternalNetworksDataSource lists the external networks of both regions, then applies
// the provider's selector: by ID (the public network of the other region is not admitted in
// this one), and by a tag no network carries (nothing; a network without external_network_id
// then fails and says why).
func TestAccExternalNetworksDataSource(t *testing.T) {
	project := tenant(t)
	def, other := regions(t)
	public, otherPublic := acctest.PublicNetworkID(t, def), acctest.PublicNetworkID(t, other)

	publicCheck := func(address, id string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(address, tfjsonpath.New("external_networks"), knownvalue.ListPartial(map[int]knownvalue.Check{
			0: knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id":     knownvalue.StringExact(id),
				"name":   knownvalue.StringExact(acctest.PublicNetworkName),
				"status": knownvalue.StringExact("ACTIVE"),
			}),
		}))
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
data "unikorn_external_networks" "default" {}

data "unikorn_external_networks" "other" {
  region = %[1]q
}
`, other),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_external_networks.default", tfjsonpath.New("region"), knownvalue.StringExact(def)),
					statecheck.ExpectKnownValue("data.unikorn_external_networks.default", tfjsonpath.New("default_id"), knownvalue.StringExact(public)),
					publicCheck("data.unikorn_external_networks.default", public),
					statecheck.ExpectKnownValue("data.unikorn_external_networks.other", tfjsonpath.New("default_id"), knownvalue.StringExact(otherPublic)),
					publicCheck("data.unikorn_external_networks.other", otherPublic),
				},
			},
			{
				Config: fmt.Sprintf(`
provider "unikorn" {
  external_networks = { ids = [%[1]q] }
}

data "unikorn_external_networks" "default" {}

data "unikorn_external_networks" "other" {
  region = %[2]q
}
`, public, other),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.unikorn_external_networks.default", tfjsonpath.New("external_networks"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("data.unikorn_external_networks.other", tfjsonpath.New("external_networks"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.unikorn_external_networks.other", tfjsonpath.New("default_id"), knownvalue.Null()),
				},
			},
			{
				Config: `
provider "unikorn" {
  external_networks = { tags = ["tf-acc-no-such-tag"] }
}

data "unikorn_external_networks" "default" {}
` + networkConfig(project, acctest.RandomName(), `  cidr = "10.60.0.0/24"`),
				ExpectError: regexpMust(`has no external network that the provider's external_networks selector admits (tags tf-acc-no-such-tag)`),
			},
		},
	})
}
