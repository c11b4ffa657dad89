# A global role that implies Keystone's member role (and so reader, which member implies):
# a user granted "operator" holds member too.
resource "unikorn_role" "operator" {
  name        = "operator"
  description = "Operates the region's services"
  implies     = ["member"]
}

# A role that implies another role of the same configuration.
resource "unikorn_role" "lead" {
  name    = "lead"
  implies = [unikorn_role.operator.name, "reader"]
}

# A role specific to one domain. It may imply global roles, but cannot be implied itself.
resource "unikorn_role" "acme_auditor" {
  name      = "auditor"
  domain_id = unikorn_domain.acme.id
  implies   = ["reader"]
}
