package provider_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// unikornObjects are the objects a TestAccUnikornFixtures generation made as Unikorn makes them;
// lb is nil for a generation without load balancers.
type unikornObjects struct {
	u  acctest.UnikornIdentity
	n  acctest.UnikornNetwork
	sg acctest.UnikornSecurityGroup
	s  acctest.UnikornServer
	lb *acctest.UnikornLoadBalancer

	region, flavor, image string
	// rules are the group's rules, tags the server's user tags (nil before v1.16).
	rules []acctest.UnikornRule
	tags  map[string]string
}

// unchanged checks in the cloud that every Unikorn object is as Unikorn made it, and the
// identity untouched (its password logs in, its credential authenticates, no trust, its
// keypair and server group the same).
func (o unikornObjects) unchanged(t *testing.T) error {
	checks := []func(*testing.T) error{o.u.Untouched, o.n.Unchanged, o.sg.Unchanged, o.s.Unchanged}
	if o.lb != nil {
		checks = append(checks, o.lb.Unchanged)
	}

	var errs []error
	for _, check := range checks {
		errs = append(errs, check(t))
	}

	return errors.Join(errs...)
}

// addresses are the resource addresses of the imported objects.
func (o unikornObjects) addresses() []string {
	out := []string{"unikorn_identity.unikorn", "unikorn_network.unikorn", "unikorn_security_group.unikorn", "unikorn_server.unikorn"}
	if o.lb != nil {
		out = append(out, "unikorn_loadbalancer.unikorn")
	}

	return out
}

// imports is an import block per Unikorn object (the identity by its project ID, the others by
// REGION/ID).
func (o unikornObjects) imports() string {
	ids := []string{o.u.ProjectID, o.region + "/" + o.n.NetworkID, o.region + "/" + o.sg.GroupID, o.region + "/" + o.s.ServerID}
	if o.lb != nil {
		ids = append(ids, o.region+"/"+o.lb.LoadBalancerID)
	}

	var b strings.Builder
	for i, address := range o.addresses() {
		fmt.Fprintf(&b, "\nimport {\n  to = %s\n  id = %q\n}\n", address, ids[i])
	}

	return b.String()
}

// mirror is the configuration that mirrors the Unikorn objects: names are Unikorn's IDs (the
// server's, the name its user gave it), the identity as its user holds it, no network pool,
// descriptions or external network, the rules without descriptions, the server's keypair and
// user tags, the load balancer's listener with Unikorn's monitor defaults left unset.
func (o unikornObjects) mirror() string {
	var rules strings.Builder
	for _, r := range o.rules {
		rules.WriteString(mirrorRule(r))
	}

	tags := ""
	if len(o.tags) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(o.tags)) {
			kv = append(kv, fmt.Sprintf("%q = %q", k, o.tags[k]))
		}

		tags = "  tags = { " + strings.Join(kv, ", ") + " }\n"
	}

	hcl := fmt.Sprintf(`
resource "unikorn_identity" "unikorn" {
  name               = %[1]q
  organization_id    = %[2]q
  unikorn_project_id = %[3]q
  ssh_public_key     = %[4]q
  server_group       = { policy = %[5]q }
}

resource "unikorn_network" "unikorn" {
  identity_id = unikorn_identity.unikorn.id
  region      = %[6]q
  name        = %[7]q
  cidr        = %[8]q
}

resource "unikorn_security_group" "unikorn" {
  identity_id = unikorn_identity.unikorn.id
  region      = %[6]q
  name        = %[9]q
  rules = [
%[10]s  ]
}

resource "unikorn_server" "unikorn" {
  identity_id        = unikorn_identity.unikorn.id
  region             = %[6]q
  name               = %[11]q
  network_id         = unikorn_network.unikorn.id
  flavor_id          = %[12]q
  image_id           = %[13]q
  security_group_ids = [unikorn_security_group.unikorn.id]
  ssh_key            = true
%[14]s}
`, o.u.ID, o.u.OrganizationID, o.u.UnikornProjectID, strings.TrimSpace(o.u.KeypairPublicKey), o.u.ServerGroupPolicy,
		o.region, o.n.ID, o.n.CIDR, o.sg.ID, rules.String(), o.s.Name, o.flavor, o.image, tags)

	if o.lb != nil {
		hcl += fmt.Sprintf(`
resource "unikorn_loadbalancer" "unikorn" {
  identity_id = unikorn_identity.unikorn.id
  region      = %q
  name        = %q
  network_id  = unikorn_network.unikorn.id
  listeners = [{
    name           = "tcp"
    protocol       = "TCP"
    port           = 80
    members        = [{ address = %q, port = 8080 }]
    health_monitor = {}
  }]
}
`, o.region, o.lb.ID, o.s.PrivateIP)
	}

	return hcl
}

