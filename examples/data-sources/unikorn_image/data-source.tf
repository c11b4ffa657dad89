# The newest ready Ubuntu 24.04 image with Kubernetes 1.31.
data "unikorn_image" "node" {
  os_distro   = "ubuntu"
  os_version  = "24.04"
  package     = "kubernetes ~1.31"
  status      = "ready"
  most_recent = true
}

output "node_image" {
  value = {
    id         = data.unikorn_image.node.id
    kubernetes = data.unikorn_image.node.image.packages["kubernetes"]
    size_gib   = data.unikorn_image.node.image.size_gib
  }
}
