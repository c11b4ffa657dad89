# A provider network is imported by REGION/ID or REGION/name (the Neutron network's exact
# name); a bare ID or name means the provider's default region.
terraform import unikorn_provider_network.public RegionOne/5d4c1f32-9a7e-4c1b-8f3e-2a6b9c0d1e2f
terraform import unikorn_provider_network.storage RegionTwo/storage
terraform import unikorn_provider_network.public public-2
