# A snapshot of web-1's disk, published as an image of organization "acme": the image data
# sources return it for that organization (the server's Unikorn image properties come with it).
resource "unikorn_server_snapshot" "web_golden" {
  identity_id     = unikorn_identity.team_a.id
  server_id       = unikorn_server.web.id
  name            = "web-golden-2026-12"
  organization_id = "acme"

  timeouts = {
    create = "45m" # the snapshot is done when Glance says the image is active
  }
}

# Boot another server from it.
data "unikorn_image" "web_golden" {
  organization_id = unikorn_server_snapshot.web_golden.organization_id
  name            = unikorn_server_snapshot.web_golden.name
}
