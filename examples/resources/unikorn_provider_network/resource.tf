# A flat external network on the physical network "physnet1", with one subnet whose pool
# leaves room below for static addresses: the network routers of unikorn_network use as
# their gateway (the unikorn_external_networks data source lists it).
resource "unikorn_provider_network" "public" {
  name             = "public-2"
  network_type     = "flat"
  physical_network = "physnet1"
  external         = true

  subnets = [{
    name             = "public-2-v4"
    cidr             = "198.51.100.0/24"
    gateway_ip       = "198.51.100.1"
    allocation_pools = [{ start = "198.51.100.100", end = "198.51.100.250" }]
    enable_dhcp      = false
  }]
}

# A shared VLAN network whose VLAN ID Neutron's own view allocates, with DNS servers and a
# host route handed out by DHCP.
resource "unikorn_provider_network" "storage" {
  name             = "storage"
  network_type     = "vlan"
  physical_network = "physnet1"
  shared           = true
  mtu              = 9000 # at most the physical network's MTU (ML2 physical_network_mtus)

  subnets = [{
    name            = "storage-v4"
    cidr            = "192.0.2.0/24"
    dns_nameservers = ["192.0.2.53"]
    host_routes     = [{ destination = "10.50.0.0/16", next_hop = "192.0.2.254" }]
  }]
}
