# The server "web-1" of a team's identity, made by another Terraform state or by Unikorn, by its
# name in the identity (Nova's name of the server).
data "unikorn_server" "web" {
  identity_id = var.team_a_identity_id
  region      = "RegionOne"
  name        = "web-1"
}

# A server by its ID, in whatever identity and served region it is.
data "unikorn_server" "bastion" {
  id = "5f1c3a4e-2b7d-4c1e-9a0f-3d2e1b4c5a6f"
}

# Let the bastion in on the web server's address.
resource "unikorn_security_group" "web_from_bastion" {
  identity_id = data.unikorn_server.web.identity_id
  region      = data.unikorn_server.web.region
  name        = "web-from-bastion"
  rules = [
    { direction = "ingress", protocol = "tcp", port = 443, remote_ip_prefix = "${data.unikorn_server.bastion.private_ip}/32" },
  ]
}

output "web_address" {
  value = data.unikorn_server.web.private_ip
}
