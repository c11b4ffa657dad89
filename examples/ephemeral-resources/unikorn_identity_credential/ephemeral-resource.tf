# An identity that keeps no application credential of its own: no secret of it is in the plan
# or the state.
resource "unikorn_identity" "team_a" {
  name                   = "team-a"
  application_credential = false
}

# A short-lived credential of team-a's user, issued when Terraform opens it and deleted when
# Terraform closes it (at the end of every plan and apply); it expires after ttl in any case.
ephemeral "unikorn_identity_credential" "team_a" {
  identity_id = unikorn_identity.team_a.id
  ttl         = "30m" # default 1h
}

# Another provider acting as the tenant, configured from the short-lived credential.
provider "openstack" {
  alias                         = "team_a"
  auth_url                      = "https://keystone.example.com:5000/v3"
  application_credential_id     = ephemeral.unikorn_identity_credential.team_a.id
  application_credential_secret = ephemeral.unikorn_identity_credential.team_a.secret
}

# Or handed on, never stored, as an ephemeral output of a child module.
output "team_a_clouds_yaml" {
  value     = ephemeral.unikorn_identity_credential.team_a.clouds_yaml
  ephemeral = true
}
