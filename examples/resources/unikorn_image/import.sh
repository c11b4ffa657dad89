# An image is imported by REGION/ID or REGION/name (its exact Glance name in the service
# user's project); a bare ID or name means the provider's default region. source_url is read
# from Glance's import task while Glance keeps it; otherwise the configured one is taken
# without replacing the image.
terraform import unikorn_image.ubuntu RegionOne/8b75c3db-ff2c-40b8-ac79-380f54bff6a5
terraform import unikorn_image.team_a RegionTwo/team-a-ubuntu-24.04
terraform import unikorn_image.ubuntu ubuntu-24.04-kubernetes-1.30
