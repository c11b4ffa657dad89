package loadbalancer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// listener is one element of a test configuration's listeners: its name, protocol and port,
// its members ("address:port", or "address:port:weight") and further HCL lines.
type listener struct {
	name, protocol string
	port           int
	members        []string
	extra          []string
}

func (l listener) hcl() string {
	members := make([]string, len(l.members))
	for i, m := range l.members {
		address, port, _ := strings.Cut(m, ":")

		weight := ""
		if port, weight, _ = strings.Cut(port, ":"); weight != "" {
			weight = ", weight = " + weight
		}

		members[i] = fmt.Sprintf("{ address = %q, port = %s%s }", address, port, weight)
	}

	lines := append([]string{
		fmt.Sprintf("name = %q", l.name), fmt.Sprintf("protocol = %q", l.protocol), fmt.Sprintf("port = %d", l.port),
		"members = [" + strings.Join(members, ", ") + "]",
	}, l.extra...)

	return "    {\n      " + strings.Join(lines, "\n      ") + "\n    },\n"
}

// listenersHCL is the load balancer arguments public_ip and listeners.
func listenersHCL(publicIP bool, ls ...listener) string {
	var b strings.Builder

	fmt.Fprintf(&b, "  public_ip = %t\n  listeners = [\n", publicIP)

	for _, l := range ls {
		b.WriteString(l.hcl())
	}

	b.WriteString("  ]\n")

	return b.String()
}

// https is the TCP listener with PROXY protocol, allowed CIDRs, an idle timeout and a
// monitor; ssh a plain TCP one; udp a UDP one with a UDP-CONNECT monitor.
func https(port, idle int, cidrs string, members []string, healthy, unhealthy int) listener {
	return listener{name: "https", protocol: "TCP", port: port, members: members, extra: []string{
		"proxy_protocol_v2 = true",
		fmt.Sprintf("idle_timeout_seconds = %d", idle),
		"allowed_cidrs = " + cidrs,
		fmt.Sprintf("health_monitor = { interval_seconds = 10, timeout_seconds = 5, healthy_threshold = %d, unhealthy_threshold = %d }",
			healthy, unhealthy),
	}}
}

func ssh(member string) listener {
	return listener{name: "ssh", protocol: "TCP", port: 22, members: []string{member}}
}

func udp(monitor string) listener {
	return listener{name: "udp", protocol: "UDP", port: 53, members: []string{"10.0.0.12:53"}, extra: []string{"health_monitor = " + monitor}}
}

// threeListeners is the topology of the issue: two TCP listeners and a UDP one.
var threeListeners = threeListenersWith("10.0.0.10:22")

// threeListenersWith is threeListeners with the ssh listener's one member.
func threeListenersWith(sshMember string) string {
	return listenersHCL(true,
		https(443, 120, `["10.0.0.0/8", "192.168.0.0/16"]`, []string{"10.0.0.10:8443", "10.0.0.11:8443"}, 3, 2),
		ssh(sshMember),
		udp("{ interval_seconds = 5, timeout_seconds = 3 }"))
}

// updatedHTTPS changes members, CIDRs, the idle timeout and monitor thresholds of https.
func updatedHTTPS(port int) listener {
	return https(port, 300, `["10.0.0.0/8"]`, []string{"10.0.0.10:8443", "10.0.0.13:8443"}, 5, 4)
}

// updatedListeners changes members (the ssh one with weight 7), CIDRs, the idle timeout and
// monitor thresholds.
var updatedListeners = listenersHCL(true, updatedHTTPS(443), ssh("10.0.0.14:22:7"),
	udp("{ interval_seconds = 6, timeout_seconds = 3, healthy_threshold = 2, unhealthy_threshold = 2 }"))

