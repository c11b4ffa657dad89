# A snapshot is imported as REGION/ID or REGION/name (a bare ID is looked for in every served
# region, the provider's default first; a bare name in the default region), in whatever identity's project it is.
terraform import unikorn_server_snapshot.web_golden RegionOne/7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e
terraform import unikorn_server_snapshot.web_golden RegionOne/web-golden-2026-12
