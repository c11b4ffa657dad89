# The one NVMe volume class of the high tier in RegionTwo (an error when none or several match).
data "unikorn_volume_class" "fast" {
  region      = "RegionTwo"
  media       = "nvme"
  performance = "high"
}

output "fast_volume_type" {
  value = data.unikorn_volume_class.fast.volume_class.name
}
