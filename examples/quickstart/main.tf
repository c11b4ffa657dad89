# The quickstart applied by `make demo` against the local two-region OpenStack.
# Credentials come from the environment that tools/openstack-lite writes
# (OS_CLOUD, OS_CLIENT_CONFIG_FILE, UNIKORN_DOMAIN, UNIKORN_REGIONS).
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

data "unikorn_regions" "served" {}

output "default_region" {
  value = data.unikorn_regions.served.default_region
}

output "regions" {
  value = {
    for region in data.unikorn_regions.served.regions :
    region.name => sort([for s in region.services : s.type])
  }
}