// made is what this configuration makes in the Unikorn identity, on Unikorn's network and
// group, named by their IDs (they stay when the imported objects are handed back): a server (its
// key through user_data: the identity's keypair is its user's) and, where the generation has
// load balancers, a load balancer in front of Unikorn's server.
func (o unikornObjects) made(name string) string {
	hcl := fmt.Sprintf(`
resource "unikorn_server" "made" {
  identity_id        = %[1]q
  region             = %[2]q
  name               = %[3]q
  network_id         = %[4]q
  flavor_id          = %[5]q
  image_id           = %[6]q
  security_group_ids = [%[7]q]
  user_data          = "#cloud-config\n"
}
`, o.u.ProjectID, o.region, name, o.n.NetworkID, o.flavor, o.image, o.sg.GroupID)

	if o.lb != nil {
		hcl += fmt.Sprintf(`
resource "unikorn_loadbalancer" "made" {
  identity_id = %q
  region      = %q
  name        = %q
  network_id  = %q
  listeners = [{
    name           = "http"
    protocol       = "TCP"
    port           = 81
    members        = [{ address = %q, port = 8080 }]
    health_monitor = {}
  }]
}
`, o.u.ProjectID, o.region, name, o.n.NetworkID, o.s.PrivateIP)
	}

	return hcl
}

// handBack is a removed block per imported object: Terraform forgets them, the cloud keeps them.
func (o unikornObjects) handBack() string {
	var b strings.Builder
	for _, address := range o.addresses() {
		fmt.Fprintf(&b, "\nremoved {\n  from = %s\n\n  lifecycle {\n    destroy = false\n  }\n}\n", address)
	}

	return b.String()
}

// mirrorRule is the configuration of a Unikorn rule: no description (a rule without one in the
// configuration matches a rule with any description), the port or range, the prefix.
func mirrorRule(r acctest.UnikornRule) string {
	var b strings.Builder

	fmt.Fprintf(&b, "    { direction = %q, protocol = %q", r.Direction, r.Protocol)

	switch {
	case r.PortMax != 0 && r.PortMax != r.PortMin:
		fmt.Fprintf(&b, ", port_range = { min = %d, max = %d }", r.PortMin, r.PortMax)
	case r.PortMin != 0:
		fmt.Fprintf(&b, ", port = %d", r.PortMin)
	}

	if r.CIDR != "" {
		fmt.Fprintf(&b, ", remote_ip_prefix = %q", r.CIDR)
	}

	b.WriteString(" },\n")

	return b.String()
}

