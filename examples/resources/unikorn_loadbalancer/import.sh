# A load balancer is imported by REGION/ID or REGION/name (the name without "lb-"); a bare
# ID is looked for in every served region (the provider's default first), a bare name in the
# default region. The identity_id is read from Octavia.
# Listeners are listed in the order Octavia created them.
terraform import unikorn_loadbalancer.web RegionOne/8b5c0c1e-3f2a-4d6b-9e7f-0a1b2c3d4e5f
terraform import unikorn_loadbalancer.web RegionOne/web
terraform import unikorn_loadbalancer.web web
