# An identity that Unikorn's region service made, taken into this configuration. The import
# block (Terraform 1.5 and later) names its Keystone project (unikorn-identity-<UUID>); the
# resource mirrors what the identity holds, so that the plan is "1 to import, 0 to add, 0 to
# change, 0 to destroy" and changes nothing in the cloud.
import {
  to = unikorn_identity.from_unikorn
  id = "6f0c2a8e4b1d4c7a9e3f5b2d8c1a7e40"
}

resource "unikorn_identity" "from_unikorn" {
  # Unikorn's identity UUID: the project, user, credential and server group are
  # unikorn-identity-<UUID>.
  name = "c8d3a1f2-5b7e-4d90-a6c4-2e8f1b3d5a79"

  # The project tags organization=<id> and project=<id> Unikorn wrote.
  organization_id    = "3f8b2c1e-0d4a-4e6b-9c2f-7a1d5e8b3c60"
  unikorn_project_id = "9d41a7c0-6e2b-4f8d-b3a5-1c7e9f0d2b84"

  # The roles of its user: Unikorn's defaults, or the region's clusterRoles.
  roles = ["member", "load-balancer_member"]

  # Read-only: the policy of its server group and the public key of its user's keypair
  # unikorn-openstack-provider, as the plan after the import shows them.
  server_group = {
    policy = "soft-anti-affinity"
  }
  ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILSVTEF+J+CNOa9ozhK+hsqaZ1gfpWs/ob+yUVc1Dv53"

  # Left out: application_credential (true keeps Unikorn's credential; its secret is not known)
  # and quotas (they stay as Unikorn set them).
}

# To hand the identity back to Unikorn, replace the resource block (and the import block)
# with a removed block (Terraform 1.7 and later): Terraform forgets it, the cloud is unchanged.
#
# removed {
#   from = unikorn_identity.from_unikorn
#
#   lifecycle {
#     destroy = false
#   }
# }
