# The security group securitygroup-web in the identity's project. Its rules are a set:
# changing one rule replaces only that rule, and Neutron's default egress rules (anything
# out, IPv4 and IPv6) are always kept.
resource "unikorn_security_group" "web" {
  identity_id = unikorn_identity.team_a.id
  name        = "web"
  description = "Web servers"

  rules = [
    # remote_ip_prefix defaults to 0.0.0.0/0; the ether type follows the prefix.
    { direction = "ingress", protocol = "tcp", port = 443 },
    { direction = "ingress", protocol = "tcp", port = 80 },
    { direction = "ingress", protocol = "tcp", port = 22, remote_ip_prefix = "10.0.0.0/8", description = "ssh from the VPN" },
    { direction = "ingress", protocol = "tcp", port_range = { min = 30000, max = 32767 }, remote_ip_prefix = "10.0.0.0/24" },
    { direction = "ingress", protocol = "icmp", remote_ip_prefix = "2001:db8::/32" },
    { direction = "ingress", protocol = "vrrp", remote_ip_prefix = "10.0.0.0/24" },
  ]
}

# Many rules are one bulk request to Neutron.
resource "unikorn_security_group" "services" {
  identity_id = unikorn_identity.team_a.id
  name        = "services"

  rules = [for port in [5432, 6379, 9092, 9200] : {
    direction        = "ingress"
    protocol         = "tcp"
    port             = port
    remote_ip_prefix = "10.0.0.0/24"
  }]
}

# A security group in a unikorn_project's project: project_id in place of identity_id.
resource "unikorn_security_group" "allow_ssh" {
  project_id = unikorn_project.research.id
  name       = "allow-ssh"
  rules      = [{ direction = "ingress", protocol = "tcp", port = 22 }]
}
