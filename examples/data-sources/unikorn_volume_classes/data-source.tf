# The provider block says which Cinder volume types are offered and what the operator knows
# about them:
#
# provider "unikorn" {
#   volume_classes = {
#     ids = ["4c0d…", "8a9e…"]
#     metadata = [
#       { id = "4c0d…", media = "nvme", performance = "high", encrypted = true },
#       { id = "8a9e…", media = "hdd", performance = "standard" },
#     ]
#   }
# }

# Every encrypted volume class of the default region.
data "unikorn_volume_classes" "encrypted" {
  encrypted = true
}

output "encrypted_volume_classes" {
  value = { for c in data.unikorn_volume_classes.encrypted.volume_classes : c.name => "${c.media} (${c.performance})" }
}