// reshapedListeners drops "udp" (with its monitor) and adds "smtp" at the end (an import
// lists listeners in the order Octavia created them); public_ip and the https port are
// arguments.
func reshapedListeners(publicIP bool, httpsPort int) string {
	return listenersHCL(publicIP, updatedHTTPS(httpsPort), ssh("10.0.0.14:22:7"),
		listener{name: "smtp", protocol: "TCP", port: 25, members: []string{"10.0.0.15:25"}})
}

// TestAccLoadBalancer_basic creates the three-listener load balancer and checks every part in
// Octavia and Neutron; converges members, CIDRs, timeouts and monitor thresholds in place;
// removes a listener (its pool and monitor are pruned) and adds one; refuses an immutable
// change at plan time; turns the public IP off; imports by REGION/ID and REGION/name.
func TestAccLoadBalancer_basic(t *testing.T) {
	e := sharedEnv(t)
	name := e.name
	lbName := "lb-" + name

	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameHTTPSListener := statecheck.CompareValue(compare.ValuesSame())
	sameHTTPSPool := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, lbCase(t, append([]resource.TestStep{
		{
			Config: e.lb(threeListeners),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(lbAddress, tfjsonpath.New("id")),
				sameHTTPSListener.AddStateValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("listener_id")),
				sameHTTPSPool.AddStateValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("pool_id")),
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("provisioning_status"), knownvalue.StringExact("ACTIVE")),
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("public_ip_address"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(1).AtMapKey("idle_timeout_seconds"),
					knownvalue.Int64Exact(60)), // unset: the default (Unikorn's), not Octavia's 50
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(2).AtMapKey("idle_timeout_seconds"),
					knownvalue.Null()), // UDP
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(1).AtMapKey("monitor_id"), knownvalue.Null()),
			},
			Check: checkOctavia(t, func(s *terraform.State, lb *acctest.LBSnapshot) error {
				var errs []error

				expect := func(what string, got, want any) {
					if fmt.Sprint(got) != fmt.Sprint(want) {
						errs = append(errs, fmt.Errorf("%s = %v, want %v", what, got, want))
					}
				}

				network := e.network()
				project := e.project()
				address, _ := attr(s, lbAddress, "public_ip_address")

				expect("name", lb.LoadBalancer.Name, lbName)
				expect("project", lb.LoadBalancer.ProjectID, project)
				expect("VIP network", lb.LoadBalancer.VipNetworkID, network)
				expect("listeners", len(lb.Listeners), 3)
				expect("pools", len(lb.Pools), 3)
				expect("monitors", len(lb.Monitors), 2)

				https := lb.Listeners[lbName+"-https-listener"]
				expect("https protocol", https.Protocol, "TCP")
				expect("https port", https.ProtocolPort, 443)
				expect("https CIDRs", sorted(https.AllowedCIDRs), "[10.0.0.0/8 192.168.0.0/16]")
				expect("https client data timeout", https.TimeoutClientData, 120000)
				expect("https member data timeout", https.TimeoutMemberData, 120000)
				expect("https default pool", https.DefaultPoolID, lb.Pools[lbName+"-https-pool"].ID)
				expect("https pool protocol", lb.Pools[lbName+"-https-pool"].Protocol, "PROXYV2")
				expect("https pool method", lb.Pools[lbName+"-https-pool"].LBMethod, "ROUND_ROBIN")
				expect("https members", lb.Members[lbName+"-https-pool"], "[10.0.0.10:8443 10.0.0.11:8443]")

				hm := lb.Monitors[lbName+"-https-monitor"]
				expect("https monitor", fmt.Sprintf("%s %d %d %d %d", hm.Type, hm.Delay, hm.Timeout, hm.MaxRetries, hm.MaxRetriesDown), "TCP 10 5 3 2")

				ssh := lb.Listeners[lbName+"-ssh-listener"]
				expect("ssh default pool", ssh.DefaultPoolID, lb.Pools[lbName+"-ssh-pool"].ID)
				expect("ssh pool protocol", lb.Pools[lbName+"-ssh-pool"].Protocol, "TCP")
				expect("ssh members", lb.Members[lbName+"-ssh-pool"], "[10.0.0.10:22]")

				udp := lb.Listeners[lbName+"-udp-listener"]
				expect("udp protocol", udp.Protocol, "UDP")
				expect("udp default pool", udp.DefaultPoolID, lb.Pools[lbName+"-udp-pool"].ID)
				expect("udp pool protocol", lb.Pools[lbName+"-udp-pool"].Protocol, "UDP")
				um := lb.Monitors[lbName+"-udp-monitor"]
				expect("udp monitor", fmt.Sprintf("%s %d %d %d %d", um.Type, um.Delay, um.Timeout, um.MaxRetries, um.MaxRetriesDown), "UDP-CONNECT 5 3 2 2")
				expect("ssh data timeouts (the default)", fmt.Sprint(ssh.TimeoutClientData, ssh.TimeoutMemberData), "60000 60000")

				expect("floating IPs on the VIP port", len(lb.FloatingIPs), 1)
				if len(lb.FloatingIPs) == 1 {
					expect("floating IP", lb.FloatingIPs[0].FloatingIP, address)
				}

				return errors.Join(errs...)
			}),
		},
		{
			Config:           e.lb(updatedListeners),
			ConfigPlanChecks: acctest.Expect(lbAddress, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(lbAddress, tfjsonpath.New("id")),
				sameHTTPSListener.AddStateValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("listener_id")),
				sameHTTPSPool.AddStateValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("pool_id")),
			},
			Check: checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error {
				https := lb.Listeners[lbName+"-https-listener"]
				hm := lb.Monitors[lbName+"-https-monitor"]
				um := lb.Monitors[lbName+"-udp-monitor"]

				got := []string{
					sorted(https.AllowedCIDRs),
					fmt.Sprint(https.TimeoutClientData, https.TimeoutMemberData),
					fmt.Sprint(lb.Members[lbName+"-https-pool"]),
					fmt.Sprint(lb.Members[lbName+"-ssh-pool"]),
					fmt.Sprint(hm.MaxRetries, hm.MaxRetriesDown),
					fmt.Sprint(um.Delay, um.MaxRetries, um.MaxRetriesDown),
					fmt.Sprint(lb.Weights[lbName+"-ssh-pool"], lb.Weights[lbName+"-https-pool"]),
				}
				want := []string{"[10.0.0.0/8]", "300000 300000", "[10.0.0.10:8443 10.0.0.13:8443]", "[10.0.0.14:22]", "5 4", "6 2 2",
					"map[10.0.0.14:22:7] map[10.0.0.10:8443:1 10.0.0.13:8443:1]"}

				if !slices.Equal(got, want) {
					return fmt.Errorf("after the update Octavia has %q, want %q", got, want)
				}

				return nil
			}),
		},
		{
			Config:           e.lb(reshapedListeners(true, 443)),
			ConfigPlanChecks: acctest.Expect(lbAddress, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(lbAddress, tfjsonpath.New("id")),
				sameHTTPSListener.AddStateValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("listener_id")),
			},
			Check: checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error {
				for _, gone := range []string{"-udp-listener", "-udp-pool", "-udp-monitor"} {
					_, l := lb.Listeners[lbName+gone]
					_, p := lb.Pools[lbName+gone]
					_, m := lb.Monitors[lbName+gone]

					if l || p || m {
						return fmt.Errorf("%s%s was not pruned", lbName, gone)
					}
				}

				smtp, ok := lb.Listeners[lbName+"-smtp-listener"]
				if !ok || smtp.ProtocolPort != 25 || smtp.DefaultPoolID != lb.Pools[lbName+"-smtp-pool"].ID {
					return fmt.Errorf("smtp listener %+v, pool %+v", smtp, lb.Pools[lbName+"-smtp-pool"])
				}

				if len(lb.Listeners) != 3 || len(lb.Pools) != 3 || len(lb.Monitors) != 1 {
					return fmt.Errorf("%d listeners, %d pools, %d monitors; want 3, 3, 1", len(lb.Listeners), len(lb.Pools), len(lb.Monitors))
				}

				return nil
			}),
		},
		{
			Config:      e.lb(reshapedListeners(true, 8443)),
			ExpectError: regexp.MustCompile(`(?s)Listener port cannot change.*new name`),
		},
		{
			Config:           e.lb(reshapedListeners(false, 443)),
			ConfigPlanChecks: acctest.Expect(lbAddress, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(lbAddress, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("public_ip_address"), knownvalue.Null()),
			},
			Check: checkOctavia(t, func(s *terraform.State, lb *acctest.LBSnapshot) error {
				if len(lb.FloatingIPs) != 0 {
					return fmt.Errorf("floating IP %s is still on the VIP port", lb.FloatingIPs[0].FloatingIP)
				}

				region, _ := attr(s, lbAddress, "region")

				left, err := acctest.LoadBalancerFloatingIPs(t, region, name, "")
				if err != nil {
					return err
				}

				if len(left) != 0 {
					return fmt.Errorf("floating IP %s (%s) is left", left[0].FloatingIP, left[0].ID)
				}

				return nil
			}),
		},
	}, acctest.ImportSteps(lbAddress)...)))
}

