package server_test

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestMain registers the sweeper of unikorn_server: in every served region and every project,
// the servers whose name carries the acceptance tests' prefix, then the floating IPs made for
// them (description "unikorn_server server-<name>"), then their ports. Run with
// `go test ./internal/server/ -sweep=all` and the environment of the local cloud.
func TestMain(m *testing.M) {
	acctest.AddSweeper("unikorn_server", nil,
		sweep(compute, "server", "",
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return servers.List(sc, servers.ListOpts{AllTenants: true, Name: "^" + acctest.NamePrefix})
			},
			servers.ExtractServers, func(s servers.Server) (string, string) { return s.Name, s.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return servers.Delete(ctx, sc, id).ExtractErr()
			}),
		sweep(neutron, "floating IP", "unikorn_server "+naming.ServerPort(acctest.NamePrefix),
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return floatingips.List(sc, floatingips.ListOpts{})
			},
			floatingips.ExtractFloatingIPs, func(f floatingips.FloatingIP) (string, string) { return f.Description, f.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return floatingips.Delete(ctx, sc, id).ExtractErr()
			}),
		sweep(neutron, "port", naming.ServerPort(acctest.NamePrefix),
			func(sc *gophercloud.ServiceClient) pagination.Pager { return ports.List(sc, ports.ListOpts{}) },
			ports.ExtractPorts, func(p ports.Port) (string, string) { return p.Name, p.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return ports.Delete(ctx, sc, id).ExtractErr()
			}),
	)

	resource.TestMain(m)
}

// service is the configured scope's client of one service in region.
type service func(c *cloud.Client, region string) (*gophercloud.ServiceClient, error)

func compute(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().Compute(region)
}

func neutron(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().Network(region)
}

// sweep is the sweeper step of one kind of object of one service: listed with list and
// extract, named (by what carries the prefix) and identified with nameID, deleted with del.
func sweep[T any](client service, what, prefix string,
	list func(*gophercloud.ServiceClient) pagination.Pager, extract func(pagination.Page) ([]T, error),
	nameID func(T) (string, string), del func(context.Context, *gophercloud.ServiceClient, string) error,
) acctest.SweepFunc {
	return acctest.Sweep[T]{
		What:   what,
		Prefix: prefix,
		List: func(ctx context.Context, c *cloud.Client, region string) ([]T, error) {
			sc, err := client(c, region)
			if err != nil {
				return nil, err
			}

			pages, err := list(sc).AllPages(ctx)
			if err != nil {
				return nil, err
			}

			return extract(pages)
		},
		Name: func(o T) string { name, _ := nameID(o); return name },
		ID:   func(o T) string { _, id := nameID(o); return id },
		Delete: func(ctx context.Context, c *cloud.Client, region, id string) error {
			sc, err := client(c, region)
			if err != nil {
				return err
			}

			return del(ctx, sc, id)
		},
	}.Run
}
