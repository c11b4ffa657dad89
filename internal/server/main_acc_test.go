package server_test

import (
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestMain registers the sweeper of unikorn_server: in every served region and every project,
// the servers whose name carries the acceptance tests' prefix, then the floating IPs made for
// them (description "unikorn_server server-<name>"), then their ports, then the snapshot images
// of the prefix. Run with
// `go test ./internal/server/ -sweep=all` and the environment of the local cloud.
func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_server", nil,
		acctest.PagedSweep(acctest.Compute, "server", "",
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return servers.List(sc, servers.ListOpts{AllTenants: true, Name: "^" + acctest.NamePrefix})
			},
			servers.ExtractServers, func(s servers.Server) (string, string) { return s.Name, s.ID },
			acctest.Deleted(servers.Delete)),
		acctest.FloatingIPSweep("unikorn_server "+naming.ServerPort(acctest.NamePrefix)),
		acctest.PagedSweep(acctest.Neutron, "port", naming.ServerPort(acctest.NamePrefix),
			func(sc *gophercloud.ServiceClient) pagination.Pager { return ports.List(sc, ports.ListOpts{}) },
			ports.ExtractPorts, func(p ports.Port) (string, string) { return p.Name, p.ID },
			acctest.Deleted(ports.Delete)),
		acctest.PagedSweep(acctest.Glance, "snapshot image", "",
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return images.List(sc, images.ListOpts{Visibility: "all", Limit: 1000})
			},
			images.ExtractImages, func(i images.Image) (string, string) { return i.Name, i.ID },
			acctest.Deleted(images.Delete)),
	)
}
