# A tenant network: the Neutron network, IPv4 subnet and router network-web, and the
# router's interface on the subnet, in the identity's project.
resource "unikorn_network" "web" {
  identity_id = unikorn_identity.team_a.id
  name        = "web"
  cidr        = "10.0.0.0/24"

  # Gateway 10.0.0.1; static addresses 10.0.0.2-10.0.0.127 (static_range); DHCP hands out
  # 10.0.0.128-10.0.0.254. Set allocation_pool to change the DHCP range.
  dns_nameservers = ["192.0.2.53", "192.0.2.54"]

  # Host routes DHCP hands out: destination CIDR = next hop.
  routes = {
    "10.20.0.0/16" = "10.0.0.254"
  }

  description = "Web tier"
}

# The same name in another region is another, independent network.
resource "unikorn_network" "web_two" {
  identity_id = unikorn_identity.team_a.id
  region      = "RegionTwo"
  name        = "web"
  cidr        = "10.1.0.0/24"

  # A given external network instead of the provider's selector's first one.
  external_network_id = data.unikorn_external_networks.region_two.default_id

  allocation_pool = {
    start = "10.1.0.100"
    end   = "10.1.0.250"
  }
}

data "unikorn_external_networks" "region_two" {
  region = "RegionTwo"
}

output "web_static_range" {
  value = unikorn_network.web.static_range
}

# A network in a unikorn_project's project (people's, e.g. an SSO domain's) instead of an
# identity's: project_id in place of identity_id.
resource "unikorn_network" "research" {
  project_id = unikorn_project.research.id
  name       = "research"
  cidr       = "10.10.0.0/24"
}
