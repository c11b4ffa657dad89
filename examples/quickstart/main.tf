# The quickstart applied by `make demo` against the local two-region OpenStack: a tenant
# identity, its network and security group, a server with a floating IP and a data volume, and
# a load balancer in front of it. Credentials come from the environment that tools/openstack-lite writes
# (OS_CLOUD, OS_CLIENT_CONFIG_FILE, UNIKORN_DOMAIN, UNIKORN_REGIONS).
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

variable "name" {
  description = "Name of the demo identity and of everything in it."
  type        = string
  default     = "quickstart"
}

data "unikorn_regions" "served" {}

# The smallest flavor with at least one CPU, and the newest image that passes the Unikorn
# image schema (the local cloud's cirros-tiny carries its properties).
data "unikorn_flavor" "small" {
  min_cpus = 1
  smallest = true
}

data "unikorn_image" "os" {
  os_distro   = "cirros"
  most_recent = true
}

resource "unikorn_identity" "demo" {
  name        = var.name
  description = "make demo"
}

resource "unikorn_network" "demo" {
  identity_id = unikorn_identity.demo.id
  name        = var.name
  cidr        = "10.42.0.0/24"
}

resource "unikorn_security_group" "demo" {
  identity_id = unikorn_identity.demo.id
  name        = var.name

  rules = [
    { direction = "ingress", protocol = "tcp", port = 22 },
    { direction = "ingress", protocol = "tcp", port = 80 },
  ]
}

# A data volume for the server: it outlives a replaced server, and grows in place when
# size_gb is raised (Cinder never shrinks a volume).
resource "unikorn_volume" "demo" {
  identity_id = unikorn_identity.demo.id
  name        = var.name
  size_gb     = 1
}

resource "unikorn_server" "demo" {
  identity_id        = unikorn_identity.demo.id
  name               = var.name
  network_id         = unikorn_network.demo.id
  security_group_ids = [unikorn_security_group.demo.id]
  flavor_id          = data.unikorn_flavor.small.id
  image_id           = data.unikorn_image.os.id
  public_ip          = true
  volumes            = [unikorn_volume.demo.id] # attached and detached in place
}

resource "unikorn_loadbalancer" "demo" {
  identity_id = unikorn_identity.demo.id
  network_id  = unikorn_network.demo.id
  name        = var.name
  public_ip   = true

  listeners = [{
    name     = "http"
    protocol = "TCP"
    port     = 80
    members  = [{ address = unikorn_server.demo.private_ip, port = 80 }]
  }]
}

output "regions" {
  value = [for region in data.unikorn_regions.served.regions : region.name]
}

output "server" {
  value = {
    provider_id = unikorn_server.demo.provider_id
    private_ip  = unikorn_server.demo.private_ip
    public_ip   = unikorn_server.demo.public_ip_address
    volumes     = unikorn_server.demo.volumes
  }
}

output "load_balancer" {
  value = {
    vip_address = unikorn_loadbalancer.demo.vip_address
    public_ip   = unikorn_loadbalancer.demo.public_ip_address
  }
}