// testUnikornEndToEnd takes the generation's Unikorn objects into Terraform (issue 27): one apply
// imports all of them with a configuration that mirrors them and makes a server and a load
// balancer of its own in the same identity. The plan replaces and destroys nothing and writes
// nothing (checked in the cloud before the apply); after the apply every Unikorn object is as
// Unikorn made it and the identity untouched, the state says what the cloud holds, and the next
// plan is empty. Then removed blocks hand the Unikorn objects back, and the destroy deletes only
// what the configuration made.
func testUnikornEndToEnd(t *testing.T, o unikornObjects) {
	t.Helper()

	name := acctest.RandomName()
	config := o.imports() + o.mirror() + o.made(name)
	unchanged := func(*terraform.State) error { return o.unchanged(t) }

	var preApply []plancheck.PlanCheck

	preApply = append(preApply, acctest.ExpectCloud(func() error { return o.unchanged(t) }))
	for _, address := range o.addresses() {
		preApply = append(preApply, acctest.ExpectNonDestructive(address))
	}

	preApply = append(preApply, plancheck.ExpectResourceAction("unikorn_server.made", plancheck.ResourceActionCreate))

	var madeServer string

	stateChecks := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("unikorn_identity.unikorn", tfjsonpath.New("made_by_provider"), knownvalue.Bool(false)),
		statecheck.ExpectKnownValue("unikorn_identity.unikorn", tfjsonpath.New("trust_id"), knownvalue.Null()),
		statecheck.ExpectKnownValue("unikorn_identity.unikorn", tfjsonpath.New("application_credential_id"), knownvalue.StringExact(o.u.CredentialID)),
		statecheck.ExpectKnownValue("unikorn_network.unikorn", tfjsonpath.New("subnet_id"), knownvalue.StringExact(o.n.SubnetID)),
		statecheck.ExpectKnownValue("unikorn_network.unikorn", tfjsonpath.New("allocation_pool").AtMapKey("start"), knownvalue.StringExact(o.n.PoolStart)),
		statecheck.ExpectKnownValue("unikorn_network.unikorn", tfjsonpath.New("allocation_pool").AtMapKey("end"), knownvalue.StringExact(o.n.PoolEnd)),
		statecheck.ExpectKnownValue("unikorn_server.unikorn", tfjsonpath.New("id"), knownvalue.StringExact(o.s.ServerID)),
		statecheck.ExpectKnownValue("unikorn_server.unikorn", tfjsonpath.New("port_id"), knownvalue.StringExact(o.s.PortID)),
	}

	if o.lb != nil {
		preApply = append(preApply, plancheck.ExpectResourceAction("unikorn_loadbalancer.made", plancheck.ResourceActionCreate))
		stateChecks = append(stateChecks,
			statecheck.ExpectKnownValue("unikorn_loadbalancer.unikorn", tfjsonpath.New("id"), knownvalue.StringExact(o.lb.LoadBalancerID)),
			statecheck.ExpectKnownValue("unikorn_loadbalancer.unikorn", tfjsonpath.New("listeners").AtSliceIndex(0).AtMapKey("listener_id"),
				knownvalue.StringExact(o.lb.ListenerIDs["tcp"])))
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		// Only the configuration's own server and load balancer are in the final state: gone;
		// Unikorn's objects are there as Unikorn made them.
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(acctest.CheckServerDestroy(t), acctest.CheckLoadBalancerDestroy(t), unchanged),
		Steps: []resource.TestStep{
			{
				Config:             config,
				ConfigPlanChecks:   resource.ConfigPlanChecks{PreApply: preApply},
				ConfigStateChecks:  stateChecks,
				Check:              resource.ComposeAggregateTestCheckFunc(unchanged, acctest.CaptureID("unikorn_server.made", &madeServer)),
				ExpectNonEmptyPlan: false, // the harness checks that the next plan is empty
			},
			{
				// Handed back: forgotten by Terraform, untouched in the cloud; the server this
				// configuration made is still there.
				Config: o.handBack() + o.made(name),
				Check: resource.ComposeAggregateTestCheckFunc(unchanged, func(*terraform.State) error {
					_, err := servers.Get(context.Background(), acctest.AdminCompute(t, o.region), madeServer).Extract()
					if err != nil {
						return fmt.Errorf("the configuration's server %s: %w", madeServer, err)
					}

					return nil
				}),
			},
		},
	})
}
