package server_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
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

const address = "unikorn_server.test"

// fixture is what a server test needs around its servers: a fresh name for the identity,
// network and security groups, a region, and the flavor and image it boots.
type fixture struct {
	name   string
	region string
	flavor string
	image  string
	sshKey string
}

// preCheck skips the test without TF_ACC (the fixtures ask the cloud before resource.Test
// would skip) and otherwise checks the local cloud's environment.
func preCheck(t *testing.T) {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}

	acctest.PreCheck(t)
}

func newFixture(t *testing.T, region string) fixture {
	t.Helper()

	return fixture{
		name:   acctest.IdentityName(),
		region: region,
		flavor: acctest.FlavorID(t, region, acctest.ServerFlavor),
		image:  acctest.ImageID(t, region, acctest.ServerImage),
		sshKey: acctest.SSHPublicKey(t),
	}
}

// srv is one unikorn_server of a test configuration. Empty fields take the fixture's.
type srv struct {
	label, name, flavor, image string
	// extra are further HCL lines.
	extra string
}

// config is the identity (with server group and keypair), the network, two security groups
// and the given servers.
func (f fixture) config(servers ...srv) string {
	var b strings.Builder

	fmt.Fprintf(&b, `
resource "unikorn_identity" "test" {
  name               = %[1]q
  organization_id    = "org-%[1]s"
  unikorn_project_id = "proj-%[1]s"
  server_group       = {}
  ssh_public_key     = %[3]q
}

resource "unikorn_network" "test" {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = %[1]q
  cidr        = "10.42.0.0/24"
}

resource "unikorn_security_group" "a" {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = "%[1]s-a"
  rules       = [{ direction = "ingress", protocol = "tcp", port = 22 }]
}

resource "unikorn_security_group" "b" {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = "%[1]s-b"
  rules       = [{ direction = "ingress", protocol = "tcp", port = 443 }]
}
`, f.name, f.region, f.sshKey)

	for _, s := range servers {
		label, name, flavor, image := s.label, s.name, s.flavor, s.image
		if label == "" {
			label = "test"
		}

		if name == "" {
			name = f.name
		}

		if flavor == "" {
			flavor = f.flavor
		}

		if image == "" {
			image = f.image
		}

		fmt.Fprintf(&b, `
resource "unikorn_server" %[1]q {
  identity_id = unikorn_identity.test.id
  region      = %[2]q
  name        = %[3]q
  network_id  = unikorn_network.test.id
  flavor_id   = %[4]q
  image_id    = %[5]q
%[6]s
}
`, label, f.region, name, flavor, image, s.extra)
	}

	return b.String()
}

// settled are the checks after every apply: nothing left to do, and a refresh reads back
// exactly what the apply recorded (what `plan -refresh-only` would show is empty).
func settled() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
	}
}

func updatesInPlace() resource.ConfigPlanChecks {
	c := settled()
	c.PreApply = []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)}

	return c
}

func checkDestroy(t *testing.T) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(acctest.CheckServerDestroy(t), acctest.CheckIdentityDestroy(t))
}

// attrs is the state of resource addr.
func attrs(s *terraform.State, addr string) (map[string]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, fmt.Errorf("%s is not in the state", addr)
	}

	return rs.Primary.Attributes, nil
}

// nova checks the server unikorn_server.test as Nova holds it.
func nova(t *testing.T, check func(srv *servers.Server, a map[string]string, s *terraform.State) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := attrs(s, address)
		if err != nil {
			return err
		}

		srv, err := acctest.Server(t, a["region"], a["id"])
		if err != nil {
			return fmt.Errorf("reading server %s: %w", a["id"], err)
		}

		return check(srv, a, s)
	}
}

