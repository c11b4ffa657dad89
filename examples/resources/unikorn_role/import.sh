# A role is imported by its Keystone ID, by the name of a global role, or by DOMAIN_ID/name
# for a role specific to a domain.
terraform import unikorn_role.operator 9b1d2c3e4f5a46b7a8c9d0e1f2a3b4c5
terraform import unikorn_role.operator operator
terraform import unikorn_role.acme_auditor 3f2c9a1b7d4e4c0f9b8a6e5d4c3b2a10/auditor
