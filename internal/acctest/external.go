package acctest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// PublicNetworkID is the ID of the cloud's external network PublicNetworkName in region.
func PublicNetworkID(t *testing.T, region string) string {
	t.Helper()

	id, err := publicNetworkID(context.Background(), Client(t), region)
	if err != nil {
		t.Fatal(err)
	}

	return id
}

func publicNetworkID(ctx context.Context, c *cloud.Client, region string) (string, error) {
	sc, err := c.Base().Network(region)
	if err != nil {
		return "", err
	}

	yes := true

	all, err := AllPages(ctx, networks.List(sc, external.ListOptsExt{ListOptsBuilder: networks.ListOpts{Name: PublicNetworkName}, External: &yes}),
		networks.ExtractNetworks)
	if err != nil {
		return "", fmt.Errorf("listing the external networks of %s: %w", region, err)
	}

	all = naming.Exact(all, PublicNetworkName, func(n networks.Network) string { return n.Name })
	if len(all) != 1 {
		return "", fmt.Errorf("%d external networks called %s in %s", len(all), PublicNetworkName, region)
	}

	return all[0].ID, nil
}

var (
	pinOnce sync.Once
	pinErr  error
)

// pinExternalNetworks makes every provider the tests start (in this process) route through
// the cloud's PublicNetworkName networks when its block sets no external_networks: the tests of
// unikorn_provider_network and the region example make external networks of their own while
// the rest of the suite runs, and the provider's default is the first external network
// Neutron lists. A test about the default itself sets `external_networks` in its block.
func pinExternalNetworks(t *testing.T) {
	t.Helper()

	pinOnce.Do(func() {
		if os.Getenv(network.ExternalNetworkIDsEnv) != "" {
			return
		}

		var ids []string

		for _, region := range Regions() {
			id, err := publicNetworkID(context.Background(), Client(t), region)
			if err != nil {
				pinErr = err
				return
			}

			ids = append(ids, id)
		}

		// Process-wide on purpose: for every provider started after it, not only this test's.
		pinErr = os.Setenv(network.ExternalNetworkIDsEnv, strings.Join(ids, ",")) //nolint:usetesting // see above
	})

	if pinErr != nil {
		t.Fatalf("pinning the provider's external networks to the cloud's %s networks (%s): %v", PublicNetworkName, ExternalNetworkEnv, pinErr)
	}
}
