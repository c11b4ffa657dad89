package loadbalancer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	resource.AddTestSweepers("unikorn_loadbalancer", &resource.Sweeper{Name: "unikorn_loadbalancer", F: sweepLoadBalancers})
	resource.TestMain(m)
}

// sweepLoadBalancers deletes, in every region and project, the load balancers named
// lb-<test prefix>… (cascade) and the floating IPs described so. Run with
// `go test ./internal/loadbalancer/ -sweep=all` and the environment of the local cloud.
func sweepLoadBalancers(_ string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	c, err := cloud.New(ctx, cloud.Config{
		Cloud:      os.Getenv("OS_CLOUD"),
		CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
		Regions:    acctest.Regions(),
		Domain:     os.Getenv("UNIKORN_DOMAIN"),
	})
	if err != nil {
		return err
	}

	prefix := naming.LoadBalancer(acctest.NamePrefix)

	var errs []error

	for _, region := range c.Regions() {
		octavia, err := c.Base().LoadBalancer(region)
		if err != nil {
			return err
		}

		neutron, err := c.Base().Network(region)
		if err != nil {
			return err
		}

		pages, err := loadbalancers.List(octavia, loadbalancers.ListOpts{}).AllPages(ctx)
		if err != nil {
			return err
		}

		all, err := loadbalancers.ExtractLoadBalancers(pages)
		if err != nil {
			return err
		}

		for _, lb := range all {
			if !strings.HasPrefix(lb.Name, prefix) || lb.ProvisioningStatus == "PENDING_DELETE" || lb.ProvisioningStatus == "DELETED" {
				continue
			}

			err := loadbalancers.Delete(ctx, octavia, lb.ID, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
			if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
				errs = append(errs, fmt.Errorf("%s: deleting load balancer %s (%s): %w", region, lb.Name, lb.ID, err))
			}
		}

		fpages, err := floatingips.List(neutron, floatingips.ListOpts{}).AllPages(ctx)
		if err != nil {
			return err
		}

		fips, err := floatingips.ExtractFloatingIPs(fpages)
		if err != nil {
			return err
		}

		for _, f := range fips {
			if strings.HasPrefix(f.Description, prefix) {
				if err := floatingips.Delete(ctx, neutron, f.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
					errs = append(errs, fmt.Errorf("%s: deleting floating IP %s: %w", region, f.FloatingIP, err))
				}
			}
		}
	}

	return errors.Join(errs...)
}

const lbAddress = "unikorn_loadbalancer.test"

// baseConfig is the identity and network a load balancer test needs, both called name.
func baseConfig(name string) string {
	return fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name = %[1]q
}

resource "unikorn_network" "test" {
  identity_id = unikorn_identity.test.id
  name        = %[1]q
  cidr        = "10.0.0.0/24"
}
`, name)
}

// lbConfig is baseConfig with the load balancer "test" called name, with the extra arguments.
func lbConfig(name, extra string) string {
	return baseConfig(name) + fmt.Sprintf(`
resource "unikorn_loadbalancer" "test" {
  identity_id = unikorn_identity.test.id
  network_id  = unikorn_network.test.id
  name        = %[1]q
%[2]s
}
`, name, extra)
}

// attr reads an attribute of a resource in the state.
func attr(s *terraform.State, address, key string) (string, error) {
	rs, ok := s.RootModule().Resources[address]
	if !ok {
		return "", fmt.Errorf("%s is not in the state", address)
	}

	if key == "id" {
		return rs.Primary.ID, nil
	}

	return rs.Primary.Attributes[key], nil
}

// checkOctavia reads the load balancer of the state from Octavia and Neutron and hands it to
// check.
func checkOctavia(t *testing.T, check func(s *terraform.State, lb *acctest.LBSnapshot) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := attr(s, lbAddress, "id")
		if err != nil {
			return err
		}

		region, _ := attr(s, lbAddress, "region")

		snap, err := acctest.LoadBalancerSnapshot(t, region, id)
		if err != nil {
			return err
		}

		if snap == nil {
			return fmt.Errorf("load balancer %s is not in Octavia", id)
		}

		return check(s, snap)
	}
}

// checkNoTwin fails when Octavia holds another load balancer of lb's exact name in lb's
// project: an interrupted create must be adopted or replaced, never duplicated.
func checkNoTwin(t *testing.T, s *terraform.State, lb *acctest.LBSnapshot) error {
	region, err := attr(s, lbAddress, "region")
	if err != nil {
		return err
	}

	octavia, _ := acctest.LoadBalancerClients(t, region)

	pages, err := loadbalancers.List(octavia, loadbalancers.ListOpts{
		Name:      lb.LoadBalancer.Name,
		ProjectID: lb.LoadBalancer.ProjectID,
	}).AllPages(context.Background())
	if err != nil {
		return err
	}

	all, err := loadbalancers.ExtractLoadBalancers(pages)
	if err != nil {
		return err
	}

	var ids []string

	for _, other := range all {
		if other.Name == lb.LoadBalancer.Name {
			ids = append(ids, other.ID)
		}
	}

	if len(ids) != 1 {
		return fmt.Errorf("%d load balancers named %s: %v", len(ids), lb.LoadBalancer.Name, ids)
	}

	return nil
}
