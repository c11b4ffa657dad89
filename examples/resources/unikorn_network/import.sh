# A network is imported by REGION/ID or REGION/name (the name without "network-"); a bare
# ID is looked for in every served region (the provider's default first), a bare name in the
# default region. The identity_id (or, for a network in a
# unikorn_project's project, the project_id) is read from Neutron.
terraform import unikorn_network.web RegionOne/5d4c1f32-9a7e-4c1b-8f3e-2a6b9c0d1e2f
terraform import unikorn_network.web_two RegionTwo/web
terraform import unikorn_network.web web
