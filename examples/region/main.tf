# Prepares a region for Unikorn's tenants, end to end, as the service user (cloud admin): a
# domain for customers, two roles where one implies the other, a public and a private flavor,
# an image imported by Glance's web-download with the Unikorn properties the image data
# sources read, and a flat external provider network with a subnet and an allocation pool.
# Credentials come from the environment (OS_CLOUD, OS_CLIENT_CONFIG_FILE, UNIKORN_DOMAIN,
# UNIKORN_REGIONS), as for examples/quickstart.
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

variable "prefix" {
  description = "Prefix of every name this configuration gives (roles and flavors are global to the cloud or region)."
  type        = string
  default     = "region"
}

variable "image_url" {
  description = "HTTP(S) URL of a raw disk image that Glance's web-download may fetch (its import filtering allows the host and port)."
  type        = string
}

variable "physical_network" {
  description = "The Neutron physical network (ML2 flat_networks) the external network is on."
  type        = string
  default     = "physnet1"
}

variable "external_cidr" {
  description = "The external network's IPv4 subnet."
  type        = string
  default     = "198.51.100.0/24"
}

# Customers' projects and users live here.
resource "unikorn_domain" "customers" {
  name        = "${var.prefix}-customers"
  description = "Customer projects and users"
}

# "operator" implies "observer": a user granted operator holds observer too.
resource "unikorn_role" "observer" {
  name        = "${var.prefix}-observer"
  description = "Reads the region's services"
}

resource "unikorn_role" "operator" {
  name        = "${var.prefix}-operator"
  description = "Operates the region's services"
  implies     = [unikorn_role.observer.name]
}

# A public flavor every project sees (and the unikorn_flavors data sources list), and a
# private one for projects given access later.
resource "unikorn_flavor" "general" {
  name    = "${var.prefix}.g.1c1g"
  vcpus   = 1
  ram_mib = 1024
  disk_gb = 10

  extra_specs = {
    "hw:cpu_policy" = "shared"
  }
}

resource "unikorn_flavor" "reserved" {
  name      = "${var.prefix}.r.2c2g"
  vcpus     = 2
  ram_mib   = 2048
  disk_gb   = 10
  is_public = false
}

# An OS image fetched by Glance itself (web-download), with the properties the Unikorn image
# schema asks for (checked at plan time).
resource "unikorn_image" "os" {
  name        = "${var.prefix}-linux"
  source_url  = var.image_url
  disk_format = "raw"
  visibility  = "public"
  tags        = ["unikorn"]

  properties = {
    "unikorn:os:kernel"      = "linux"
    "unikorn:os:family"      = "debian"
    "unikorn:os:distro"      = "ubuntu"
    "unikorn:os:version"     = "24.04"
    "unikorn:virtualization" = "virtualized"
  }
}

# The external network routers of tenants' networks reach the outside through: flat on the
# physical network, gateway on the subnet's first address, floating IPs from the pool.
resource "unikorn_provider_network" "external" {
  name             = "${var.prefix}-external"
  network_type     = "flat"
  physical_network = var.physical_network
  external         = true

  subnets = [{
    name             = "${var.prefix}-external-v4"
    cidr             = var.external_cidr
    gateway_ip       = cidrhost(var.external_cidr, 1)
    enable_dhcp      = false
    allocation_pools = [{ start = cidrhost(var.external_cidr, 10), end = cidrhost(var.external_cidr, 200) }]
  }]
}

output "domain_id" {
  value = unikorn_domain.customers.id
}

output "role_ids" {
  value = { observer = unikorn_role.observer.id, operator = unikorn_role.operator.id }
}

output "flavor_ids" {
  value = { general = unikorn_flavor.general.id, reserved = unikorn_flavor.reserved.id }
}

output "image_id" {
  value = unikorn_image.os.id
}

output "external_network_id" {
  value = unikorn_provider_network.external.id
}