func TestAccServer_basic(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	userData := "#cloud-config\nruncmd: [echo hello]\n"

	serverID := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: f.config(srv{extra: fmt.Sprintf(`
  security_group_ids = [unikorn_security_group.a.id]
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
						id, err := attrs(s, "unikorn_identity.test")
						if err != nil {
							return err
						}

						want := map[string]string{
							"serverID": srv.ID, "region:server_id": srv.ID,
							"organizationID": "org-" + f.name, "identity:organization_id": "org-" + f.name,
							"projectID": "proj-" + f.name, "identity:project_id": "proj-" + f.name,
							"regionID": f.region, "region:region_id": f.region,
							"monitoring:team_name": "blue", "backup:schedule": "daily",
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

						sg, _ := attrs(s, "unikorn_security_group.a")

						switch {
						case port.Name != naming.ServerPort(f.name) || port.DeviceID != srv.ID:
							return fmt.Errorf("port %s is %q on device %q", port.ID, port.Name, port.DeviceID)
						case !slices.Equal(port.SecurityGroups, []string{sg["id"]}):
							return fmt.Errorf("port security groups = %v, want [%s]", port.SecurityGroups, sg["id"])
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
			{
				ResourceName:      address,
				ImportState:       true,
				ImportStateIdFunc: importID(f.region, "id"),
				ImportStateVerify: true,
				// Tags cannot be read back from their metadata keys; user data cannot be read at all.
				ImportStateVerifyIgnore: []string{"tags", "user_data_sha256", "timeouts"},
			},
			{
				ResourceName:            address,
				ImportState:             true,
				ImportStateIdFunc:       importID(f.region, "name"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"tags", "user_data_sha256", "timeouts"},
			},
		},
	})
}

// importID is REGION/<attribute> of the server.
func importID(region, attribute string) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		a, err := attrs(s, address)
		if err != nil {
			return "", err
		}

		return region + "/" + a[attribute], nil
	}
}

func TestAccServer_floatingIP(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	serverID := statecheck.CompareValue(compare.ValuesSame())

	var firstFIP string

	hasFIP := func(want bool) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			a, err := attrs(s, address)
			if err != nil {
				return err
			}

			fips, err := acctest.FloatingIPsOfPort(t, f.region, a["port_id"])
			if err != nil {
				return err
			}

			switch {
			case !want && len(fips) > 0:
				return fmt.Errorf("floating IP %s still on port %s", fips[0].FloatingIP, a["port_id"])
			case want && (len(fips) != 1 || fips[0].FloatingIP != a["public_ip_address"]):
				return fmt.Errorf("floating IPs on port %s: %+v, state says %q", a["port_id"], fips, a["public_ip_address"])
			case want:
				if firstFIP == "" {
					firstFIP = fips[0].ID
				}
			}

			return nil
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:           f.config(srv{extra: "  public_ip = true"}),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip_address"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`))),
				},
				Check: hasFIP(true),
			},
			{
				Config:           f.config(srv{extra: "  public_ip = false"}),
				ConfigPlanChecks: updatesInPlace(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("public_ip_address"), knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(hasFIP(false), func(*terraform.State) error {
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
			{
				Config:            f.config(srv{extra: "  public_ip = true"}),
				ConfigPlanChecks:  updatesInPlace(),
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             hasFIP(true),
			},
		},
	})
}

func TestAccServer_securityGroups(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	serverID := statecheck.CompareValue(compare.ValuesSame())
	portID := statecheck.CompareValue(compare.ValuesSame())

	portHas := func(groups []string, pairs map[string]string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			a, err := attrs(s, address)
			if err != nil {
				return err
			}

			port, err := acctest.Port(t, f.region, a["port_id"])
			if err != nil {
				return err
			}

			var want []string

			for _, g := range groups {
				sg, err := attrs(s, "unikorn_security_group."+g)
				if err != nil {
					return err
				}

				want = append(want, sg["id"])
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

	ids := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			serverID.AddStateValue(address, tfjsonpath.New("id")),
			portID.AddStateValue(address, tfjsonpath.New("port_id")),
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(srv{extra: "  security_group_ids = [unikorn_security_group.a.id]"}),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: ids(),
				Check:             portHas([]string{"a"}, map[string]string{}),
			},
			{
				Config: f.config(srv{extra: `
  security_group_ids    = [unikorn_security_group.b.id, unikorn_security_group.a.id]
  allowed_address_pairs = [
    { ip_address = "10.42.0.200" },
    { ip_address = "10.42.1.0/24", mac_address = "fa:16:3e:aa:bb:cc" },
  ]`}),
				ConfigPlanChecks:  updatesInPlace(),
				ConfigStateChecks: ids(),
				Check:             portHas([]string{"a", "b"}, map[string]string{"10.42.0.200": "", "10.42.1.0/24": "fa:16:3e:aa:bb:cc"}),
			},
			{
				Config:            f.config(srv{extra: "  security_group_ids = []"}),
				ConfigPlanChecks:  updatesInPlace(),
				ConfigStateChecks: ids(),
				Check:             portHas(nil, map[string]string{}),
			},
		},
	})
}

