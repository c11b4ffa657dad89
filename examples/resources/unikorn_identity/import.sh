# An identity is imported by its Keystone project ID or by its name. The application
# credential's secret cannot be read back from Keystone: after an import,
# application_credential_secret and clouds_yaml are empty. In an identity this provider made,
# the next apply issues a fresh application credential (the old one is deleted); an identity
# made elsewhere (Unikorn's: made_by_provider = false) keeps its own, read-only.
terraform import unikorn_identity.team_a 0123456789abcdef0123456789abcdef
terraform import unikorn_identity.team_a team-a
