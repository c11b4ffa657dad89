# A tenant's identity: a Keystone project and user in the provider's managed domain, with
# quotas in every served region, an application credential and the trust the provider uses
# to act as the tenant.
resource "unikorn_identity" "team_a" {
  name        = "team-a"
  description = "Team A's workloads"

  # Project tags organization=<id> and project=<id>.
  organization_id    = "3f8b2c1e"
  unikorn_project_id = "9d41a7c0"

  # Default ["member", "load-balancer_member"].
  roles = ["member", "load-balancer_member"]

  # Every quota left out is unlimited (-1); these apply in every served region.
  quotas = {
    compute = {
      instances = 50
      cores     = 200
      ram       = 409600 # MiB
    }
    network = {
      floatingip = 10
    }
    block_storage = {
      gigabytes = 2000
    }
    load_balancer = {
      load_balancer = 5
    }
  }

  # A Nova server group unikorn-identity-team-a in every served region.
  server_group = {
    policy = "soft-anti-affinity"
  }

  # Imported as the keypair "unikorn-openstack-provider" of the identity's user.
  ssh_public_key = file("~/.ssh/id_ed25519.pub")

  # The application credential expires then; unset: never.
  expires_at = "2030-01-01T00:00:00Z"

  timeouts = {
    delete = "30m"
  }
}

# A ready clouds.yaml for the tenant (sensitive, and kept in the state):
#   terraform output -raw team_a_clouds_yaml > clouds.yaml
#   OS_CLOUD=unikorn-identity-team-a openstack server list
output "team_a_clouds_yaml" {
  value     = unikorn_identity.team_a.clouds_yaml
  sensitive = true
}

# Preferred on Terraform 1.10 and later: keep no credential, so that no secret of the identity
# is ever in the state, and open a short-lived one where it is needed with the ephemeral
# resource unikorn_identity_credential.
resource "unikorn_identity" "team_b" {
  name                   = "team-b"
  application_credential = false
}
