# A public flavor, seen by every project and by the unikorn_flavors / unikorn_flavor data
# sources. Its sizes cannot change in Nova: changing any of them replaces the flavor.
resource "unikorn_flavor" "general" {
  name      = "g.2c4g"
  flavor_id = "g.2c4g" # optional: Nova chooses a UUID when unset
  vcpus     = 2
  ram_mib   = 4096
  disk_gb   = 20

  # Converged in place: keys set out of band are removed on the next apply.
  extra_specs = {
    "hw:cpu_policy"    = "dedicated"
    "hw:mem_page_size" = "large"
  }
}

# A private flavor in another region, given to two projects (changed in place).
resource "unikorn_flavor" "gpu" {
  region       = "RegionTwo"
  name         = "gpu.a100"
  vcpus        = 16
  ram_mib      = 131072
  disk_gb      = 100
  ephemeral_gb = 200
  swap_mib     = 0
  is_public    = false

  access_project_ids = [
    unikorn_identity.team_a.id,
    unikorn_identity.team_b.id,
  ]

  extra_specs = {
    "resources:VGPU" = "1"
  }
}

# The data sources see the public flavor once it exists.
data "unikorn_flavor" "general" {
  name       = unikorn_flavor.general.name
  depends_on = [unikorn_flavor.general]
}
