package providernetwork_test

import (
	"context"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/providernetwork"
)

// TestAccProviderNetwork_requestCounts logs the HTTP requests of one create (a VLAN network
// with an allocated ID and one subnet), one refresh and one delete, through the core with a
// fresh client (its authentication counted too).
func TestAccProviderNetwork_requestCounts(t *testing.T) {
	preCheck(t)
	t.Parallel()

	ctx, c := context.Background(), acctest.FreshClient(t)
	region := c.DefaultRegion()

	before := c.RequestCount()

	sc, err := c.Base().Network(region)
	if err != nil {
		t.Fatal(err)
	}

	svc := &providernetwork.Service{Client: sc, ProjectID: c.Base().ProjectID(), Refusal: c.AdminRefusal}
	t.Logf("binding the admin Neutron client: %d requests", c.RequestCount()-before)

	spec := providernetwork.Spec{
		Name: acctest.RandomName(), NetworkType: providernetwork.TypeVLAN, PhysicalNetwork: physnet(),
		Subnets: []providernetwork.SubnetSpec{{Name: "s", CIDR: "192.0.2.0/24", GatewayIP: "192.0.2.1", EnableDHCP: true,
			Pools: []providernetwork.Pool{{Start: "192.0.2.2", End: "192.0.2.254"}}}},
	}

	count := acctest.Requests(t, c)

	var n *providernetwork.Network

	create := count("create", func() (err error) {
		n, err = svc.Ensure(ctx, spec, "")
		if n != nil && n.ID != "" {
			t.Cleanup(func() {
				if err := svc.Delete(context.Background(), n.ID); err != nil {
					t.Errorf("deleting %s: %v", n.ID, err)
				}
			})
		}

		return err
	})

	refresh := count("refresh", func() error { _, err := svc.Observe(ctx, n.ID, spec.Name); return err })
	noop := count("converge", func() error { _, err := svc.Ensure(ctx, spec, n.ID); return err })
	deleted := count("delete", func() error { return svc.Delete(ctx, n.ID) })

	t.Logf("requests: create %d, refresh %d, converge without change %d, delete %d", create, refresh, noop, deleted)
}
