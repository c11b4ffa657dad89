package acctest

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Service is the client of one OpenStack service in a region, in the provider's configured
// scope (an admin one: it sees every project), as sweepers list and delete through it.
type Service func(c *cloud.Client, region string) (*gophercloud.ServiceClient, error)

// Compute is Nova's client of a region, for sweepers.
func Compute(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().Compute(region)
}

// Neutron is Neutron's client of a region, for sweepers.
func Neutron(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().Network(region)
}

// Octavia is Octavia's client of a region, for sweepers.
func Octavia(c *cloud.Client, region string) (*gophercloud.ServiceClient, error) {
	return c.Base().LoadBalancer(region)
}

// PagedSweep is the sweeper step of one kind of object of one service, listed with a
// gophercloud pager: list and extract read every page, nameID gives what carries prefix (the
// name, or a description) and the ID, del deletes one by ID (a 404 counts as done).
func PagedSweep[T any](client Service, what, prefix string,
	list func(*gophercloud.ServiceClient) pagination.Pager, extract func(pagination.Page) ([]T, error),
	nameID func(T) (string, string), del func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error,
) SweepFunc {
	return Sweep[T]{
		What:   what,
		Prefix: prefix,
		List: func(ctx context.Context, c *cloud.Client, region string) ([]T, error) {
			sc, err := client(c, region)
			if err != nil {
				return nil, err
			}

			return AllPages(ctx, list(sc), extract)
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

// Deleted is a PagedSweep's del made of a gophercloud Delete by ID: `acctest.Deleted(flavors.Delete)`.
func Deleted[R interface{ ExtractErr() error }](del func(context.Context, *gophercloud.ServiceClient, string) R,
) func(context.Context, *gophercloud.ServiceClient, string) error {
	return func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
		return del(ctx, sc, id).ExtractErr()
	}
}

// FloatingIPSweep is the sweeper step of the floating IPs whose description carries prefix
// (the provider describes a floating IP by what it was made for).
func FloatingIPSweep(prefix string) SweepFunc {
	return PagedSweep(Neutron, "floating IP", prefix,
		func(sc *gophercloud.ServiceClient) pagination.Pager {
			return floatingips.List(sc, floatingips.ListOpts{})
		},
		floatingips.ExtractFloatingIPs, func(f floatingips.FloatingIP) (string, string) { return f.Description, f.ID },
		Deleted(floatingips.Delete))
}