// TestAccLoadBalancer_names checks the linkage contract against a real Octavia: a near miss
// (lb-<name>2) is neither adopted nor touched, an lb-<name> that an interrupted create left (the
// creation mark only: ownership_acc_test.go has the others) is adopted (same ID) and converged,
// and two load balancers with one name are an error naming both.
func TestAccLoadBalancer_names(t *testing.T) {
	e := sharedEnv(t)
	name := e.name

	project, subnet, region := e.project(), e.subnet(), e.region()

	var nearMiss, adoptee string

	var duplicates []string

	const oneListener = `
  listeners = [{
    name     = "http"
    protocol = "TCP"
    port     = 80
    members  = [{ address = "10.0.0.20", port = 8080 }]
  }]
`

	dupName := name + "-dup"

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			PreConfig: func() {
				nearMiss = acctest.CreateRawLoadBalancers(t, project, region, subnet, "lb-"+name+"2")[0]
				adoptee = acctest.CreateTaggedLoadBalancer(t, project, region, subnet, "lb-"+name, creationMark)
			},
			Config: e.lb(oneListener),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(s *terraform.State) error {
					id, _ := attr(s, lbAddress, "id")
					if id != adoptee {
						return fmt.Errorf("the resource has load balancer %s, want the adopted %s", id, adoptee)
					}

					near, err := acctest.LoadBalancerSnapshot(t, region, nearMiss)
					if err != nil || near == nil {
						return fmt.Errorf("the near miss %s is gone (err %v)", nearMiss, err)
					}

					if len(near.Listeners) != 0 || near.LoadBalancer.Name != "lb-"+name+"2" {
						return fmt.Errorf("the near miss was touched: %s with %d listeners", near.LoadBalancer.Name, len(near.Listeners))
					}

					return nil
				},
				checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error {
					if l, ok := lb.Listeners["lb-"+name+"-http-listener"]; !ok || l.ProtocolPort != 80 {
						return fmt.Errorf("the adopted load balancer was not converged: listeners %v", slices.Sorted(maps.Keys(lb.Listeners)))
					}

					return nil
				}),
			),
		},
		{
			PreConfig: func() {
				acctest.DeleteLoadBalancerOutOfBand(t, region, nearMiss)
				duplicates = acctest.CreateRawLoadBalancers(t, project, region, subnet, "lb-"+dupName, "lb-"+dupName)
			},
			Config: e.lb(oneListener) + fmt.Sprintf(`
resource "unikorn_loadbalancer" "dup" {
  identity_id = local.identity_id
  network_id  = local.network_id
  name        = %[1]q
}
`, dupName),
			ExpectError: regexp.MustCompile(`(?s)consistency\s+error:\s+2\s+load\s+balancers\s+named\s+"lb-` + dupName +
				`":\s+[0-9a-f-]{36},\s+[0-9a-f-]{36}`),
		},
		{
			// The duplicates go before the identity is destroyed.
			PreConfig: func() {
				for _, id := range duplicates {
					acctest.DeleteLoadBalancerOutOfBand(t, region, id)
				}
			},
			Config: e.lb(oneListener),
		},
	}))
}

