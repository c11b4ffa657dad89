package loadbalancer_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The tests of this file hold unikorn_loadbalancer to the ownership rule against a real Octavia
// (issue 26): a create adopts only what an interrupted create of a load balancer left; a load
// balancer of its name that another configuration holds, or that someone else made, is refused
// before anything is changed and can be imported.

// httpListener is one TCP listener on port 80 with two members, one of them weighted.
const httpListener = `
  listeners = [{
    name     = "http"
    protocol = "TCP"
    port     = 80
    members  = [{ address = "10.0.0.20", port = 8080 }, { address = "10.0.0.21", port = 8080, weight = 5 }]
  }]
`

// The marks of a load balancer as this provider writes them.
var (
	creationMark   = naming.MadeFor(loadbalancer.Type).Tags()
	completedMarks = naming.MadeFor(loadbalancer.Type).Done().Tags()
)

// sameTags tells whether tags are want, in any order.
func sameTags(tags, want []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(tags)), slices.Sorted(slices.Values(want)))
}

// fingerprint is what a load balancer holds in Octavia and Neutron: its ID, tags and updated_at
// (which any change of it or of a child moves), and its listeners, pools, members with their
// weights, monitors and floating IPs, with their IDs and tags.
func fingerprint(lb *acctest.LBSnapshot) string {
	var b strings.Builder

	fmt.Fprintf(&b, "%s tags %v updated %s\n", lb.LoadBalancer.ID, slices.Sorted(slices.Values(lb.LoadBalancer.Tags)), lb.LoadBalancer.UpdatedAt)

	for _, name := range slices.Sorted(maps.Keys(lb.Listeners)) {
		l := lb.Listeners[name]
		fmt.Fprintf(&b, "listener %s %s %s/%d %v tags %v\n", name, l.ID, l.Protocol, l.ProtocolPort, sorted(l.AllowedCIDRs), l.Tags)
	}

	for _, name := range slices.Sorted(maps.Keys(lb.Pools)) {
		p := lb.Pools[name]
		fmt.Fprintf(&b, "pool %s %s %s tags %v members %v weights %v\n", name, p.ID, p.Protocol, p.Tags, lb.Members[name], lb.Weights[name])
	}

	for _, name := range slices.Sorted(maps.Keys(lb.Monitors)) {
		fmt.Fprintf(&b, "monitor %s %s tags %v\n", name, lb.Monitors[name].ID, lb.Monitors[name].Tags)
	}

	for _, f := range lb.FloatingIPs {
		fmt.Fprintf(&b, "floating IP %s %s\n", f.ID, f.FloatingIP)
	}

	return b.String()
}

// snapshotOf reads load balancer id in region; an error when it is gone.
func snapshotOf(t *testing.T, region, id string) (*acctest.LBSnapshot, error) {
	t.Helper()

	snap, err := acctest.LoadBalancerSnapshot(t, region, id)
	if err == nil && snap == nil {
		err = fmt.Errorf("load balancer %s is gone", id)
	}

	return snap, err
}

// TestAccLoadBalancer_ownershipSecondConfiguration: a second unikorn_loadbalancer of the same
// name in the same identity (what a second workspace's create sees: a finished load balancer of
// the name, made by this provider), with the same listener and other members, is refused with
// the import command (it used to adopt the first and replace its members), and the first load
// balancer is unchanged in Octavia (its listeners, pools, members and weights, tags and
// updated_at), its next plan empty.
func TestAccLoadBalancer_ownershipSecondConfiguration(t *testing.T) {
	e := sharedEnv(t)
	name := e.name

	var before string

	second := fmt.Sprintf(`
resource "unikorn_loadbalancer" "second" {
  identity_id = local.identity_id
  network_id  = local.network_id
  name        = %[1]q
  listeners = [{
    name     = "http"
    protocol = "TCP"
    port     = 80
    members  = [{ address = "10.0.0.99", port = 8080 }]
  }]
}
`, name)

	unchanged := checkOctavia(t, func(s *terraform.State, lb *acctest.LBSnapshot) error {
		if got := fingerprint(lb); got != before {
			return fmt.Errorf("the first load balancer changed in Octavia:\nbefore:\n%s\nafter:\n%s", before, got)
		}

		return checkNoTwin(t, s, lb)
	})

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			Config: e.lb(httpListener),
			Check: checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error {
				before = fingerprint(lb)

				if !sameTags(lb.LoadBalancer.Tags, completedMarks) {
					return fmt.Errorf("the load balancer has the tags %v, want %v", lb.LoadBalancer.Tags, completedMarks)
				}

				for _, name := range slices.Collect(maps.Keys(lb.Listeners)) {
					if l := lb.Listeners[name]; !sameTags(l.Tags, creationMark) {
						return fmt.Errorf("listener %s has the tags %v, want %v", name, l.Tags, creationMark)
					}
				}

				for _, name := range slices.Collect(maps.Keys(lb.Pools)) {
					if p := lb.Pools[name]; !sameTags(p.Tags, creationMark) {
						return fmt.Errorf("pool %s has the tags %v, want %v", name, p.Tags, creationMark)
					}
				}

				return nil
			}),
		},
		{
			Config: e.lb(httpListener) + second,
			// The CLI wraps long lines: any white space may separate the words.
			ExpectError: regexp.MustCompile(`(?s)Error\s+creating\s+load\s+balancer.*already\s+exists.*finished\s+unikorn_loadbalancer\s+of\s+another\s+` +
				`configuration.*terraform\s+import\s+unikorn_loadbalancer\.<address>\s+\S+/[0-9a-f-]{36}`),
		},
		{
			Config:           e.lb(httpListener),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: resource.ComposeAggregateTestCheckFunc(unchanged, func(s *terraform.State) error {
				if _, err := acctest.Primary(s, "unikorn_loadbalancer.second"); err == nil {
					return fmt.Errorf("the refused load balancer is in the state")
				}

				return nil
			}),
		},
	}))
}

