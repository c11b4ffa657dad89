# An identity made by another configuration, or by Unikorn's region service, by its name (the
# Keystone project unikorn-identity-<name> in the provider's managed domain).
data "unikorn_identity" "team" {
  name = "team-a"
}

# The same kind of look-up by the identity's Keystone project ID.
data "unikorn_identity" "by_id" {
  id = "0f6c9a7e3d2b4c1a8e5f7d9b2a4c6e8f"
}

# Tenant resources take the identity's ID; nothing of the identity is managed here.
resource "unikorn_network" "team" {
  identity_id = data.unikorn_identity.team.id
  name        = "team-net"
  cidr        = "10.10.0.0/24"
}

output "team_identity" {
  value = {
    user_id         = data.unikorn_identity.team.user_id
    organization_id = data.unikorn_identity.team.organization_id
    roles           = data.unikorn_identity.team.roles
    server_groups   = data.unikorn_identity.by_id.server_group_ids
  }
}
