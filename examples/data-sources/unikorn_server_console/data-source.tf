# The last 50 lines of a server's console log, read as the identity's own user: what the
# server printed while it booted (cloud-init's messages, for example).
data "unikorn_server_console" "web" {
  identity_id = unikorn_identity.team_a.id
  server_id   = unikorn_server.web.id
  lines       = 50
}

# The log is sensitive (cloud-init prints generated passwords and keys to the console): an output
# of it must say so, and `terraform output -raw web_boot_log` shows it.
output "web_boot_log" {
  value     = data.unikorn_server_console.web.output
  sensitive = true
}
