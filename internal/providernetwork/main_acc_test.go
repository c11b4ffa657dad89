package providernetwork_test

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_provider_network", nil, sweepProviderNetworks)
}

// sweepProviderNetworks deletes, in every region, the networks of the service user's project
// whose names carry the test prefix, with their subnets. Run with
// `go test ./internal/providernetwork/ -sweep=all`.
var sweepProviderNetworks = acctest.PagedSweep(acctest.Neutron, "provider network", acctest.NamePrefix,
	func(sc *gophercloud.ServiceClient) pagination.Pager { return networks.List(sc, networks.ListOpts{}) }, networks.ExtractNetworks,
	func(n networks.Network) (string, string) { return n.Name, n.ID },
	func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
		subs, err := acctest.AllPages(ctx, subnets.List(sc, subnets.ListOpts{NetworkID: id}), subnets.ExtractSubnets)
		if err != nil {
			return err
		}

		for _, s := range subs {
			if err := subnets.Delete(ctx, sc, s.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
				return err
			}
		}

		return networks.Delete(ctx, sc, id).ExtractErr()
	})
