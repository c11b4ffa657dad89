# A data volume for a team's database, on the region's fast volume class.
data "unikorn_volume_class" "fast" {
  name = "fast"
}

resource "unikorn_volume" "db_data" {
  identity_id  = unikorn_identity.team_a.id
  name         = "db-data"
  size_gb      = 50 # grow it in place later; Cinder cannot shrink it
  volume_class = data.unikorn_volume_class.fast.id
  description  = "PostgreSQL data"
}

# A bootable volume made from an image.
data "unikorn_image" "ubuntu" {
  os_distro  = "ubuntu"
  os_version = "24.04"
}

resource "unikorn_volume" "root" {
  identity_id = unikorn_identity.team_a.id
  name        = "build-root"
  size_gb     = 20
  image_id    = data.unikorn_image.ubuntu.id
}
