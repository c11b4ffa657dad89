# A federation is imported by its identity provider's ID.
terraform import unikorn_federation.acme acme-oidc
