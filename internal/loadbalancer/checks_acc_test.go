package loadbalancer_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// oneListener is a listener with one member on the test network.
const oneListener = `
  listeners = [{ name = "http", protocol = "TCP", port = 80, members = [{ address = "10.0.0.50", port = 8080 }] }]
`

// noLoadBalancer checks that Octavia holds no load balancer lb-<name> in the test identity's
// project in region.
func noLoadBalancer(t *testing.T, region, name string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		project, err := attr(s, "unikorn_identity.test", "id")
		if err != nil {
			return err
		}

		left, err := acctest.LoadBalancersNamed(t, region, project, naming.LoadBalancer(name))
		if err != nil {
			return err
		}

		if len(left) > 0 {
			return fmt.Errorf("load balancer %s (%s) was created", left[0].Name, left[0].ID)
		}

		return nil
	}
}

// TestAccLoadBalancer_badInputStopsAtPlan shows that a VIP or member address outside the VIP
// subnet, and a network of another region or identity, are plan-time errors on the attribute
// at fault when the network is known at plan time; and that when it is not (made by the same
// apply), the apply stops before it makes any load balancer.
func TestAccLoadBalancer_badInputStopsAtPlan(t *testing.T) {
	acctest.PreCheck(t)

	first, second := acctest.FirstRegion(), acctest.SecondRegion(t)
	name := acctest.IdentityName()
	other := name + "-o"

	base := baseConfig(name) + acctest.NetworkHCL("two", "test", name, "10.0.1.0/24", acctest.RegionLine(second)) +
		acctest.IdentityHCL("other", other, "") + acctest.NetworkHCL("other", "other", other, "10.0.0.0/24", "")

	planFails := func(network, extra, want string) resource.TestStep {
		return resource.TestStep{
			Config:      base + lbOn(name, network, extra),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}

	late := base + acctest.NetworkHCL("late", "test", name+"-late", "10.0.2.0/24", "")

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{Config: base},
		planFails("unikorn_network.test.id", `  vip_address = "10.0.1.5"`+oneListener,
			`(?s)Address\s+outside\s+the\s+VIP\s+subnet.*10\.0\.1\.5\s+is\s+outside\s+the\s+VIP\s+subnet\s+10\.0\.0\.0/24`),
		planFails("unikorn_network.test.id", `  listeners = [{ name = "http", protocol = "TCP", port = 80, members = [
    { address = "10.0.0.50", port = 8080 }, { address = "192.168.7.7", port = 8080 }] }]`,
			`(?s)Address\s+outside\s+the\s+VIP\s+subnet.*member\s+address\s+192\.168\.7\.7\s+is\s+outside`),
		planFails("unikorn_network.two.id", oneListener,
			`(?s)Network\s+not\s+of\s+the\s+identity.*region\s+`+regexp.QuoteMeta(first)+`.*another\s+region\s+or\s+identity`),
		planFails("unikorn_network.other.id", oneListener, `(?s)Network\s+not\s+of\s+the\s+identity`),
		{
			// The network is made by this apply, so the plan cannot check it: Terraform plans the
			// load balancer again once the network exists (the check says "Address outside the
			// VIP subnet" then), and the create checks first thing ("Error creating load
			// balancer"); either way before any load balancer is made.
			Config: late + lbOn(name, "unikorn_network.late.id", `  vip_address = "10.0.0.5"`),
			ExpectError: regexp.MustCompile(`(?s)(Address\s+outside\s+the\s+VIP\s+subnet|Error\s+creating\s+load\s+balancer).*` +
				`10\.0\.0\.5\s+is\s+outside\s+the\s+VIP\s+subnet\s+10\.0\.2\.0/24`),
		},
		{
			Config: late,
			Check:  noLoadBalancer(t, first, name),
		},
	}))
}

// TestAccLoadBalancer_regionRule applies a load balancer whose region is unset under a
// provider whose default region is the first region, then plans the same configuration under
// a provider whose default is the second: the plan is empty (a provider default never moves
// anything), and the load balancer is still in the first region.
func TestAccLoadBalancer_regionRule(t *testing.T) {
	acctest.PreCheck(t)

	first, second := acctest.FirstRegion(), acctest.SecondRegion(t)
	name := acctest.IdentityName()
	// The network's region is set, so that only the load balancer's rule is under test here
	// (the network's own test proves the network's).
	config := acctest.IdentityHCL("test", name, "") + acctest.NetworkHCL("test", "test", name, "10.0.0.0/24", acctest.RegionLine(first)) +
		ownLocals + lbOn(name, "unikorn_network.test.id", oneListener)

	var id string

	inFirst := func(s *terraform.State) error {
		if id == "" {
			id, _ = attr(s, lbAddress, "id")
		}

		lb, err := acctest.LoadBalancerSnapshot(t, first, id)
		if err != nil || lb == nil {
			return fmt.Errorf("load balancer %s is not in %s (err %v)", id, first, err)
		}

		return nil
	}

	check := resource.ComposeAggregateTestCheckFunc(resource.TestCheckResourceAttr(lbAddress, "region", first), inFirst)

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{Config: acctest.ProviderRegion(first) + config, Check: check},
		{
			Config:           acctest.ProviderRegion(second) + config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            check,
		},
	}))
}

// TestAccLoadBalancer_brokenTrust deletes the identity's Keystone trust out of band after an
// identity, network, server and load balancer were applied: a refresh and plan still read the
// server, the network and the load balancer (privileged scope), which stay as they are, and
// the destroy deletes them (CheckDestroy asks the cloud).
func TestAccLoadBalancer_brokenTrust(t *testing.T) {
	acctest.PreCheck(t) // the fixture below asks the cloud

	name, region := acctest.IdentityName(), acctest.FirstRegion()
	config := lbConfig(name, oneListener) + fmt.Sprintf(`
resource "unikorn_server" "test" {
  identity_id = unikorn_identity.test.id
  name        = %[1]q
  network_id  = unikorn_network.test.id
  flavor_id   = %[2]q
  image_id    = %[3]q
}
`, name, acctest.FlavorID(t, region, acctest.ServerFlavor), acctest.ImageID(t, region, acctest.ServerImage))

	var userID string

	unchanged := func(addresses ...string) []plancheck.PlanCheck {
		var checks []plancheck.PlanCheck
		for _, a := range addresses {
			checks = append(checks, plancheck.ExpectResourceAction(a, plancheck.ResourceActionNoop))
		}

		return checks
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(acctest.CheckLoadBalancerDestroy(t), acctest.CheckServerDestroy(t),
			networksGone(t), acctest.CheckIdentityDestroy(t)),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					var err error
					userID, err = attr(s, "unikorn_identity.test", "user_id")

					return err
				},
			},
			{
				PreConfig: func() { acctest.DeleteTrustsOutOfBand(t, userID) },
				Config:    config,
				PlanOnly:  true,
				// The identity plans a new trust; what lives in its project is read as it is.
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: unchanged(lbAddress, "unikorn_server.test", "unikorn_network.test"),
				},
			},
		},
	})
}

// networksGone checks, as an admin, that Neutron has none of the state's networks anymore
// (acctest.CheckNetworkDestroy asks inside the identity's project, which is gone with it here).
func networksGone(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckEach("unikorn_network", func(a map[string]string) error {
		exists, err := acctest.NetworkExists(t, a["region"], a["id"])
		if err != nil || exists {
			return fmt.Errorf("network %s still exists (err %v)", a["id"], err)
		}

		return nil
	})
}
