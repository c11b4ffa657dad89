# The security group "web" (Neutron: securitygroup-web) that another configuration manages in
# team A's identity, in the provider's region. Nothing is managed here: the data source only reads.
data "unikorn_security_group" "web" {
  identity_id = data.unikorn_identity.team_a.id
  name        = "web"
}

# A group Unikorn's region service made in that identity: its name is the Unikorn security group ID.
data "unikorn_security_group" "unikorn" {
  identity_id = data.unikorn_identity.team_a.id
  name        = "3f1c2a9e-8d4b-4c7a-9e21-5b6d7f8a9c0d"
}

# By Neutron ID, in whatever project and served region it is.
data "unikorn_security_group" "by_id" {
  id = "9b2e4d61-0c3a-4f8e-b7d5-1a2c3e4f5a6b"
}

resource "unikorn_server" "web" {
  identity_id        = data.unikorn_identity.team_a.id
  name               = "web-1"
  network_id         = data.unikorn_network.team_a.id
  security_group_ids = [data.unikorn_security_group.web.id, data.unikorn_security_group.unikorn.id]
  flavor_id          = data.unikorn_flavor.small.id
  image_id           = data.unikorn_image.node.id
}

output "web_rules" {
  value = data.unikorn_security_group.web.rules
}
