package main

import (
	"fmt"
	"strings"
)

// The configurations the scenarios apply. Every name comes from var.name (a fresh
// tf-acc-bench-XXXXXXXX per repetition); flavor and image are IDs resolved once by the bench,
// so that no data source adds requests to what is measured.

const header = `terraform {
  required_providers {
    unikorn = { source = "unikorn-cloud/unikorn" }
  }
}

provider "unikorn" {}

variable "name" { type = string }
variable "region" { type = string }
variable "flavor_id" { type = string }
variable "image_id" { type = string }

resource "unikorn_identity" "this" {
  name = var.name
}

resource "unikorn_network" "this" {
  identity_id = unikorn_identity.this.id
  region      = var.region
  name        = var.name
  cidr        = "10.60.0.0/22"
}
`

// serversHCL is count servers in the identity, on its network; publicIP gives each a floating IP
// and the security group (which the configuration must declare as unikorn_security_group.this).
func serversHCL(count int, publicIP bool) string {
	extra := ""
	if publicIP {
		extra = "  public_ip          = true\n  security_group_ids = [unikorn_security_group.this.id]\n"
	}

	return fmt.Sprintf(`
resource "unikorn_server" "this" {
  count       = %d
  identity_id = unikorn_identity.this.id
  region      = var.region
  name        = "${var.name}-${count.index}"
  network_id  = unikorn_network.this.id
  flavor_id   = var.flavor_id
  image_id    = var.image_id
%s}
`, count, extra)
}

const securityGroupHCL = `
resource "unikorn_security_group" "this" {
  identity_id = unikorn_identity.this.id
  region      = var.region
  name        = var.name

  rules = [
    { direction = "ingress", protocol = "tcp", port = 22 },
    { direction = "ingress", protocol = "tcp", port = 443 },
    { direction = "ingress", protocol = "udp", port = 53 },
    { direction = "ingress", protocol = "icmp" },
  ]
}
`

// listenerMembers are the three listeners' members as HCL list expressions.
type listenerMembers struct{ https, ssh, udp string }

// membersOf is the members of the three listeners: members (HCL expressions of addresses) on
// port 8443 for https and 53 for udp; sshMember alone, of weight sshWeight, on port 22 for ssh.
func membersOf(members []string, sshMember string, sshWeight int) listenerMembers {
	list := func(port int) string {
		var parts []string
		for _, m := range members {
			parts = append(parts, fmt.Sprintf("{ address = %s, port = %d }", m, port))
		}

		return "[" + strings.Join(parts, ", ") + "]"
	}

	return listenerMembers{
		https: list(8443),
		ssh:   fmt.Sprintf("[{ address = %s, port = 22, weight = %d }]", sshMember, sshWeight),
		udp:   list(53),
	}
}

// loadBalancerHCL is the three-listener load balancer with a public IP: TCP with PROXYV2, an
// idle timeout, allowed CIDRs and a monitor; plain TCP; UDP with a UDP-CONNECT monitor. With
// inline, each listener holds its members m; without, no listener has members (the
// unikorn_loadbalancer_members resources of membersResourcesHCL give them).
func loadBalancerHCL(m listenerMembers, inline bool) string {
	members := func(list string) string {
		if !inline {
			return ""
		}

		return "\n      members              = " + list
	}

	return fmt.Sprintf(`
resource "unikorn_loadbalancer" "this" {
  identity_id = unikorn_identity.this.id
  region      = var.region
  network_id  = unikorn_network.this.id
  name        = var.name
  public_ip   = true

  listeners = [
    {
      name                 = "https"
      protocol             = "TCP"
      port                 = 443
      proxy_protocol_v2    = true
      idle_timeout_seconds = 120
      allowed_cidrs        = ["10.0.0.0/8"]%s
      health_monitor       = { interval_seconds = 10, timeout_seconds = 5 }
    },
    {
      name                 = "ssh"
      protocol             = "TCP"
      port                 = 22%s
    },
    {
      name                 = "udp"
      protocol             = "UDP"
      port                 = 53%s
      health_monitor       = { interval_seconds = 5, timeout_seconds = 3 }
    },
  ]
}
`, members(m.https), members(m.ssh), members(m.udp))
}

// membersResourcesHCL is one unikorn_loadbalancer_members resource per listener of the load
// balancer of loadBalancerHCL, named after the listener, with the members m.
func membersResourcesHCL(m listenerMembers) string {
	var b strings.Builder

	for _, l := range []struct{ name, list string }{{"https", m.https}, {"ssh", m.ssh}, {"udp", m.udp}} {
		fmt.Fprintf(&b, `
resource "unikorn_loadbalancer_members" %q {
  identity_id     = unikorn_identity.this.id
  loadbalancer_id = unikorn_loadbalancer.this.id
  listener        = %q
  members         = %s
}
`, l.name, l.name, l.list)
	}

	return b.String()
}

// referenceMembers are the reference stack's members: the three servers on https and udp, the
// first on ssh (weight 1).
func referenceMembers() listenerMembers {
	members := []string{"unikorn_server.this[0].private_ip", "unikorn_server.this[1].private_ip", "unikorn_server.this[2].private_ip"}

	return membersOf(members, "unikorn_server.this[0].private_ip", 1)
}

// referenceStack is the reference stack: identity, network, a 4-rule security group,
// three servers with floating IPs and the three-listener load balancer in front of them.
func referenceStack() string {
	return header + securityGroupHCL + serversHCL(3, true) + loadBalancerHCL(referenceMembers(), true)
}

// referenceSplitStack is the reference stack with the members outside the load balancer: its
// listeners have none, and one unikorn_loadbalancer_members resource per listener gives the
// same members. The load balancer no longer depends on the servers, so it is made while they
// boot; only the members wait for them.
func referenceSplitStack() string {
	m := referenceMembers()

	return header + securityGroupHCL + serversHCL(3, true) + loadBalancerHCL(m, false) + membersResourcesHCL(m)
}

// serverStack is the identity, its network and count servers (no floating IP).
func serverStack(count int) string {
	return header + serversHCL(count, false)
}

// baseStack is the identity and its network alone.
func baseStack() string { return header }

// loadBalancerStack is the identity, its network and the three-listener load balancer, whose
// ssh listener's one member has weight sshWeight.
func loadBalancerStack(sshWeight int) string {
	return header + loadBalancerHCL(membersOf([]string{`"10.60.0.10"`, `"10.60.0.11"`}, `"10.60.0.12"`, sshWeight), true)
}
