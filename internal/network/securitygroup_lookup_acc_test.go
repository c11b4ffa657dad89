package network_test

import (
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccSecurityGroupLookup_sameConfiguration: two unikorn_security_group in the default region
// and one in the second, all in one identity. unikorn_security_group finds each by name and the
// first by bare ID (searched in every served region), showing what the resource shows (id, name,
// identity_id, region, description, rules). A run that only reads lists the project's groups
// once per region, for the look-ups and the resources' refreshes together. A name nobody has is
// refused.
func TestAccSecurityGroupLookup_sameConfiguration(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	def, other := regions(t)

	groups := fmt.Sprintf(`
resource "unikorn_security_group" "a" {
  identity_id = %[1]q
  name        = "%[2]s-a"
  description = "web servers"
  rules = [
    { direction = "ingress", protocol = "tcp", port = 443 },
    { direction = "ingress", protocol = "udp", port_range = { min = 5000, max = 5010 }, remote_ip_prefix = "10.0.0.0/8" },
  ]
}

resource "unikorn_security_group" "b" {
  identity_id = %[1]q
  name        = "%[2]s-b"
  rules       = [{ direction = "ingress", protocol = "tcp", port = 22 }]
}

resource "unikorn_security_group" "c" {
  identity_id = %[1]q
  name        = "%[2]s-c"
  region      = %[3]q
  rules       = [{ direction = "egress", protocol = "icmp" }]
}
`, project, name, other)

	lookups := fmt.Sprintf(`
data "unikorn_security_group" "a" {
  identity_id = %[1]q
  name        = unikorn_security_group.a.name
}

data "unikorn_security_group" "b" {
  identity_id = %[1]q
  name        = unikorn_security_group.b.name
}

data "unikorn_security_group" "c" {
  identity_id = %[1]q
  name        = unikorn_security_group.c.name
  region      = %[2]q
}

data "unikorn_security_group" "a_by_id" {
  id = unikorn_security_group.a.id
}
`, project, other)

	// checks are a step's (a CompareValue holds what it compared: one per step).
	checks := func() []statecheck.StateCheck {
		var out []statecheck.StateCheck

		for resourceLabel, lookupLabels := range map[string][]string{"a": {"a", "a_by_id"}, "b": {"b"}, "c": {"c"}} {
			for _, attr := range []string{"id", "name", "identity_id", "region", "description", "rules"} {
				same := statecheck.CompareValue(compare.ValuesSame())
				out = append(out, same.AddStateValue("unikorn_security_group."+resourceLabel, tfjsonpath.New(attr)))

				for _, l := range lookupLabels {
					out = append(out, same.AddStateValue("data.unikorn_security_group."+l, tfjsonpath.New(attr)))
				}
			}
		}

		return append(out,
			statecheck.ExpectKnownValue("data.unikorn_security_group.a_by_id", tfjsonpath.New("region"), knownvalue.StringExact(def)),
			statecheck.ExpectKnownValue("data.unikorn_security_group.a_by_id", tfjsonpath.New("name"), knownvalue.StringExact(name+"-a")),
			statecheck.ExpectKnownValue("data.unikorn_security_group.a", tfjsonpath.New("description"), knownvalue.StringExact("web servers")),
			statecheck.ExpectKnownValue("data.unikorn_security_group.a", tfjsonpath.New("rules"), knownvalue.SetSizeExact(2)),
			statecheck.ExpectKnownValue("data.unikorn_security_group.c", tfjsonpath.New("region"), knownvalue.StringExact(other)),
		)
	}

	log := acctest.NewRequestLog()
	logged := 0

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy:             acctest.CheckSecurityGroupDestroy(t),
		Steps: []resource.TestStep{
			{Config: groups + lookups, ConfigStateChecks: checks()},
			// A run that only reads: four look-ups and three refreshes share one listing per region.
			{
				Config: groups + lookups, ConfigStateChecks: checks(),
				Check: listedForTheRun(log, &logged, "security group", 4, map[string]int{def + " " + project: 1, other + " " + project: 1}),
			},
			{
				Config: groups + fmt.Sprintf(`
data "unikorn_security_group" "missing" {
  identity_id = %q
  name        = "no-such-%s"
}
`, project, name),
				ExpectError: acctest.Wrapped("No security group found",
					fmt.Sprintf(`No security group is called "no-such-%s" in identity_id %s in region %s.`, name, project, def)),
			},
		},
	})
}

