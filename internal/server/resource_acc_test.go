package server_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
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

func TestAccServer_basic(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	userData := "#cloud-config\nruncmd: [echo hello]\n"

	serverID := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		// Tags cannot be read back from their metadata keys; user data cannot be read at all.
		Steps: append([]resource.TestStep{
			{
				Config: f.config(srv{extra: fmt.Sprintf(`
  security_group_ids = [local.group_a]
  ssh_key            = true
  server_group       = true
  user_data          = %q
  tags = {
    "monitoring.example.com/team-name" = "blue"
    "backup.acme.io/schedule"          = "daily"
  }`, userData)}),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("power_state"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip_address"), knownvalue.Null()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("private_ip"), knownvalue.StringRegexp(regexp.MustCompile(`^10\.42\.0\.\d+$`))),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("provider_id"),
						knownvalue.StringRegexp(regexp.MustCompile(`^openstack://`+f.region+`/[0-9a-f-]{36}$`))),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("user_data"), knownvalue.Null()),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("user_data_sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("metadata").AtMapKey("monitoring:team_name"), knownvalue.StringExact("blue")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					nova(t, func(srv *servers.Server, a map[string]string, s *terraform.State) error {
						id, err := f.identityAttrs(s)
						if err != nil {
							return err
						}

						want := map[string]string{
							"serverID": srv.ID, "region:server_id": srv.ID,
							"organizationID": "org-" + f.identity, "identity:organization_id": "org-" + f.identity,
							"projectID": "proj-" + f.identity, "identity:project_id": "proj-" + f.identity,
							"regionID": f.region, "region:region_id": f.region,
							"monitoring:team_name": "blue", "backup:schedule": "daily",
							// The ownership marks: made by a unikorn_server's create, which finished.
							naming.MarkKindKey: "unikorn_server", naming.MarkCompletedKey: naming.MarkCompletedValue,
						}

						switch {
						case !maps.Equal(srv.Metadata, want):
							return fmt.Errorf("Nova metadata = %v\nwant            %v", srv.Metadata, want)
						case srv.UserID != id["user_id"]:
							return fmt.Errorf("server owned by user %s, want the identity's user %s", srv.UserID, id["user_id"])
						case srv.TenantID != id["id"]:
							return fmt.Errorf("server in project %s, want %s", srv.TenantID, id["id"])
						case srv.KeyName != naming.KeypairName:
							return fmt.Errorf("key_name = %q", srv.KeyName)
						case srv.ServerGroups == nil || !slices.Equal(*srv.ServerGroups, []string{id["server_group_ids."+f.region]}):
							return fmt.Errorf("server groups = %v, want the identity's %s", srv.ServerGroups, id["server_group_ids."+f.region])
						case srv.Userdata == nil || *srv.Userdata != base64.StdEncoding.EncodeToString([]byte(userData)):
							return fmt.Errorf("user data = %v", srv.Userdata)
						}

						port, err := acctest.Port(t, f.region, a["port_id"])
						if err != nil {
							return err
						}

						group, _ := f.groupID(s, "a")

						switch {
						case port.Name != naming.ServerPort(f.name) || port.DeviceID != srv.ID:
							return fmt.Errorf("port %s is %q on device %q", port.ID, port.Name, port.DeviceID)
						case !slices.Equal(port.SecurityGroups, []string{group}):
							return fmt.Errorf("port security groups = %v, want [%s]", port.SecurityGroups, group)
						case port.MACAddress != a["mac_address"] || port.FixedIPs[0].IPAddress != a["private_ip"]:
							return fmt.Errorf("port %s has %s / %s, state %s / %s", port.ID, port.MACAddress, port.FixedIPs[0].IPAddress,
								a["mac_address"], a["private_ip"])
						}

						return nil
					}),
				),
			},
			{
				// A refresh-only run right after apply: nothing changed outside of Terraform.
				RefreshState: true,
				RefreshPlanChecks: resource.RefreshPlanChecks{
					PostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
			},
		}, acctest.ImportSteps(address, "tags", "user_data_sha256")...),
	})
}

