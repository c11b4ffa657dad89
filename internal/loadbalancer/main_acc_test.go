package loadbalancer_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	// Load balancers named lb-<test prefix>… (cascade), then the floating IPs described so,
	// in every region and project. Run with `go test ./internal/loadbalancer/ -sweep=all` and
	// the environment of the local cloud.
	prefix := naming.LoadBalancer(acctest.NamePrefix)

	acctest.Main(m, "unikorn_loadbalancer", nil,
		acctest.PagedSweep(acctest.Octavia, "load balancer", prefix,
			func(sc *gophercloud.ServiceClient) pagination.Pager {
				return loadbalancers.List(sc, loadbalancers.ListOpts{})
			},
			func(p pagination.Page) ([]loadbalancers.LoadBalancer, error) {
				all, err := loadbalancers.ExtractLoadBalancers(p)

				// Those being deleted are on their way.
				return slices.DeleteFunc(all, func(lb loadbalancers.LoadBalancer) bool {
					return lb.ProvisioningStatus == loadbalancer.StatusPendingDelete || lb.ProvisioningStatus == loadbalancer.StatusDeleted
				}), err
			},
			func(lb loadbalancers.LoadBalancer) (string, string) { return lb.Name, lb.ID },
			func(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
				return loadbalancers.Delete(ctx, sc, id, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
			}),
		acctest.FloatingIPSweep(prefix),
	)
}

// lbCase is a test case of steps against the local cloud, whose CheckDestroy asks Octavia and
// Neutron that every load balancer of the state is gone.
func lbCase(t *testing.T, steps []resource.TestStep) resource.TestCase {
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckLoadBalancerDestroy(t),
		Steps:                    steps,
	}
}

const lbAddress = "unikorn_loadbalancer.test"

// baseConfig is the identity and network a load balancer test needs, both called name, and
// ownLocals.
func baseConfig(name string) string {
	return acctest.IdentityHCL("test", name, "") + acctest.NetworkHCL("test", "test", name, "10.0.0.0/24", "") + ownLocals
}

// ownLocals name the test's own identity and network as the configurations of every test do:
// local.identity_id and local.network_id (lbEnv.base).
const ownLocals = `
locals {
  identity_id = unikorn_identity.test.id
  network_id  = unikorn_network.test.id
}
`

// lbConfig is baseConfig with the load balancer "test" called name on its network, with the
// extra arguments.
func lbConfig(name, extra string) string {
	return baseConfig(name) + lbOn(name, "local.network_id", extra)
}

// shared is the identity and network (10.0.0.0/24, in the first region) that the load balancer
// tests build on unless they prove something about the identity or the network themselves
// (a broken trust, a region rule, another identity's network) or measure their requests: made
// once per run of the package instead of once per test.
var shared = &acctest.SharedStack{Config: func(name string) string {
	return baseConfig(name) + `
output "identity_id" { value = unikorn_identity.test.id }
output "network_id" { value = unikorn_network.test.id }
output "subnet_id" { value = unikorn_network.test.subnet_id }
output "region" { value = unikorn_network.test.region }
`
}}

// lbEnv is where a test's load balancers go: the shared stack's identity and network, under a
// fresh name for the test's own load balancers.
type lbEnv struct {
	name  string
	stack map[string]string
}

func sharedEnv(t *testing.T) lbEnv {
	t.Helper()
	acctest.PreCheck(t)

	return lbEnv{name: acctest.IdentityName(), stack: shared.Outputs(t)}
}

// base names the stack's identity and network local.identity_id and local.network_id.
func (e lbEnv) base() string {
	return fmt.Sprintf("\nlocals {\n  identity_id = %q\n  network_id  = %q\n}\n", e.stack["identity_id"], e.stack["network_id"])
}

// lb is base with the load balancer "test" called e.name on the network, with the extra
// arguments.
func (e lbEnv) lb(extra string) string {
	return e.base() + lbOn(e.name, "local.network_id", extra)
}

// project, network, subnet and region of the stack.
func (e lbEnv) project() string { return e.stack["identity_id"] }
func (e lbEnv) network() string { return e.stack["network_id"] }
func (e lbEnv) subnet() string  { return e.stack["subnet_id"] }
func (e lbEnv) region() string  { return e.stack["region"] }

// lbOn is the load balancer "test" called name on network (an HCL reference) of the test
// identity (local.identity_id), with the extra arguments.
func lbOn(name, network, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_loadbalancer" "test" {
  identity_id = local.identity_id
  network_id  = %[2]s
  name        = %[1]q
%[3]s
}
`, name, network, extra)
}

// attr reads an attribute of a resource in the state.
func attr(s *terraform.State, address, key string) (string, error) {
	p, err := acctest.Primary(s, address)
	if err != nil {
		return "", err
	}

	if key == "id" {
		return p.ID, nil
	}

	return p.Attributes[key], nil
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

	all, err := acctest.LoadBalancersNamed(t, region, lb.LoadBalancer.ProjectID, lb.LoadBalancer.Name)
	if err != nil {
		return err
	}

	if len(all) != 1 {
		ids := make([]string, len(all))
		for i, other := range all {
			ids[i] = other.ID
		}

		return fmt.Errorf("%d load balancers named %s: %v", len(all), lb.LoadBalancer.Name, ids)
	}

	return nil
}
