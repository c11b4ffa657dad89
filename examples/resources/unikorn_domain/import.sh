# A domain is imported by its Keystone ID or by its name. The Default domain and the
# provider's managed domain are refused.
terraform import unikorn_domain.acme 3f2c9a1b7d4e4c0f9b8a6e5d4c3b2a10
terraform import unikorn_domain.acme acme