func TestAccServer_resize(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	large := acctest.FlavorID(t, f.region, acctest.ServerLargeFlavor)
	serverID := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(srv{}),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
			},
			{
				Config:           f.config(srv{flavor: large, extra: `  power_state = "stopped"`}),
				ConfigPlanChecks: updatesInPlace(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("flavor_id"), knownvalue.StringExact(large)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("SHUTOFF")),
				},
				Check: nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
					if name := srv.Flavor["original_name"]; name != acctest.ServerLargeFlavor || srv.Status != "SHUTOFF" {
						return fmt.Errorf("server on flavor %v, status %s; want %s, SHUTOFF", name, srv.Status, acctest.ServerLargeFlavor)
					}

					return nil
				}),
			},
		},
	})
}

func TestAccServer_rebuild(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	other := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region})

	serverID := statecheck.CompareValue(compare.ValuesSame())
	portID := statecheck.CompareValue(compare.ValuesSame())
	privateIP := statecheck.CompareValue(compare.ValuesSame())
	ids := func(more ...statecheck.StateCheck) []statecheck.StateCheck {
		return append([]statecheck.StateCheck{
			serverID.AddStateValue(address, tfjsonpath.New("id")),
			portID.AddStateValue(address, tfjsonpath.New("port_id")),
			privateIP.AddStateValue(address, tfjsonpath.New("private_ip")),
		}, more...)
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

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(srv{extra: `  user_data = "one"`}),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: ids(),
				Check:             novaHas(f.image, "one", ""),
			},
			{
				Config:            f.config(srv{image: other.ID, extra: `  user_data = "one"`}),
				ConfigPlanChecks:  updatesInPlace(),
				ConfigStateChecks: ids(statecheck.ExpectKnownValue(address, tfjsonpath.New("image_id"), knownvalue.StringExact(other.ID))),
				Check:             novaHas(other.ID, "one", ""),
			},
			{
				// New user data and the keypair: a rebuild too, shown by user_data_sha256.
				Config: f.config(srv{image: other.ID, extra: `
  user_data = "two"
  ssh_key   = true`}),
				ConfigPlanChecks: func() resource.ConfigPlanChecks {
					c := updatesInPlace()
					c.PreApply = append(c.PreApply, plancheck.ExpectUnknownValue(address, tfjsonpath.New("status")))

					return c
				}(),
				ConfigStateChecks: ids(),
				Check:             novaHas(other.ID, "two", naming.KeypairName),
			},
		},
	})
}

func TestAccServer_power(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	serverID := statecheck.CompareValue(compare.ValuesSame())

	status := func(want string) resource.TestCheckFunc {
		return nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
			if srv.Status != want {
				return fmt.Errorf("server status = %s, want %s", srv.Status, want)
			}

			return nil
		})
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:           f.config(srv{extra: `  power_state = "stopped"`}),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("SHUTOFF")),
				},
				Check: status("SHUTOFF"),
			},
			{
				Config:           f.config(srv{extra: `  power_state = "running"`}),
				ConfigPlanChecks: updatesInPlace(),
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("status"), knownvalue.StringExact("ACTIVE")),
				},
				Check: status("ACTIVE"),
			},
			{
				Config:            f.config(srv{extra: `  power_state = "stopped"`}),
				ConfigPlanChecks:  updatesInPlace(),
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             status("SHUTOFF"),
			},
		},
	})
}

