# The external networks of a region that the provider's external_networks selector admits:
# what the routers of unikorn_network use. default_id is the one used when a network sets
# no external_network_id.
data "unikorn_external_networks" "default" {}

data "unikorn_external_networks" "region_two" {
  region = "RegionTwo"
}

output "router_uplinks" {
  value = {
    default = data.unikorn_external_networks.default.default_id
    all     = [for n in data.unikorn_external_networks.region_two.external_networks : "${n.name} (${n.id})"]
  }
}