// TestAccLoadBalancer_ownershipMadeByHand: a load balancer made directly through Octavia (no
// marks, as Unikorn makes them), with a listener named after the contract, is refused by a
// create of its name before anything is changed; imported, it is managed in place: its own
// listener is kept (not refused as someone else's part), what is missing is made (with the
// creation mark), and it never gets a mark itself.
func TestAccLoadBalancer_ownershipMadeByHand(t *testing.T) {
	e := sharedEnv(t)
	name := e.name

	project, subnet, region := e.project(), e.subnet(), e.region()

	var byHand, listenerID, before string

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			PreConfig: func() {
				byHand = acctest.CreateRawLoadBalancers(t, project, region, subnet, naming.LoadBalancer(name))[0]

				err := acctest.ChangeLoadBalancerOutOfBand(t, region, byHand, func(ctx context.Context, octavia *gophercloud.ServiceClient) error {
					l, err := listeners.Create(ctx, octavia, listeners.CreateOpts{
						LoadbalancerID: byHand, Name: naming.Listener(name, "http"), Protocol: listeners.ProtocolTCP, ProtocolPort: 80,
					}).Extract()
					if err == nil {
						listenerID = l.ID
					}

					return err
				})
				if err != nil {
					t.Fatalf("adding a listener to %s: %v", byHand, err)
				}

				snap, err := snapshotOf(t, region, byHand)
				if err != nil {
					t.Fatal(err)
				}

				before = fingerprint(snap)
			},
			Config: e.lb(httpListener),
			ExpectError: regexp.MustCompile(`(?s)Error\s+creating\s+load\s+balancer.*already\s+exists.*this\s+provider\s+did\s+not\s+make\s+it.*` +
				`terraform\s+import\s+unikorn_loadbalancer\.<address>\s+\S+/[0-9a-f-]{36}`),
		},
		{
			PreConfig: func() {
				snap, err := snapshotOf(t, region, byHand)
				if err != nil {
					t.Fatal(err)
				}

				if got := fingerprint(snap); got != before {
					t.Errorf("the refused load balancer changed:\nbefore:\n%s\nafter:\n%s", before, got)
				}
			},
			Config:             e.lb(httpListener),
			ResourceName:       lbAddress,
			ImportState:        true,
			ImportStateIdFunc:  func(*terraform.State) (string, error) { return region + "/" + byHand, nil },
			ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				for _, s := range states {
					if s.Ephemeral.Type == "unikorn_loadbalancer" && s.ID == byHand && s.Attributes["name"] == name {
						return nil
					}
				}

				return fmt.Errorf("%s was not imported as unikorn_loadbalancer %s", byHand, name)
			},
		},
		{
			Config: e.lb(httpListener),
			Check: checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error {
				http, pool := lb.Listeners[naming.Listener(name, "http")], lb.Pools[naming.Pool(name, "http")]

				switch {
				case lb.LoadBalancer.ID != byHand:
					return fmt.Errorf("the state has load balancer %s, want the imported %s", lb.LoadBalancer.ID, byHand)
				case len(lb.LoadBalancer.Tags) != 0:
					return fmt.Errorf("the imported load balancer got the tags %v, want none", lb.LoadBalancer.Tags)
				case http.ID != listenerID || len(http.Tags) != 0:
					return fmt.Errorf("listener %s (tags %v), want its own %s kept untagged", http.ID, http.Tags, listenerID)
				case pool.ID == "" || !sameTags(pool.Tags, creationMark) || http.DefaultPoolID != pool.ID:
					return fmt.Errorf("pool %s with the tags %v (default pool %s), want a new one with %v", pool.ID, pool.Tags,
						http.DefaultPoolID, creationMark)
				case lb.Members[pool.Name] == nil:
					return fmt.Errorf("the pool has no members")
				}

				return nil
			}),
		},
	}))
}

// TestAccLoadBalancer_ownershipInterruptedCreate: a load balancer that an interrupted create
// left (made through Octavia with the creation mark only) is adopted by the next create with
// its ID, converged, and marked finished.
func TestAccLoadBalancer_ownershipInterruptedCreate(t *testing.T) {
	e := sharedEnv(t)
	name := e.name

	project, subnet, region := e.project(), e.subnet(), e.region()

	var interrupted string

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			PreConfig: func() {
				interrupted = acctest.CreateTaggedLoadBalancer(t, project, region, subnet, naming.LoadBalancer(name), creationMark)
			},
			Config: e.lb(httpListener),
			Check: checkOctavia(t, func(s *terraform.State, lb *acctest.LBSnapshot) error {
				http, pool := lb.Listeners[naming.Listener(name, "http")], lb.Pools[naming.Pool(name, "http")]

				switch {
				case lb.LoadBalancer.ID != interrupted:
					return fmt.Errorf("the state has load balancer %s, want the adopted %s", lb.LoadBalancer.ID, interrupted)
				case !sameTags(lb.LoadBalancer.Tags, completedMarks):
					return fmt.Errorf("the adopted load balancer has the tags %v, want %v", lb.LoadBalancer.Tags, completedMarks)
				case http.ID == "" || !sameTags(http.Tags, creationMark) || pool.ID == "" || !sameTags(pool.Tags, creationMark):
					return fmt.Errorf("listener %s (tags %v), pool %s (tags %v): want both with %v", http.ID, http.Tags, pool.ID, pool.Tags,
						creationMark)
				}

				return checkNoTwin(t, s, lb)
			}),
		},
	}))
}
