package providernetwork_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/providernetwork"
)

// rawNetwork is a network create body as it is given.
type rawNetwork map[string]any

func (b rawNetwork) ToNetworkCreateMap() (map[string]any, error) {
	return map[string]any{"network": map[string]any(b)}, nil
}

// handMadeNetwork makes a VLAN network (Neutron allocates its ID) on physnet called name, with
// description, out of band in the service user's project, and deletes it when the test ends.
func handMadeNetwork(t *testing.T, name, description string) string {
	t.Helper()

	n, err := networks.Create(context.Background(), neutron(t), rawNetwork{
		"name": name, "description": description, "provider:network_type": "vlan", "provider:physical_network": physnet(),
	}).Extract()
	if err != nil {
		t.Fatalf("creating network %s: %v", name, err)
	}

	t.Cleanup(func() {
		if err := networks.Delete(context.Background(), neutron(t), n.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting network %s: %v", n.ID, err)
		}
	})

	return n.ID
}

// TestAccProviderNetwork_existingRefused: a network of the name made by hand in the service
// user's project is refused by a unikorn_provider_network of that name, and left untouched (not
// tagged, its description kept) (issue 26, item 2; the old code adopted it).
func TestAccProviderNetwork_existingRefused(t *testing.T) {
	preCheck(t)

	name := acctest.RandomName()
	id := handMadeNetwork(t, name, "by hand")

	untouched := func(*terraform.State) error {
		n, err := networks.Get(context.Background(), neutron(t), id).Extract()
		if err != nil || n.Description != "by hand" || len(n.Tags) != 0 {
			return fmt.Errorf("network %s: %+v (%v), want it untouched", id, n, err)
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDestroy(t), untouched),
		Steps: []resource.TestStep{{
			Config:      config(name, `network_type = "vlan"`),
			ExpectError: regexp.MustCompile(`(?s)Provider network exists already.*` + id + `.*did\s+not\s+make\s+it.*terraform\s+import`),
		}},
	})
}

// TestAccProviderNetwork_interruptedCreateAdopted: a network posted with the creation mark as
// its description and never tagged (a create killed between its POST and its tags) is adopted by
// the unikorn_provider_network of its name: same ID, tagged with both marks, its description
// cleared.
func TestAccProviderNetwork_interruptedCreateAdopted(t *testing.T) {
	preCheck(t)

	name := acctest.RandomName()
	id := handMadeNetwork(t, name, naming.MadeFor(providernetwork.TypeName).Description())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{{
			Config:            config(name, `network_type = "vlan"`),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(id))},
			Check: resource.ComposeAggregateTestCheckFunc(checkCloud(t, "vlan", false, map[string]string{}), func(*terraform.State) error {
				n, err := networks.Get(context.Background(), neutron(t), id).Extract()

				want := naming.MadeFor(providernetwork.TypeName).Done().Tags()
				if err != nil || n.Description != "" || !slices.Equal(slices.Sorted(slices.Values(n.Tags)), slices.Sorted(slices.Values(want))) {
					return fmt.Errorf("network %s: %+v (%v), want it tagged %v, its description cleared", id, n, err, want)
				}

				return nil
			}),
		}},
	})
}
