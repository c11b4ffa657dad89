# Public Ubuntu 24.04 images with Kubernetes 1.30 or later that boot in a VM, oldest first.
# With the provider's image_signing_key set, only correctly signed images are returned.
data "unikorn_images" "kubernetes" {
  os_distro      = "ubuntu"
  os_version     = "24.04"
  package        = "kubernetes >= 1.30"
  virtualization = "virtualized"
  status         = "ready"
}

# GPU images for H100s, including the private images of one organization.
data "unikorn_images" "h100" {
  organization_id = "b6a1c9e0-0000-4000-8000-000000000001"
  gpu_vendor      = "NVIDIA"
  gpu_model       = "H100"
  tags            = { team = "ml" }
}

output "kubernetes_versions" {
  value = { for i in data.unikorn_images.kubernetes.images : i.id => i.packages["kubernetes"] }
}

# Images that match but were left out (schema or signature), with the reason why.
output "left_out" {
  value = data.unikorn_images.kubernetes.rejected
}
