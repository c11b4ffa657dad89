# Terraform 1.14 or later. Take a snapshot of web-1 on demand, published for organization
# "acme"; nothing deletes it afterwards (use unikorn_server_snapshot for a managed one):
#
#   terraform apply -invoke=action.unikorn_server_snapshot_now.web
action "unikorn_server_snapshot_now" "web" {
  config {
    identity_id     = unikorn_identity.team_a.id
    server_id       = unikorn_server.web.id
    name            = "web-${formatdate("YYYYMMDD-hhmm", timestamp())}"
    organization_id = "acme"
  }
}
