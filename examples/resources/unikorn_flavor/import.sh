# A flavor is imported by REGION/ID or REGION/name; a bare ID or name means the provider's
# default region. Public and private flavors are found alike.
terraform import unikorn_flavor.general RegionOne/g.2c4g
terraform import unikorn_flavor.gpu RegionTwo/gpu.a100
terraform import unikorn_flavor.general 5d4c1f32-9a7e-4c1b-8f3e-2a6b9c0d1e2f