func TestAccServer_floatingIP(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)

	var firstFIP string

	hasFIP := func(want bool) resource.TestCheckFunc {
		return acctest.CheckAttributes(address, func(a map[string]string) error {
			fips, err := acctest.FloatingIPsOfPort(t, f.region, a["port_id"])
			if err != nil {
				return err
			}

			switch {
			case !want && len(fips) > 0:
				return fmt.Errorf("floating IP %s still on port %s", fips[0].FloatingIP, a["port_id"])
			case want && (len(fips) != 1 || fips[0].FloatingIP != a["public_ip_address"]):
				return fmt.Errorf("floating IPs on port %s: %+v, state says %q", a["port_id"], fips, a["public_ip_address"])
			case want && firstFIP == "":
				firstFIP = fips[0].ID
			}

			return nil
		})
	}

	resource.ParallelTest(t, f.inPlace(t,
		step{
			server: srv{extra: "  public_ip = true"},
			state: []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip_address"),
				knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)))},
			check: hasFIP(true),
		},
		step{
			server: srv{extra: "  public_ip = false"},
			state:  []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip_address"), knownvalue.Null())},
			check: resource.ComposeAggregateTestCheckFunc(hasFIP(false), func(*terraform.State) error {
				// The floating IP this provider made is deleted, not just detached.
				fips, err := acctest.FloatingIPsOfPort(t, f.region, "")
				if err != nil {
					return err
				}

				for _, fip := range fips {
					if fip.ID == firstFIP {
						return fmt.Errorf("floating IP %s (%s) was detached but not deleted", fip.FloatingIP, fip.ID)
					}
				}

				return nil
			}),
		},
		step{server: srv{extra: "  public_ip = true"}, check: hasFIP(true)},
	))
}

func TestAccServer_securityGroups(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)

	portHas := func(groups []string, pairs map[string]string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			a, err := acctest.Attributes(s, address)
			if err != nil {
				return err
			}

			port, err := acctest.Port(t, f.region, a["port_id"])
			if err != nil {
				return err
			}

			var want []string

			for _, g := range groups {
				group, err := f.groupID(s, g)
				if err != nil {
					return err
				}

				want = append(want, group)
			}

			slices.Sort(want)

			got := slices.Sorted(slices.Values(port.SecurityGroups))
			if !slices.Equal(got, want) {
				return fmt.Errorf("port security groups = %v, want %v", got, want)
			}

			gotPairs := map[string]string{}
			for _, p := range port.AllowedAddressPairs {
				gotPairs[p.IPAddress] = p.MACAddress
			}

			for ip, mac := range pairs {
				if mac == "" {
					pairs[ip] = port.MACAddress
				}
			}

			if !maps.Equal(gotPairs, pairs) {
				return fmt.Errorf("port address pairs = %v, want %v", gotPairs, pairs)
			}

			return nil
		}
	}

	resource.ParallelTest(t, f.inPlace(t,
		step{
			server: srv{extra: "  security_group_ids = [local.group_a]"},
			check:  portHas([]string{"a"}, map[string]string{}),
		},
		step{
			server: srv{extra: `
  security_group_ids    = [local.group_b, local.group_a]
  allowed_address_pairs = [
    { ip_address = "10.42.0.200" },
    { ip_address = "10.42.1.0/24", mac_address = "fa:16:3e:aa:bb:cc" },
  ]`},
			check: portHas([]string{"a", "b"}, map[string]string{"10.42.0.200": "", "10.42.1.0/24": "fa:16:3e:aa:bb:cc"}),
		},
		step{
			server: srv{extra: "  security_group_ids = []"},
			check:  portHas(nil, map[string]string{}),
		},
	))
}

func TestAccServer_resize(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	large := acctest.FlavorID(t, f.region, acctest.ServerLargeFlavor)

	resource.ParallelTest(t, f.inPlace(t,
		step{},
		step{
			server: srv{flavor: large, extra: `  power_state = "stopped"`},
			state: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("flavor_id"), knownvalue.StringExact(large)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("SHUTOFF")),
			},
			check: nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
				if name := srv.Flavor["original_name"]; name != acctest.ServerLargeFlavor || srv.Status != "SHUTOFF" {
					return fmt.Errorf("server on flavor %v, status %s; want %s, SHUTOFF", name, srv.Status, acctest.ServerLargeFlavor)
				}

				return nil
			}),
		},
	))
}

