# A server is imported as REGION/ID or REGION/name (a bare ID is looked for in every served
# region, the provider's default first; a bare name in the default region). Tags cannot be
# read back from the metadata they become, and user data cannot be read at all: the next
# apply writes the tags' metadata and records the hash of the configured user data, without
# rebuilding the server.
terraform import unikorn_server.web RegionOne/8d3c9f0e-6b1a-4d2e-9c7f-0a1b2c3d4e5f
terraform import unikorn_server.web RegionOne/web-1