// TestAccLoadBalancer_drift deletes a listener out of band, changes members and then a member's
// weight alone out of band (each time the plan shows an update that repairs it: the last one
// holds the refresh's memo of the children to Octavia's updated_at, Memo), then deletes
// the whole load balancer
// out of band (the plan re-creates it, and its floating IP, left on no port by Neutron, is
// re-attached instead of leaked).
func TestAccLoadBalancer_drift(t *testing.T) {
	e := sharedEnv(t)
	name := e.name
	lbName := "lb-" + name

	config := e.lb(listenersHCL(true,
		listener{name: "a", protocol: "TCP", port: 80, members: []string{"10.0.0.30:8080"}, extra: []string{"health_monitor = {}"}},
		listener{name: "b", protocol: "TCP", port: 81, members: []string{"10.0.0.31:8081"}}))

	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameAddress := statecheck.CompareValue(compare.ValuesSame())

	var lbID, region string

	capture := func(s *terraform.State) error {
		lbID, _ = attr(s, lbAddress, "id")
		region, _ = attr(s, lbAddress, "region")

		return nil
	}

	change := func(what func(ctx context.Context, lb *acctest.LBSnapshot, octavia *gophercloud.ServiceClient) error) resource.TestCheckFunc {
		return func(*terraform.State) error {
			lb, err := acctest.LoadBalancerSnapshot(t, region, lbID)
			if err != nil {
				return err
			}

			return acctest.ChangeLoadBalancerOutOfBand(t, region, lbID, func(ctx context.Context, octavia *gophercloud.ServiceClient) error {
				return what(ctx, lb, octavia)
			})
		}
	}

	// repaired is a step whose plan updates the load balancer in place, after which check finds
	// Octavia repaired; then next changes it out of band again.
	repaired := func(check func(lb *acctest.LBSnapshot) error, next resource.TestCheckFunc) resource.TestStep {
		return resource.TestStep{
			Config:            config,
			ConfigPlanChecks:  acctest.Expect(lbAddress, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(lbAddress, tfjsonpath.New("id"))},
			Check: resource.ComposeAggregateTestCheckFunc(
				checkOctavia(t, func(_ *terraform.State, lb *acctest.LBSnapshot) error { return check(lb) }), next),
			ExpectNonEmptyPlan: true,
		}
	}

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(lbAddress, tfjsonpath.New("id")),
				sameAddress.AddStateValue(lbAddress, tfjsonpath.New("public_ip_address")),
				statecheck.ExpectKnownValue(lbAddress, tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("health_monitor"),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"interval_seconds": knownvalue.Int64Exact(10), "timeout_seconds": knownvalue.Int64Exact(5),
						"healthy_threshold": knownvalue.Int64Exact(2), "unhealthy_threshold": knownvalue.Int64Exact(2),
					})),
			},
			Check: resource.ComposeAggregateTestCheckFunc(capture,
				change(func(ctx context.Context, lb *acctest.LBSnapshot, octavia *gophercloud.ServiceClient) error {
					return listeners.Delete(ctx, octavia, lb.Listeners[lbName+"-b-listener"].ID).ExtractErr()
				})),
			ExpectNonEmptyPlan: true,
		},
		repaired(func(lb *acctest.LBSnapshot) error {
			l, ok := lb.Listeners[lbName+"-b-listener"]
			if !ok || l.DefaultPoolID != lb.Pools[lbName+"-b-pool"].ID {
				return fmt.Errorf("listener b was not repaired onto its pool: %v", slices.Sorted(maps.Keys(lb.Listeners)))
			}

			return nil
		}, change(func(ctx context.Context, lb *acctest.LBSnapshot, octavia *gophercloud.ServiceClient) error {
			return pools.BatchUpdateMembers(ctx, octavia, lb.Pools[lbName+"-a-pool"].ID, []pools.BatchUpdateMemberOpts{
				{Address: "10.0.0.99", ProtocolPort: 9999},
			}).Err
		})),
		repaired(func(lb *acctest.LBSnapshot) error {
			if got := fmt.Sprint(lb.Members[lbName+"-a-pool"]); got != "[10.0.0.30:8080]" {
				return fmt.Errorf("members of a = %s, want them repaired", got)
			}

			return nil
		}, change(func(ctx context.Context, lb *acctest.LBSnapshot, octavia *gophercloud.ServiceClient) error {
			// A weight alone: the member keeps its ID, so only Octavia's updated_at of the load
			// balancer tells the refresh that its memo of the children is stale.
			pool := lb.Pools[lbName+"-a-pool"]
			if len(pool.Members) != 1 {
				return fmt.Errorf("pool a has members %v, want one", pool.Members)
			}

			weight := 9
			_, err := pools.UpdateMember(ctx, octavia, pool.ID, pool.Members[0].ID, pools.UpdateMemberOpts{Weight: &weight}).Extract()

			return err
		})),
		repaired(func(lb *acctest.LBSnapshot) error {
			if got := lb.Weights[lbName+"-a-pool"]["10.0.0.30:8080"]; got != 1 {
				return fmt.Errorf("weight of a's member = %d, want it repaired to 1", got)
			}

			return nil
		}, func(*terraform.State) error {
			acctest.DeleteLoadBalancerOutOfBand(t, region, lbID)
			return nil
		}),
		{
			Config:           config,
			ConfigPlanChecks: acctest.Expect(lbAddress, plancheck.ResourceActionCreate),
			ConfigStateChecks: []statecheck.StateCheck{
				sameAddress.AddStateValue(lbAddress, tfjsonpath.New("public_ip_address")),
			},
			Check: func(s *terraform.State) error {
				id, _ := attr(s, lbAddress, "id")
				if id == lbID {
					return fmt.Errorf("the load balancer was not re-created")
				}

				return nil
			},
		},
	}))
}