func TestAccServer_rebuild(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	other := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region})

	privateIP := statecheck.CompareValue(compare.ValuesSame())
	samePrivateIP := func(more ...statecheck.StateCheck) []statecheck.StateCheck {
		return append([]statecheck.StateCheck{privateIP.AddStateValue(address, tfjsonpath.New("private_ip"))}, more...)
	}

	novaHas := func(image, userData, key string) resource.TestCheckFunc {
		return nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
			switch {
			case srv.Image["id"] != image:
				return fmt.Errorf("server image = %v, want %s", srv.Image["id"], image)
			case srv.Userdata == nil || *srv.Userdata != base64.StdEncoding.EncodeToString([]byte(userData)):
				return fmt.Errorf("server user data = %v, want %q", srv.Userdata, userData)
			case srv.KeyName != key:
				return fmt.Errorf("server key = %q, want %q", srv.KeyName, key)
			}

			return nil
		})
	}

	resource.ParallelTest(t, f.inPlace(t,
		step{server: srv{extra: `  user_data = "one"`}, state: samePrivateIP(), check: novaHas(f.image, "one", "")},
		step{
			server: srv{image: other.ID, extra: `  user_data = "one"`},
			state:  samePrivateIP(statecheck.ExpectKnownValue(address, tfjsonpath.New("image_id"), knownvalue.StringExact(other.ID))),
			check:  novaHas(other.ID, "one", ""),
		},
		step{
			// New user data and the keypair: a rebuild too, shown by user_data_sha256.
			server: srv{image: other.ID, extra: `
  user_data = "two"
  ssh_key   = true`},
			plan:  []plancheck.PlanCheck{plancheck.ExpectUnknownValue(address, tfjsonpath.New("status"))},
			state: samePrivateIP(),
			check: novaHas(other.ID, "two", naming.KeypairName),
		},
	))
}

func TestAccServer_power(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)

	power := func(state, status string) step {
		return step{
			server: srv{extra: fmt.Sprintf("  power_state = %q", state)},
			state:  []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact(status))},
			check: nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
				if srv.Status != status {
					return fmt.Errorf("server status = %s, want %s", srv.Status, status)
				}

				return nil
			}),
		}
	}

	resource.ParallelTest(t, f.inPlace(t, power("stopped", "SHUTOFF"), power("running", "ACTIVE"), power("stopped", "SHUTOFF")))
}

// TestAccServer_nearMiss makes "<name>2" first, then "<name>": the second must be a server of
// its own, not the first one found by Nova's fuzzy name filter.
func TestAccServer_nearMiss(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	near := srv{label: "near", name: f.name + "2"}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:           f.config(near),
				ConfigPlanChecks: settled(),
			},
			{
				Config:           f.config(near, srv{}),
				ConfigPlanChecks: settled(),
				Check: func(s *terraform.State) error {
					a, err := acctest.Attributes(s, address)
					if err != nil {
						return err
					}

					b, err := acctest.Attributes(s, "unikorn_server.near")
					if err != nil {
						return err
					}

					switch {
					case a["id"] == b["id"] || a["port_id"] == b["port_id"]:
						return fmt.Errorf("%s aliased %s: server %s, port %s", f.name, near.name, a["id"], a["port_id"])
					case a["name"] != f.name || b["name"] != near.name:
						return fmt.Errorf("names %q and %q", a["name"], b["name"])
					}

					port, err := acctest.Port(t, f.region, a["port_id"])
					if err != nil {
						return err
					}

					if port.Name != naming.ServerPort(f.name) {
						return fmt.Errorf("port of %s is %q", f.name, port.Name)
					}

					return nil
				},
			},
		},
	})
}

// TestAccServer_adopt pre-creates the port server-<name> and the server <name> by hand: the
// create refuses them (issue 26), and leaves them as they are. Then it pre-creates them as an
// apply that died after making them would have left them (marked, unfinished): the create adopts
// both, and marks the server finished.
func TestAccServer_adopt(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)

	var (
		ids              fixtureIDs
		portID, serverID string
	)

	config := f.config(srv{extra: `  tags = { "team.example.com/owner" = "ops" }`})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{Config: f.config(), Check: f.record(&ids)},
			{
				PreConfig: func() {
					portID, serverID = acctest.PreCreateServer(t, ids.project, f.region, ids.network, f.name, f.flavor, f.image)
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)already\s+exists.*this\s+provider\s+did\s+not\s+make\s+it.*terraform\s+import`),
			},
			{
				PreConfig: func() {
					// The refused server is as it was made (the tag's metadata was not written).
					if srv, err := acctest.Server(t, f.region, serverID); err != nil || srv.Metadata["team:owner"] != "" {
						t.Fatalf("the refused server %s was touched (metadata %v) or is gone (%v)", serverID, srv, err)
					}

					acctest.DeleteServer(t, f.region, serverID)
					acctest.NeutronDeletePort(t, ids.project, f.region, portID)

					portID, serverID = acctest.PreCreateInterruptedServer(t, ids.project, f.region, ids.network, f.name, f.flavor, f.image)
				},
				Config:           config,
				ConfigPlanChecks: settled(),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckAttributes(address, func(a map[string]string) error {
						if a["id"] != serverID || a["port_id"] != portID {
							return fmt.Errorf("state has server %s on port %s, want the pre-created %s on %s",
								a["id"], a["port_id"], serverID, portID)
						}

						return nil
					}),
					nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
						if srv.Metadata["serverID"] != srv.ID || srv.Metadata["team:owner"] != "ops" ||
							srv.Metadata[naming.MarkCompletedKey] != naming.MarkCompletedValue {
							return fmt.Errorf("adopted server's metadata = %v, want the linkage, the tag and the completion mark", srv.Metadata)
						}

						port, err := acctest.Port(t, f.region, portID)
						if err != nil {
							return err
						}

						if !slices.Contains(port.Tags, naming.MarkPrefix+"unikorn_server") || port.Description != "" {
							return fmt.Errorf("adopted port has tags %v and description %q, want the mark tag and its own description",
								port.Tags, port.Description)
						}

						return nil
					}),
				),
			},
		},
	})
}

func TestAccServer_secondRegion(t *testing.T) {
	acctest.PreCheck(t)

	regions := twoRegions(t)
	f := newFixture(t, regions[1])

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: append([]resource.TestStep{
			{
				Config:           f.config(srv{extra: "  public_ip = true"}),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(regions[1])),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("provider_id"),
						knownvalue.StringRegexp(regexp.MustCompile(`^openstack://`+regions[1]+`/`))),
				},
				Check: acctest.CheckAttributes(address, func(a map[string]string) error {
					if _, err := acctest.Server(t, regions[1], a["id"]); err != nil {
						return fmt.Errorf("server %s not in %s: %w", a["id"], regions[1], err)
					}

					if _, err := acctest.Server(t, regions[0], a["id"]); !gophercloud.ResponseCodeIs(err, 404) {
						return fmt.Errorf("server %s answers in %s too (err %v)", a["id"], regions[0], err)
					}

					return nil
				}),
			},
		}, acctest.ImportSteps(address)...),
	})
}

