package loadbalancer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// membersAt is the address of the unikorn_loadbalancer_members of listener.
func membersAt(listener string) string { return "unikorn_loadbalancer_members." + listener }

// serverIP is the test server's address, as an HCL reference.
const serverIP = "unikorn_server.test.private_ip"

// membersStack is a server and a load balancer with two listeners on the shared network, and
// the unikorn_loadbalancer_members of held (listener → HCL list of members). A listener's
// inline members are an HCL list, or "" to leave them unset.
func (e lbEnv) membersStack(t *testing.T, httpInline, sshInline string, held map[string]string) string {
	t.Helper()

	listener := func(name string, port int, members string) string {
		l := fmt.Sprintf("    {\n      name     = %q\n      protocol = \"TCP\"\n      port     = %d\n", name, port)
		if members != "" {
			l += "      members  = " + members + "\n"
		}

		return l + "    },\n"
	}

	config := e.base() + fmt.Sprintf(`
resource "unikorn_server" "test" {
  identity_id = local.identity_id
  name        = %[1]q
  network_id  = local.network_id
  flavor_id   = %[2]q
  image_id    = %[3]q
}
`, e.name, acctest.FlavorID(t, e.region(), acctest.ServerFlavor), acctest.ImageID(t, e.region(), acctest.ServerImage)) +
		lbOn(e.name, "local.network_id", "  listeners = [\n"+listener("http", 80, httpInline)+listener("ssh", 22, sshInline)+"  ]\n")

	for _, name := range slices.Sorted(maps.Keys(held)) {
		config += fmt.Sprintf(`
resource "unikorn_loadbalancer_members" %[1]q {
  identity_id     = local.identity_id
  loadbalancer_id = unikorn_loadbalancer.test.id
  listener        = %[1]q
  members         = %[2]s
}
`, name, held[name])
	}

	return config
}

// member is an HCL member on the server's address.
func member(port, weight int) string {
	return fmt.Sprintf("{ address = %s, port = %d, weight = %d }", serverIP, port, weight)
}

// sshAddress is the address of the members of "ssh": a fixed one, so that the load balancer
// does not wait for the server (the members of "http" do).
const sshAddress = "10.0.0.222"

// sshMembers are the members of "ssh" as HCL, on port.
func sshMembers(port int) string {
	return fmt.Sprintf("[{ address = %q, port = %d }]", sshAddress, port)
}

// poolOf is a listener's pool of the state's load balancer as Octavia holds it: its tags and its
// members by "address:port".
type poolOf struct {
	id      string
	tags    []string
	members map[string]pools.Member
}

func (p poolOf) has(tag string) bool { return slices.Contains(p.tags, tag) }

// readPool reads the pool of listener of the state's load balancer from Octavia, as an admin.
func readPool(t *testing.T, s *terraform.State, listener string) (poolOf, error) {
	a, err := acctest.Attributes(s, lbAddress)
	if err != nil {
		return poolOf{}, err
	}

	snap, err := acctest.LoadBalancerSnapshot(t, a["region"], a["id"])
	if err != nil || snap == nil {
		return poolOf{}, errors.Join(err, fmt.Errorf("load balancer %s not found", a["id"]))
	}

	p, ok := snap.Pools[naming.Pool(a["name"], listener)]
	if !ok {
		return poolOf{}, fmt.Errorf("no pool of listener %s", listener)
	}

	octavia, _ := acctest.LoadBalancerClients(t, a["region"])

	ms, err := acctest.AllPages(context.Background(), pools.ListMembers(octavia, p.ID, pools.ListMembersOpts{}), pools.ExtractMembers)
	if err != nil {
		return poolOf{}, err
	}

	// A unikorn_loadbalancer_members marks the members it sets (each of them), and the pool only
	// while it holds none: the pool's tags here include that mark when its members carry it.
	out := poolOf{id: p.ID, tags: slices.Clone(p.Tags), members: map[string]pools.Member{}}
	marked := 0

	for _, m := range ms {
		out.members[fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort)] = m
		if slices.Contains(m.Tags, naming.MembersHeldTag) {
			marked++
		}
	}

	switch {
	case marked > 0 && marked < len(ms):
		return poolOf{}, fmt.Errorf("%d of the %d members of pool %s carry %s: all or none should", marked, len(ms), p.ID, naming.MembersHeldTag)
	case marked > 0 && !slices.Contains(out.tags, naming.MembersHeldTag):
		out.tags = append(out.tags, naming.MembersHeldTag)
	}

	return out, nil
}

