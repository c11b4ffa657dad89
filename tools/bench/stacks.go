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

// loadBalancerHCL is the three-listener load balancer with a public IP: TCP with PROXYV2, an
// idle timeout, allowed CIDRs and a monitor; plain TCP; UDP with a UDP-CONNECT monitor. members
// are HCL expressions of the members' addresses; sshMember is the ssh listener's one member,
// of weight sshWeight.
func loadBalancerHCL(members []string, sshMember string, sshWeight int) string {
	list := func(port int) string {
		var parts []string
		for _, m := range members {
			parts = append(parts, fmt.Sprintf("{ address = %s, port = %d }", m, port))
		}

		return "[" + strings.Join(parts, ", ") + "]"
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
      allowed_cidrs        = ["10.0.0.0/8"]
      members              = %s
      health_monitor       = { interval_seconds = 10, timeout_seconds = 5 }
    },
    {
      name     = "ssh"
      protocol = "TCP"
      port     = 22
      members  = [{ address = %s, port = 22, weight = %d }]
    },
    {
      name           = "udp"
      protocol       = "UDP"
      port           = 53
      members        = %s
      health_monitor = { interval_seconds = 5, timeout_seconds = 3 }
    },
  ]
}
`, list(8443), sshMember, sshWeight, list(53))
}

// referenceStack is the reference stack: identity, network, a 4-rule security group,
// three servers with floating IPs and the three-listener load balancer in front of them.
func referenceStack() string {
	members := []string{"unikorn_server.this[0].private_ip", "unikorn_server.this[1].private_ip", "unikorn_server.this[2].private_ip"}

	return header + securityGroupHCL + serversHCL(3, true) + loadBalancerHCL(members, "unikorn_server.this[0].private_ip", 1)
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
	return header + loadBalancerHCL([]string{`"10.60.0.10"`, `"10.60.0.11"`}, `"10.60.0.12"`, sshWeight)
}