// TestAccServer_disappears deletes the server out of band: the plan re-creates it, and the
// new server adopts the port that was left.
func TestAccServer_disappears(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	portID := statecheck.CompareValue(compare.ValuesSame())
	serverID := statecheck.CompareValue(compare.ValuesDiffer())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: f.config(srv{}),
				ConfigStateChecks: []statecheck.StateCheck{
					portID.AddStateValue(address, tfjsonpath.New("port_id")),
					serverID.AddStateValue(address, tfjsonpath.New("id")),
				},
				Check: acctest.CheckAttributes(address, func(a map[string]string) error {
					acctest.DeleteServer(t, f.region, a["id"])

					return nil
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: f.config(srv{}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					portID.AddStateValue(address, tfjsonpath.New("port_id")),
					serverID.AddStateValue(address, tfjsonpath.New("id")),
				},
			},
		},
	})
}

// TestAccServer_error boots a flavor no host can hold: Nova puts the server in ERROR, the
// apply fails at once with Nova's fault, and the server is recorded (tainted), so the next
// apply replaces it.
func TestAccServer_error(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	huge := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 64 << 20, DiskGB: 1})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:      f.config(srv{flavor: huge}),
				ExpectError: regexp.MustCompile(`(?s)is ERROR: .*No valid host was found`),
			},
			{
				Config: f.config(srv{}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

// twoRegions are the first two served regions: without a second one, the test skips on an
// external cloud and fails on the local one (acctest.SecondRegion).
func twoRegions(t *testing.T) []string {
	t.Helper()

	second := acctest.SecondRegion(t)

	return []string{acctest.FirstRegion(), second}
}

// TestAccServer_regionRule applies a server, its identity, network and security groups with
// region unset under one provider default region, then plans the same configuration under
// another: nothing moves or is replaced (DESIGN.md §8), and the server is still in the first
// region, in Nova.
func TestAccServer_regionRule(t *testing.T) {
	acctest.PreCheck(t)

	regions := twoRegions(t)
	f := newFixture(t, regions[0])
	f.defaultRegion = true

	inFirst := func() []statecheck.StateCheck {
		var out []statecheck.StateCheck

		for _, addr := range []string{address, "unikorn_network.test", "unikorn_security_group.a"} {
			out = append(out, statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(regions[0])))
		}

		return out
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            acctest.ProviderRegion(regions[0]) + f.config(srv{}),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: inFirst(),
			},
			{
				Config:            acctest.ProviderRegion(regions[1]) + f.config(srv{}),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: inFirst(),
				Check: acctest.CheckAttributes(address, func(a map[string]string) error {
					srv, err := acctest.Server(t, regions[0], a["id"])
					if err != nil {
						return fmt.Errorf("server %s is not in %s anymore: %w", a["id"], regions[0], err)
					}

					if srv.Status != "ACTIVE" {
						return fmt.Errorf("server %s in %s is %s", srv.ID, regions[0], srv.Status)
					}

					return nil
				}),
			},
		},
	})
}