// TestAccLoadBalancer_failedCreateIsRecorded lets a create run out of time while the load
// balancer is still being built. Usually its ID was recorded before the wait, so the next
// plan replaces the tainted resource; on a loaded cloud the deadline can even cut the POST
// itself, and Octavia may finish that load balancer after the provider gave up: the next
// apply then adopts it by name. Either way there is never a twin, and destroy leaves
// nothing behind.
//
// When the POST was cut, Octavia may still be taking it when the next apply starts (it is not
// listed yet): that apply would make a second load balancer, see the first appear, delete its
// own and refuse ("two applies or two resources make the same load balancer"), which is what a
// create must do when two applies make one load balancer, and which a provider cannot tell from
// a POST still in flight. Seen twice in full runs (stop 39). So the last step first waits, up
// to a minute, for a load balancer of the name to be listed, and goes on at once when one is;
// when none comes, the POST never reached Octavia and the apply makes the first.
func TestAccLoadBalancer_failedCreateIsRecorded(t *testing.T) {
	name := acctest.IdentityName()

	listener := `
  listeners = [{ name = "http", protocol = "TCP", port = 80, members = [{ address = "10.0.0.40", port = 8080 }] }]
`

	var project, region string

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		{
			Config: baseConfig(name),
			Check: func(s *terraform.State) error {
				project, _ = attr(s, "unikorn_identity.test", "id")
				region, _ = attr(s, "unikorn_network.test", "region")

				return nil
			},
		},
		{
			// A new load balancer takes longer than that to be ACTIVE.
			Config: lbConfig(name, listener+"  timeouts = { create = \"4s\" }\n"),
			// The CLI wraps long lines: any white space may separate the words.
			ExpectError: regexp.MustCompile(`(?s)Error\s+creating\s+load\s+balancer.*(timed\s+out|deadline\s+exceeded)`),
		},
		{
			PreConfig: func() { acctest.AwaitLoadBalancerListed(t, region, project, naming.LoadBalancer(name), time.Minute) },
			Config:    lbConfig(name, listener),
			Check: checkOctavia(t, func(s *terraform.State, lb *acctest.LBSnapshot) error {
				if len(lb.Listeners) != 1 || lb.LoadBalancer.ProvisioningStatus != "ACTIVE" {
					return fmt.Errorf("%s: %s with %d listeners", lb.LoadBalancer.ID, lb.LoadBalancer.ProvisioningStatus, len(lb.Listeners))
				}

				return checkNoTwin(t, s, lb)
			}),
		},
	}))
}