// TestAccSecurityGroupLookup_madeByUnikorn: a security group made in the cloud as Unikorn's
// region service makes it (securitygroup-<Unikorn ID>, its rules described "unikorn managed
// security group rule", in an identity Unikorn made: acctest's fixtures reproduce
// nscaledev/uni-region pkg/providers/internal/openstack/provider.go CreateIdentity and
// CreateSecurityGroup with network.go CreateSecurityGroupRule, see internal/acctest/unikorn.go
// and unikorn_securitygroup.go) is found by its Unikorn ID as name and by its Neutron ID, with
// its rules, and left as it was. With two more of the identity's groups looked up by name, one in
// each region, every provider run (which reads only look-ups: every listing it takes is theirs)
// lists the project's groups once per region. A second group of the same Neutron name, made
// directly in Neutron, makes the name ambiguous: refused, both listed.
func TestAccSecurityGroupLookup_madeByUnikorn(t *testing.T) {
	acctest.PreCheck(t)

	def, other := regions(t)
	u := acctest.CreateUnikornIdentity(t, acctest.UnikornV117, "org-"+acctest.RandomName(), "proj-"+acctest.RandomName())
	ssh := acctest.UnikornRule{Direction: "ingress", Protocol: "tcp", PortMin: 22, CIDR: "0.0.0.0/0"}
	sg := u.CreateSecurityGroup(t, def, ssh)
	second := u.CreateSecurityGroup(t, def, acctest.UnikornRule{Direction: "ingress", Protocol: "icmp"})
	elsewhere := u.CreateSecurityGroup(t, other, ssh)

	lookups := fmt.Sprintf(`
data "unikorn_security_group" "by_name" {
  identity_id = %[1]q
  name        = %[2]q
}

data "unikorn_security_group" "by_id" {
  id = %[3]q
}
`, u.ProjectID, sg.ID, sg.GroupID)

	more := fmt.Sprintf(`
data "unikorn_security_group" "second" {
  identity_id = %[1]q
  name        = %[2]q
}

data "unikorn_security_group" "elsewhere" {
  identity_id = %[1]q
  name        = %[3]q
  region      = %[4]q
}
`, u.ProjectID, second.ID, elsewhere.ID, other)

	expect := func(address string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(sg.GroupID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("name"), knownvalue.StringExact(sg.ID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("identity_id"), knownvalue.StringExact(u.ProjectID)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("project_id"), knownvalue.Null()),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("region"), knownvalue.StringExact(def)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("description"), knownvalue.StringExact("")),
			// Neutron's default egress rules are left out, as the resource leaves them out.
			statecheck.ExpectKnownValue(address, tfjsonpath.New("rules"), knownvalue.SetExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{
					"description": knownvalue.StringExact("unikorn managed security group rule"),
					"direction":   knownvalue.StringExact("ingress"), "protocol": knownvalue.StringExact("tcp"),
					"port": knownvalue.Int64Exact(22), "port_range": knownvalue.Null(), "remote_ip_prefix": knownvalue.Null(),
				}),
			})),
		}
	}

	log := acctest.NewRequestLog()
	logged := 0

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		Steps: []resource.TestStep{{
			Config: lookups + more,
			ConfigStateChecks: append(expect("data.unikorn_security_group.by_name"), append(expect("data.unikorn_security_group.by_id"),
				statecheck.ExpectKnownValue("data.unikorn_security_group.second", tfjsonpath.New("id"), knownvalue.StringExact(second.GroupID)),
				statecheck.ExpectKnownValue("data.unikorn_security_group.elsewhere", tfjsonpath.New("id"), knownvalue.StringExact(elsewhere.GroupID)),
			)...),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error { return sg.Unchanged(t) },
				listedForTheRun(log, &logged, "security group", 4, map[string]int{def + " " + u.ProjectID: 1, other + " " + u.ProjectID: 1}),
			),
		}},
	})

	// The twin, then the same look-ups (a second case: the error must name the twin's ID).
	twin := acctest.NeutronCreateSecurityGroup(t, u.ProjectID, def, naming.SecurityGroup(sg.ID))
	t.Cleanup(func() { acctest.NeutronDeleteSecurityGroup(t, u.ProjectID, def, twin) })

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: lookups,
			ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)Several security groups found.*2\s+match.*(%[1]s.*%[2]s|%[2]s.*%[1]s)`,
				sg.GroupID, twin)),
		}},
	})
}

// listedForTheRun checks, for every provider run since the last check that read reads data
// sources, that it took the run's listings of kind exactly as want says ("region project":
// count).
func listedForTheRun(log *acctest.RequestLog, logged *int, kind string, reads int, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		runs := log.Runs()
		measured := 0

		for i, run := range runs[*logged:] {
			if run.DataSourceReads() != reads {
				continue
			}

			if got := run.RunListings(kind); !maps.Equal(got, want) {
				return fmt.Errorf("run %d listed %ss %v, want %v", *logged+i+1, kind, got, want)
			}

			measured++
		}

		*logged = len(runs)

		if measured == 0 {
			return fmt.Errorf("no run read %d data sources", reads)
		}

		return nil
	}
}
