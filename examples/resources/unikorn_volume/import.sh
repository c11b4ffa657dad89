# A volume is imported as REGION/ID or REGION/name (a bare ID is looked for in every served
# region, the provider's default first; a bare name in the default region), in whatever identity's or project's project it is.
terraform import unikorn_volume.db_data RegionOne/5d2c8a1e-3b4f-4c6d-9e7f-0a1b2c3d4e5f
terraform import unikorn_volume.db_data RegionOne/db-data
