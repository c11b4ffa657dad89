# The provider block describes what Nova does not know about the flavors, and may restrict
# the data sources to an allow-list:
#
# provider "unikorn" {
#   flavor_ids = ["5a1f…", "9c2e…"]
#   flavors = [
#     {
#       id         = "9c2e…"
#       baremetal  = true
#       cpu        = { architecture = "x86_64", count = 64, family = "AMD EPYC Genoa" }
#       memory_gib = 512
#       gpu        = { vendor = "NVIDIA", model = "H100", memory_gib = 80, physical_count = 8 }
#     },
#   ]
# }

# Every flavor with at least one NVIDIA GPU and 64 GiB of memory, sorted by name.
data "unikorn_flavors" "gpu" {
  gpu_vendor     = "NVIDIA"
  min_gpus       = 1
  min_memory_gib = 64
}

# The aarch64 flavors of another region.
data "unikorn_flavors" "arm" {
  region       = "RegionTwo"
  architecture = "aarch64"
}

output "gpu_flavors" {
  value = { for f in data.unikorn_flavors.gpu.flavors : f.name => "${f.gpu.physical_count}x ${f.gpu.model}, ${f.cpus} CPUs, ${f.memory_gib} GiB" }
}
