# A flavor by name: exactly one must match.
data "unikorn_flavor" "small" {
  name = "m1.small"
}

# The cheapest virtual x86_64 flavor with at least 4 CPUs and 8 GiB of memory.
data "unikorn_flavor" "worker" {
  architecture   = "x86_64"
  baremetal      = false
  min_cpus       = 4
  min_memory_gib = 8
  smallest       = true
}

output "worker_flavor" {
  value = "${data.unikorn_flavor.worker.flavor.name} (${data.unikorn_flavor.worker.id})"
}
