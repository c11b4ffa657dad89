# Single sign-on with OpenID Connect: a login whose OIDC-groups claim holds "staff" becomes
# the user named by its preferred_username in the domain, in the group "research-members".
resource "unikorn_federation" "acme" {
  idp_id     = "acme-oidc"
  domain_id  = unikorn_domain.acme.id
  remote_ids = ["https://login.acme.example/realms/acme"]
  protocol   = "openid"

  rules = [{
    user_attribute  = "OIDC-preferred_username"
    match           = [{ attribute = "OIDC-groups", any_one_of = ["staff"] }]
    groups          = ["research-members"]
    group_domain_id = unikorn_domain.acme.id
  }]
}

# Anything else is Keystone's own rule list as JSON: here every group of the claim that is
# one of two, by name in the domain.
resource "unikorn_federation" "partners" {
  idp_id     = "partners-saml"
  domain_id  = unikorn_domain.acme.id
  remote_ids = ["https://idp.partner.example/saml2"]
  protocol   = "saml2"

  rules_json = jsonencode([{
    local = [
      { user = { name = "{0}" } },
      { groups = "{1}", domain = { id = unikorn_domain.acme.id } },
    ]
    remote = [
      { type = "MELLON_NAME_ID" },
      { type = "MELLON_groups", whitelist = ["partners", "contractors"] },
    ]
  }])
}
