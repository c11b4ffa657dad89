# A server of team A: the port server-web-1 on the team's network with two security groups,
# the Nova server web-1 on it, and a floating IP. Everything is made as the identity's own
# user, in its project.
resource "unikorn_server" "web" {
  identity_id = unikorn_identity.team_a.id
  name        = "web-1"
  region      = "RegionOne" # default: the provider's region

  network_id         = unikorn_network.team_a.id
  security_group_ids = [unikorn_security_group.ssh.id, unikorn_security_group.https.id]

  # Checked at plan time against each other: architecture, root disk, baremetal.
  flavor_id = data.unikorn_flavor.small.id
  image_id  = data.unikorn_image.node.id

  public_ip    = true # a floating IP on the external network of the network's router
  ssh_key      = true # the identity's keypair (its ssh_public_key)
  server_group = true # the identity's server group (its server_group)

  # Write-only (Terraform / OpenTofu 1.11 or later): never stored, never logged. Changing it
  # rebuilds the server; user_data_sha256 shows the change in the plan.
  user_data = <<-EOT
    #cloud-config
    hostname: web-1
    package_update: true
  EOT

  # Written as server metadata "monitoring:team_name" = "web".
  tags = {
    "monitoring.example.com/team-name" = "web"
  }

  # A virtual IP shared with a peer (keepalived), on this port's own MAC.
  allowed_address_pairs = [
    { ip_address = "10.0.0.250" },
  ]

  power_state = "running"

  timeouts = {
    create = "20m"
  }
}

# A server pinned to a compute host: made by the service user in the identity's project after
# a Placement preflight (the host exists and has room for the flavor). It needs admin inside the
# identity's project (the domain-inherited admin grant model) or a Nova policy that lets manager
# target hosts. A flavor described as pinned_only in the provider block requires host.
resource "unikorn_server" "db" {
  identity_id = unikorn_identity.team_a.id
  name        = "db-1"
  network_id  = unikorn_network.team_a.id
  flavor_id   = data.unikorn_flavor.dedicated.id
  image_id    = data.unikorn_image.node.id
  host        = "compute-12"
}

# A server that boots from a volume: Nova makes a 20 GiB volume from the image, and deletes it
# with the server. Required on a flavor without a local disk (disk 0); the plan says so.
resource "unikorn_server" "disk" {
  identity_id = unikorn_identity.team_a.id
  name        = "disk-1"
  network_id  = unikorn_network.team_a.id
  flavor_id   = data.unikorn_flavor.diskless.id
  image_id    = data.unikorn_image.node.id

  root_volume = {
    size_gb = 20
  }
}

# For a Kubernetes node: spec.providerID.
output "web_provider_id" {
  value = unikorn_server.web.provider_id
}

output "web_addresses" {
  value = {
    private = unikorn_server.web.private_ip
    public  = unikorn_server.web.public_ip_address
  }
}
