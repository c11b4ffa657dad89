# Terraform 1.14 or later. Reboot web-1 (soft) whenever its configuration file changes:
# `terraform apply` runs the action after updating the terraform_data.
action "unikorn_server_reboot" "web" {
  config {
    identity_id = unikorn_identity.team_a.id
    server_id   = unikorn_server.web.id
    hard        = false
  }
}

resource "terraform_data" "web_config" {
  input = filesha256("${path.module}/web.conf")

  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.unikorn_server_reboot.web]
    }
  }
}

# Or on demand: terraform apply -invoke=action.unikorn_server_reboot.web
