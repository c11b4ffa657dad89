# A listener's members are imported by REGION/<load balancer ID>/<listener>; without the
# region, the load balancer is looked for in every served region (the provider's default
# first). The identity_id is read from Octavia. Only a pool that a unikorn_loadbalancer_members
# held (its tag unikorn-terraform-members:unikorn_loadbalancer_members) can be imported.
terraform import unikorn_loadbalancer_members.app_http RegionOne/8b5c0c1e-3f2a-4d6b-9e7f-0a1b2c3d4e5f/http
terraform import unikorn_loadbalancer_members.app_http 8b5c0c1e-3f2a-4d6b-9e7f-0a1b2c3d4e5f/http
