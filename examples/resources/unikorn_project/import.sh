# A project is imported by its Keystone ID, by its name in the provider's managed domain, or
# by DOMAIN_ID/name. The role assignments it holds become its role_bindings.
terraform import unikorn_project.research 9c1d2e3f4a5b4c6d8e7f6a5b4c3d2e1f
terraform import unikorn_project.research 5e0d9c8b7a6f4e3d2c1b0a9f8e7d6c5b/research