// TestAccLoadBalancer_validation shows that configuration mistakes are plan-time errors on
// the attribute at fault.
func TestAccLoadBalancer_validation(t *testing.T) {
	name := acctest.IdentityName()

	step := func(listeners, want string) resource.TestStep {
		return resource.TestStep{
			Config:      lbConfig(name, "  listeners = ["+listeners+"]\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}

	resource.ParallelTest(t, lbCase(t, []resource.TestStep{
		step(`{ name = "d", protocol = "UDP", port = 53, idle_timeout_seconds = 10 }`, `Idle timeout on a UDP listener`),
		step(`{ name = "d", protocol = "UDP", port = 53, proxy_protocol_v2 = true }`, `PROXY protocol on a UDP listener`),
		step(`{ name = "a", protocol = "TCP", port = 80, health_monitor = { interval_seconds = 5, timeout_seconds = 5 } }`,
			`(?s)Health monitor timeout not below its interval.*timeout_seconds \(5\) must be less than\s+interval_seconds \(5\)`),
		step(`{ name = "a", protocol = "TCP", port = 80, health_monitor = { healthy_threshold = 11 } }`,
			`(?s)healthy_threshold\s+value\s+must\s+be\s+between\s+1\s+and\s+10`),
		step(`{ name = "a", protocol = "TCP", port = 80 }, { name = "a", protocol = "TCP", port = 81 }`, `Duplicate listener name`),
		step(`{ name = "a", protocol = "TCP", port = 80 }, { name = "b", protocol = "TCP", port = 80 }`, `Duplicate listener port`),
		step(`{ name = "a", protocol = "TCP", port = 80, allowed_cidrs = ["10.0.0.1/8"] }`, `(?s)Invalid\s+CIDR.*not\s+in\s+canonical\s+form.*10\.0\.0\.0/8`),
		step(`{ name = "a", protocol = "SCTP", port = 80 }`, `(?s)protocol\s+value\s+must\s+be\s+one\s+of`),
		step(`{ name = "a", protocol = "TCP", port = 80, members = [{ address = "10.0.0.5", port = 80 }, { address = "10.0.0.5", port = 80 }] }`,
			`(?s)Duplicate\s+member.*Members\s+0\s+and\s+1\s+are\s+both\s+10\.0\.0\.5\s+port\s+80`),
		step(`{ name = "a", protocol = "TCP", port = 80, members = [{ address = "10.0.0.5", port = 80, weight = 257 }] }`,
			`(?s)listeners\[0\]\.members\[0\]\.weight.*value\s+must\s+be\s+between\s+0\s+and\s+256`),
	}))
}

func sorted(ss []string) string {
	out := slices.Clone(ss)
	slices.Sort(out)

	return fmt.Sprint(out)
}
