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

# An organization image in Unikorn's shape: public, with unikorn:organization:id and
# Unikorn's provenance tags (written from organization_id), so that Unikorn lists it for the
# organization as it lists the images it imports itself. The image data sources return it
# only for the organization (organization_id), without a signature check. Without
# visibility = "public" it stays private: only this provider's data sources list it then.
resource "unikorn_image" "team_a" {
  name            = "team-a-ubuntu-24.04"
  source_url      = "https://images.example.com/team-a/ubuntu-24.04.raw"
  disk_format     = "raw"
  organization_id = "9a3c1e52-team-a"
  visibility      = "public"

  properties = {
    "unikorn:os:kernel"      = "linux"
    "unikorn:os:family"      = "debian"
    "unikorn:os:distro"      = "ubuntu"
    "unikorn:os:version"     = "24.04"
    "unikorn:virtualization" = "any"
    # What Unikorn's own import also writes (not checked by its schema).
    "architecture"     = "x86_64"
    "hw_disk_bus"      = "scsi"
    "hw_firmware_type" = "uefi"
    "hw_scsi_model"    = "virtio-scsi"
    "hw_machine_type"  = "q35"
  }
}

data "unikorn_images" "team_a" {
  organization_id = "9a3c1e52-team-a"
  depends_on      = [unikorn_image.team_a]
}