// TestAccServer_nearMiss makes "<name>2" first, then "<name>": the second must be a server of
// its own, not the first one found by Nova's fuzzy name filter.
func TestAccServer_nearMiss(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
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
					a, err := attrs(s, address)
					if err != nil {
						return err
					}

					b, err := attrs(s, "unikorn_server.near")
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

// TestAccServer_adopt pre-creates the port server-<name> and the server <name> as an apply
// that died after making them would have left them: the create adopts both.
func TestAccServer_adopt(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])

	var projectID, networkID, portID, serverID string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: f.config(),
				Check: func(s *terraform.State) error {
					id, err := attrs(s, "unikorn_identity.test")
					if err != nil {
						return err
					}

					net, err := attrs(s, "unikorn_network.test")
					if err != nil {
						return err
					}

					projectID, networkID = id["id"], net["id"]

					return nil
				},
			},
			{
				PreConfig: func() {
					portID, serverID = acctest.PreCreateServer(t, projectID, f.region, networkID, f.name, f.flavor, f.image)
				},
				Config:           f.config(srv{extra: `  tags = { "team.example.com/owner" = "ops" }`}),
				ConfigPlanChecks: settled(),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(s *terraform.State) error {
						a, err := attrs(s, address)
						if err != nil {
							return err
						}

						if a["id"] != serverID || a["port_id"] != portID {
							return fmt.Errorf("state has server %s on port %s, want the pre-created %s on %s",
								a["id"], a["port_id"], serverID, portID)
						}

						return nil
					},
					nova(t, func(srv *servers.Server, _ map[string]string, _ *terraform.State) error {
						if srv.Metadata["serverID"] != srv.ID || srv.Metadata["team:owner"] != "ops" {
							return fmt.Errorf("adopted server's metadata = %v", srv.Metadata)
						}

						return nil
					}),
				),
			},
		},
	})
}

func TestAccServer_secondRegion(t *testing.T) {
	preCheck(t)

	regions := acctest.Regions()
	if len(regions) < 2 {
		t.Fatalf("UNIKORN_REGIONS names %d region(s); this test needs two", len(regions))
	}

	f := newFixture(t, regions[1])

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:           f.config(srv{extra: "  public_ip = true"}),
				ConfigPlanChecks: settled(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(regions[1])),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("provider_id"),
						knownvalue.StringRegexp(regexp.MustCompile(`^openstack://`+regions[1]+`/`))),
				},
				Check: func(s *terraform.State) error {
					a, err := attrs(s, address)
					if err != nil {
						return err
					}

					if _, err := acctest.Server(t, regions[1], a["id"]); err != nil {
						return fmt.Errorf("server %s not in %s: %w", a["id"], regions[1], err)
					}

					if _, err := acctest.Server(t, regions[0], a["id"]); !gophercloud.ResponseCodeIs(err, 404) {
						return fmt.Errorf("server %s answers in %s too (err %v)", a["id"], regions[0], err)
					}

					return nil
				},
			},
			{
				ResourceName:            address,
				ImportState:             true,
				ImportStateIdFunc:       importID(regions[1], "name"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// TestAccServer_disappears deletes the server out of band: the plan re-creates it, and the
// new server adopts the port that was left.
func TestAccServer_disappears(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
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
				Check: func(s *terraform.State) error {
					a, err := attrs(s, address)
					if err != nil {
						return err
					}

					acctest.DeleteServer(t, f.region, a["id"])

					return nil
				},
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
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
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

// TestAccServer_planChecks: tags that do not translate and flavors that cannot boot the image
// fail the plan, pointing at the attribute.
func TestAccServer_planChecks(t *testing.T) {
	preCheck(t)

	f := newFixture(t, acctest.Regions()[0])
	small := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 256, DiskGB: 1})
	big := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, MinDiskGiB: 5})
	arm := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, Properties: map[string]string{"architecture": "aarch64"}})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      f.config(srv{extra: `  tags = { "team" = "x" }`}),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid tag key.*invalid tag key "team": no "/"`),
			},
			{
				Config:      f.config(srv{flavor: small, image: big.ID}),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Flavor disk too small`),
			},
			{
				Config:      f.config(srv{image: arm.ID}),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`architectures differ`),
			},
		},
	})
}