// checkPool checks the pool of listener: its members ("port:weight" on address, the server's
// when "", any order), the
// tags it carries and lacks; id, when not nil, records (or, when set, checks) the ID of its one
// member.
func checkPool(t *testing.T, listener, address string, members []string, carries, lacks []string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ip := address
		if ip == "" {
			var err error
			if ip, err = attr(s, "unikorn_server.test", "private_ip"); err != nil {
				return err
			}
		}

		p, err := readPool(t, s, listener)
		if err != nil {
			return err
		}

		var got []string
		for key, m := range p.members {
			got = append(got, fmt.Sprintf("%s:%d", key, m.Weight))
		}

		want := make([]string, len(members))
		for i, m := range members {
			want[i] = ip + ":" + m
		}

		sort.Strings(got)
		sort.Strings(want)

		var errs []error

		if !slices.Equal(got, want) {
			errs = append(errs, fmt.Errorf("pool of %s has members %v, want %v", listener, got, want))
		}

		for _, tag := range carries {
			if !p.has(tag) {
				errs = append(errs, fmt.Errorf("pool of %s has tags %v, want %s among them", listener, p.tags, tag))
			}
		}

		for _, tag := range lacks {
			if p.has(tag) {
				errs = append(errs, fmt.Errorf("pool of %s has tags %v, want no %s", listener, p.tags, tag))
			}
		}

		if id != nil && len(p.members) == 1 {
			for _, m := range p.members {
				switch {
				case *id == "":
					*id = m.ID
				case *id != m.ID:
					errs = append(errs, fmt.Errorf("pool of %s has member %s, want %s (the same member, kept)", listener, m.ID, *id))
				}
			}
		}

		return errors.Join(errs...)
	}
}

// plans checks that the plan takes action on each address (address → action).
func plans(actions map[string]plancheck.ResourceActionType) resource.ConfigPlanChecks {
	var checks []plancheck.PlanCheck
	for address, action := range actions {
		checks = append(checks, plancheck.ExpectResourceAction(address, action))
	}

	return resource.ConfigPlanChecks{PreApply: checks}
}

// TestAccLoadBalancerMembers makes, in one apply, a server, a load balancer whose listener
// "http" leaves its members unset, and the members of "http" on the server's address; changes a
// member's weight in place (the same member); repairs a weight changed out of band; imports by
// REGION/<load balancer ID>/<listener>; moves the members of "ssh" from the load balancer to a
// unikorn_loadbalancer_members and back, replacing nothing; and refuses a listener's members
// given in both places, either way round, before any change.
func TestAccLoadBalancerMembers(t *testing.T) {
	e := sharedEnv(t)

	var (
		httpMember, sshMember string
		httpPool              heldPool
	)

	external, held := naming.MembersExternalTag, naming.MembersHeldTag
	sshInline := sshMembers(22)

	start := e.membersStack(t, "", sshInline, map[string]string{"http": "[" + member(8080, 1) + "]"})
	reweighed := e.membersStack(t, "", sshInline, map[string]string{"http": "[" + member(8080, 3) + "]"})
	moved := e.membersStack(t, "", "", map[string]string{"http": "[" + member(8080, 3) + "]", "ssh": sshMembers(22)})

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckLoadBalancerDestroy(t), acctest.CheckServerDestroy(t)),
		Steps: []resource.TestStep{
			{
				// One apply: the load balancer is made while the server boots; the members wait.
				Config: start,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("members"), knownvalue.Null()),
					statecheck.ExpectKnownValue(membersAt("http"), tfjsonpath.New("members").AtSliceIndex(0).AtMapKey("weight"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(membersAt("http"), tfjsonpath.New("region"), knownvalue.StringExact(e.region())),
					statecheck.ExpectKnownValue(membersAt("http"), tfjsonpath.New("identity_id"), knownvalue.StringExact(e.project())),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrPair(membersAt("http"), "loadbalancer_id", lbAddress, "id"),
					func(s *terraform.State) error {
						lbID, _ := attr(s, lbAddress, "id")
						return resource.TestCheckResourceAttr(membersAt("http"), "id", lbID+"/http")(s)
					},
					checkPool(t, "http", "", []string{"8080:1"}, []string{external, held}, nil, &httpMember),
					capture(t, "http", &httpPool),
					listed(t, e, "http"),
					overlapped(t),
					checkPool(t, "ssh", sshAddress, []string{"22:1"}, nil, []string{external, held}, &sshMember),
				),
			},
			{
				// A weight alone: the members are updated in place, the member kept.
				Config:           reweighed,
				ConfigPlanChecks: plans(map[string]plancheck.ResourceActionType{membersAt("http"): plancheck.ResourceActionUpdate, lbAddress: plancheck.ResourceActionNoop}),
				Check:            checkPool(t, "http", "", []string{"8080:3"}, []string{external, held}, nil, &httpMember),
			},
			{
				// Drift: a weight changed out of band shows, and the apply sets it back.
				PreConfig: func() {
					changeWeight(t, e.region(), &httpPool, 9)
				},
				Config:           reweighed,
				ConfigPlanChecks: plans(map[string]plancheck.ResourceActionType{membersAt("http"): plancheck.ResourceActionUpdate, lbAddress: plancheck.ResourceActionNoop}),
				Check:            checkPool(t, "http", "", []string{"8080:3"}, nil, nil, &httpMember),
			},
			acctest.ImportStep(membersAt("http"), acctest.ImportID(membersAt("http"), "id")),
			{
				// Inline → resource in one apply: the load balancer lets go first, the member stays.
				Config: moved,
				ConfigPlanChecks: plans(map[string]plancheck.ResourceActionType{
					lbAddress: plancheck.ResourceActionUpdate, membersAt("ssh"): plancheck.ResourceActionCreate,
					membersAt("http"): plancheck.ResourceActionNoop, "unikorn_server.test": plancheck.ResourceActionNoop,
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(1).AtMapKey("members"), knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPool(t, "ssh", sshAddress, []string{"22:1"}, []string{external, held}, nil, &sshMember),
					listed(t, e, "http", "ssh"),
				),
			},
			{
				// Resource → inline in one apply: the resource is destroyed first, the load balancer
				// then gives the members again.
				Config: reweighed,
				ConfigPlanChecks: plans(map[string]plancheck.ResourceActionType{
					lbAddress: plancheck.ResourceActionUpdate, membersAt("ssh"): plancheck.ResourceActionDestroy,
					membersAt("http"): plancheck.ResourceActionNoop,
				}),
				Check: checkPool(t, "ssh", sshAddress, []string{"22:1"}, nil, []string{external, held}, nil),
			},
			{
				// Both places, the resource added to inline members: refused before any change.
				Config:      e.membersStack(t, "", sshInline, map[string]string{"http": "[" + member(8080, 3) + "]", "ssh": sshMembers(2222)}),
				ExpectError: regexp.MustCompile(`manages the members of[\s\S]*inline`),
			},
			{
				// Both places, inline members added to a held listener: refused before any change.
				Config:      e.membersStack(t, "["+member(80, 1)+"]", sshInline, map[string]string{"http": "[" + member(8080, 3) + "]"}),
				ExpectError: regexp.MustCompile(`held by a[\s\S]*unikorn_loadbalancer_members`),
			},
			{
				// Nothing was changed by either refusal (the failed update left the load balancer's
				// state with the members it read: its update sets them unset again, writing nothing).
				Config:           reweighed,
				ConfigPlanChecks: plans(map[string]plancheck.ResourceActionType{membersAt("http"): plancheck.ResourceActionNoop}),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPool(t, "http", "", []string{"8080:3"}, []string{external, held}, nil, nil),
					checkPool(t, "ssh", sshAddress, []string{"22:1"}, nil, []string{held}, nil),
				),
			},
		},
	})
}

