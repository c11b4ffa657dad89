# The volume "db-data" of a team's identity, made by another Terraform state (Cinder's name
# volume-db-data), attached to a new server of this one.
data "unikorn_volume" "db_data" {
  identity_id = var.team_a_identity_id
  name        = "db-data"
}

resource "unikorn_server" "db" {
  identity_id = data.unikorn_volume.db_data.identity_id
  region      = data.unikorn_volume.db_data.region
  name        = "db-1"
  network_id  = var.team_a_network_id
  flavor_id   = var.flavor_id
  image_id    = var.image_id
  volumes     = [data.unikorn_volume.db_data.id]
}

# A volume by its ID, in whatever project and served region it is.
data "unikorn_volume" "scratch" {
  id = "0b7e6c1d-3f2a-4e5b-8c9d-1a2b3c4d5e6f"
}

output "scratch_size_gb" {
  value = data.unikorn_volume.scratch.size_gb
}
