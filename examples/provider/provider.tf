terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

# Credentials come from clouds.yaml, exactly as for the `openstack` CLI
# (OS_CLOUD / OS_CLIENT_CONFIG_FILE work too). Arguments override the file.
provider "unikorn" {
  cloud       = "unikorn"
  clouds_yaml = "~/.config/openstack/clouds.yaml"

  # The managed Keystone domain that holds one project and user per identity.
  domain = "unikorn"

  # Every region this provider block serves; each is checked against the catalog.
  region  = "RegionOne"
  regions = ["RegionOne", "RegionTwo"]
}