// heldPool is where the test changes a member out of band: the load balancer, its pool and
// the member, recorded by capture.
type heldPool struct{ lb, pool, member string }

// capture records the load balancer of the state and the pool of listener with its one member.
func capture(t *testing.T, listener string, into *heldPool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		p, err := readPool(t, s, listener)
		if err != nil {
			return err
		}

		into.lb, _ = attr(s, lbAddress, "id")
		into.pool = p.id

		for _, m := range p.members {
			into.member = m.ID
		}

		return nil
	}
}

// changeWeight sets the weight of the member of h out of band.
func changeWeight(t *testing.T, region string, h *heldPool, weight int) {
	t.Helper()

	if err := acctest.ChangeLoadBalancerOutOfBand(t, region, h.lb, func(ctx context.Context, octavia *gophercloud.ServiceClient) error {
		return pools.UpdateMember(ctx, octavia, h.pool, h.member, pools.UpdateMemberOpts{Weight: &weight}).Err
	}); err != nil {
		t.Fatal(err)
	}
}

// listed checks that the list of the identity's unikorn_loadbalancer_members (ListMembers,
// what its list resource answers) holds exactly those of listeners of the state's load balancer.
func listed(t *testing.T, e lbEnv, listeners ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		lbID, err := attr(s, lbAddress, "id")
		if err != nil {
			return err
		}

		all, err := loadbalancer.ListMembers(context.Background(), acctest.Client(t), e.project(), e.region())
		if err != nil {
			return err
		}

		var got, want []string

		for _, l := range all {
			if strings.HasPrefix(l.ID, lbID+"/") {
				got = append(got, l.ID)
			}
		}

		for _, l := range listeners {
			want = append(want, lbID+"/"+l)
		}

		if !slices.Equal(got, want) {
			return fmt.Errorf("listed members %v, want %v", got, want)
		}

		return nil
	}
}

// overlapped checks that the load balancer was made while the server booted: Octavia took it
// before Nova last updated the server (its boot's end).
func overlapped(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := acctest.Attributes(s, lbAddress)
		if err != nil {
			return err
		}

		serverID, err := attr(s, "unikorn_server.test", "id")
		if err != nil {
			return err
		}

		lb, err := acctest.LoadBalancerSnapshot(t, a["region"], a["id"])
		if err != nil || lb == nil {
			return errors.Join(err, fmt.Errorf("load balancer %s not found", a["id"]))
		}

		server, err := acctest.Server(t, a["region"], serverID)
		if err != nil {
			return err
		}

		if !lb.LoadBalancer.CreatedAt.Before(server.Updated) {
			return fmt.Errorf("load balancer created at %s, server booted by %s: the load balancer waited for the server",
				lb.LoadBalancer.CreatedAt, server.Updated)
		}

		return nil
	}
}
