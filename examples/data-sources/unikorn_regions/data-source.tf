data "unikorn_regions" "all" {}

# The compute endpoint of every served region.
output "compute_endpoints" {
  value = {
    for region in data.unikorn_regions.all.regions :
    region.name => one([for s in region.services : s.endpoints["public"] if s.type == "compute"])
  }
}
