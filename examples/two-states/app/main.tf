# The app team's configuration, the second of two states: it manages a server only, in the
# identity and on the network that the platform state (../platform) manages, found by name.
# Destroying this state leaves the identity and the network as they are.
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

variable "identity" {
  description = "Name of the platform's identity (its `name`, as given to unikorn_identity)."
  type        = string
  default     = "platform"
}

variable "network" {
  description = "Name of the platform's network in that identity."
  type        = string
  default     = "platform"
}

variable "server" {
  description = "Name of the app's server."
  type        = string
  default     = "app"
}

variable "flavor" {
  description = "Name of the server's flavor."
  type        = string
  default     = "m1.tiny"
}

variable "image" {
  description = "Name of the server's image."
  type        = string
  default     = "cirros-tiny"
}

data "unikorn_identity" "team" {
  name = var.identity
}

data "unikorn_network" "team" {
  identity_id = data.unikorn_identity.team.id
  name        = var.network
}

data "unikorn_flavor" "small" {
  name = var.flavor
}

data "unikorn_image" "os" {
  name        = var.image
  most_recent = true
}

resource "unikorn_server" "app" {
  identity_id = data.unikorn_identity.team.id
  name        = var.server
  network_id  = data.unikorn_network.team.id
  flavor_id   = data.unikorn_flavor.small.id
  image_id    = data.unikorn_image.os.id
}

output "server" {
  value = {
    provider_id = unikorn_server.app.provider_id
    private_ip  = unikorn_server.app.private_ip
    cidr        = data.unikorn_network.team.cidr
  }
}
