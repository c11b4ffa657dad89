# A noVNC console session on a server. Its URL carries a short-lived token: as an ephemeral
# resource it is never written to the plan or the state (Terraform 1.10 or later).
ephemeral "unikorn_server_console_session" "web" {
  identity_id = unikorn_identity.team_a.id
  server_id   = unikorn_server.web.id
  type        = "novnc" # the default; also spice-html5, serial, rdp-html5, webmks, xvpvnc
}

# Written in a child module, the URL goes up as an ephemeral output (or to a provider block or
# a write-only argument), and is never stored.
output "web_console_url" {
  value     = ephemeral.unikorn_server_console_session.web.url
  ephemeral = true
}
