# The platform team's configuration, one of two states: an identity and its network. The app
# team's configuration (../app) finds both by name with the unikorn_identity and unikorn_network
# data sources and adds a server; nothing is passed between the two states but the names.
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

variable "name" {
  description = "Name of the identity and of its network."
  type        = string
  default     = "platform"
}

resource "unikorn_identity" "team" {
  name        = var.name
  description = "made by the platform state"
}

resource "unikorn_network" "team" {
  identity_id = unikorn_identity.team.id
  name        = var.name
  cidr        = "10.60.0.0/24"
}

output "identity_name" {
  value = unikorn_identity.team.name
}
