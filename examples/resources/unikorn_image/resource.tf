# A region image imported by Glance's web-download from an HTTP(S) URL, with the Unikorn
# properties the image data sources read (checked against the Unikorn schema at plan time).
resource "unikorn_image" "ubuntu" {
  name        = "ubuntu-24.04-kubernetes-1.30"
  source_url  = "https://images.example.com/ubuntu-24.04-kubernetes-1.30.qcow2"
  disk_format = "qcow2"
  visibility  = "public"
  protected   = true
  min_disk_gb = 20
  min_ram_mib = 2048
  tags        = ["kubernetes"]

  properties = {
    "unikorn:os:kernel"          = "linux"
    "unikorn:os:family"          = "debian"
    "unikorn:os:distro"          = "ubuntu"
    "unikorn:os:version"         = "24.04"
    "unikorn:virtualization"     = "virtualized"
    "unikorn:package:kubernetes" = "v1.30.2"
    # With the provider's image_signing_key set, a public image must also carry in
    # unikorn:digest the signature of its image ID (known after the first apply).
    "hw_disk_bus" = "scsi"
  }

  timeouts = {
    create = "1h"
  }
}

# An organization image: private, and returned by the image data sources only for the
# organization (organization_id), without a signature check.
resource "unikorn_image" "team_a" {
  name            = "team-a-ubuntu-24.04"
  source_url      = "https://images.example.com/team-a/ubuntu-24.04.raw"
  disk_format     = "raw"
  organization_id = "9a3c1e52-team-a"

  properties = {
    "unikorn:os:kernel"      = "linux"
    "unikorn:os:family"      = "debian"
    "unikorn:os:distro"      = "ubuntu"
    "unikorn:os:version"     = "24.04"
    "unikorn:virtualization" = "any"
  }
}

data "unikorn_images" "team_a" {
  organization_id = "9a3c1e52-team-a"
  depends_on      = [unikorn_image.team_a]
}
