# A security group is imported by REGION/ID or REGION/name (the name without
# "securitygroup-"); a bare ID is looked for in every served region (the provider's default
# first), a bare name in the default region.
terraform import unikorn_security_group.web RegionOne/7f0e5b1a-3c2d-4e6f-9a8b-1c2d3e4f5a6b
terraform import unikorn_security_group.web web
