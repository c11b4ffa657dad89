# A human project made by another configuration, by its name in its Keystone domain.
data "unikorn_project" "research" {
  name      = "research"
  domain_id = "5d1f0c2b9a8e4f7d6c3b2a1908e7f6d5"
}

# The same kind of look-up by the project's ID.
data "unikorn_project" "by_id" {
  id = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
}

# Networks and security groups of unikorn_project's projects take its ID; nothing of the
# project is managed here.
resource "unikorn_network" "research" {
  project_id = data.unikorn_project.research.id
  name       = "research-net"
  cidr       = "10.20.0.0/24"
}

output "research_group" {
  value = {
    group    = data.unikorn_project.research.group_name
    bindings = data.unikorn_project.by_id.role_bindings
  }
}
