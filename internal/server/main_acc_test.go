package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	resource.AddTestSweepers("unikorn_server", &resource.Sweeper{
		Name: "unikorn_server",
		F:    sweepServers,
	})

	resource.TestMain(m)
}

// sweepServers deletes, in every served region and every project, the servers whose name
// carries the acceptance tests' prefix, then their ports and the floating IPs made for them.
// Run with `go test ./internal/server/ -sweep=all` and the environment of the local cloud.
func sweepServers(_ string) error {
	ctx := context.Background()

	c, err := cloud.New(ctx, cloud.Config{
		Cloud:      os.Getenv("OS_CLOUD"),
		CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
		Regions:    acctest.Regions(),
		Domain:     os.Getenv("UNIKORN_DOMAIN"),
	})
	if err != nil {
		return err
	}

	var errs []error

	for _, region := range c.Regions() {
		compute, err := c.Base().Compute(region)
		if err != nil {
			return err
		}

		network, err := c.Base().Network(region)
		if err != nil {
			return err
		}

		pages, err := servers.List(compute, servers.ListOpts{AllTenants: true, Name: "^" + acctest.NamePrefix}).AllPages(ctx)
		if err != nil {
			return err
		}

		all, err := servers.ExtractServers(pages)
		if err != nil {
			return err
		}

		for _, s := range all {
			if strings.HasPrefix(s.Name, acctest.NamePrefix) {
				if err := servers.Delete(ctx, compute, s.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
					errs = append(errs, fmt.Errorf("server %s in %s: %w", s.ID, region, err))
				}
			}
		}

		fpages, err := floatingips.List(network, floatingips.ListOpts{}).AllPages(ctx)
		if err != nil {
			return err
		}

		fips, err := floatingips.ExtractFloatingIPs(fpages)
		if err != nil {
			return err
		}

		for _, fip := range fips {
			if strings.HasPrefix(fip.Description, "unikorn_server "+naming.ServerPort(acctest.NamePrefix)) {
				if err := floatingips.Delete(ctx, network, fip.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
					errs = append(errs, fmt.Errorf("floating IP %s in %s: %w", fip.ID, region, err))
				}
			}
		}

		ppages, err := ports.List(network, ports.ListOpts{}).AllPages(ctx)
		if err != nil {
			return err
		}

		ps, err := ports.ExtractPorts(ppages)
		if err != nil {
			return err
		}

		for _, p := range ps {
			if strings.HasPrefix(p.Name, naming.ServerPort(acctest.NamePrefix)) {
				if err := ports.Delete(ctx, network, p.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
					errs = append(errs, fmt.Errorf("port %s in %s: %w", p.ID, region, err))
				}
			}
		}
	}

	return errors.Join(errs...)
}
