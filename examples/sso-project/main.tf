# A project for people who log in through their organisation's identity provider (single
# sign-on with OpenID Connect), end to end: a domain for them, the federation that maps their
# logins onto users of that domain and into the project's group, the project with quotas and
# its group bound to the member role, and a network with a router to the external network and
# an allow-ssh security group in the project. Made as the service user (cloud admin);
# credentials come from the environment (OS_CLOUD, OS_CLIENT_CONFIG_FILE, UNIKORN_DOMAIN,
# UNIKORN_REGIONS), as for examples/quickstart.
#
# Keystone's web server (e.g. Apache with mod_auth_openidc) must offer the openid protocol of
# the identity provider for logins to reach it: that is outside Terraform.
terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

provider "unikorn" {}

variable "prefix" {
  description = "Prefix of every name this configuration gives (domains and identity providers are global to the cloud)."
  type        = string
  default     = "research"
}

variable "issuer" {
  description = "The OpenID Connect issuer of the organisation's identity provider, as the web server reports it."
  type        = string
  default     = "https://login.example.com/realms/research"
}

variable "sso_group" {
  description = "The group (in the OIDC-groups claim) whose members may use the project."
  type        = string
  default     = "research"
}

# The people's users and groups live in a domain of their own.
resource "unikorn_domain" "people" {
  name        = "${var.prefix}-people"
  description = "Users who log in through ${var.issuer}"
}

# The project, its group "<name>-members" bound to member, and quotas in every region.
resource "unikorn_project" "research" {
  name        = "${var.prefix}-research"
  domain_id   = unikorn_domain.people.id
  description = "Research computing"
  tags        = ["cost-centre=research"]

  quotas = {
    compute       = { instances = 20, cores = 64, ram = 131072 }
    network       = { network = 5, router = 2, floatingip = 5 }
    block_storage = { volumes = 20, gigabytes = 1000 }
  }

  # Federated users exist only after their first login: bind the group the mapping puts them in.
  role_bindings = [
    { role = "member", groups = ["${var.prefix}-research-members"] },
  ]
}

# A login whose OIDC-groups claim holds the SSO group becomes the user named by its
# preferred_username, in the project's group.
resource "unikorn_federation" "oidc" {
  idp_id      = "${var.prefix}-oidc"
  domain_id   = unikorn_domain.people.id
  description = "The organisation's OpenID Connect provider"
  remote_ids  = [var.issuer]
  protocol    = "openid"

  rules = [{
    user_attribute  = "OIDC-preferred_username"
    match           = [{ attribute = "OIDC-groups", any_one_of = [var.sso_group] }]
    groups          = [unikorn_project.research.group_name]
    group_domain_id = unikorn_domain.people.id
  }]
}

# A network in the project, with a router to the provider's default external network.
resource "unikorn_network" "research" {
  project_id = unikorn_project.research.id
  name       = "research"
  cidr       = "10.10.0.0/24"
}

resource "unikorn_security_group" "allow_ssh" {
  project_id = unikorn_project.research.id
  name       = "allow-ssh"
  rules = [
    { direction = "ingress", protocol = "tcp", port = 22, description = "ssh" },
  ]
}

output "project_id" {
  description = "The project's Keystone ID."
  value       = unikorn_project.research.id
}

output "network_id" {
  description = "The project's network."
  value       = unikorn_network.research.id
}
