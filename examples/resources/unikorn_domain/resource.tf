# A Keystone domain for a customer's projects and users, managed by the service user as
# cloud admin. Neither "Default" nor the provider's own managed domain can be used here.
resource "unikorn_domain" "acme" {
  name        = "acme"
  description = "ACME Corp"
}

# A domain that is being retired: disabled (its users cannot authenticate), and destroyed
# with the projects and domain-specific roles it still holds (set force_destroy, apply, then
# destroy; without it the destroy fails and lists them).
resource "unikorn_domain" "legacy" {
  name          = "legacy"
  enabled       = false
  force_destroy = true
}
