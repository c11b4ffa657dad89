terraform {
  required_providers {
    unikorn = {
      source = "unikorn-cloud/unikorn"
    }
  }
}

# Credentials come from clouds.yaml, exactly as for the `openstack` CLI
# (OS_CLOUD / OS_CLIENT_CONFIG_FILE work too). Arguments override the file.
provider "unikorn" {
  cloud       = "unikorn"
  clouds_yaml = "~/.config/openstack/clouds.yaml"

  # The managed Keystone domain that holds one project and user per identity.
  domain = "unikorn"

  # Every region this provider block serves; each is checked against the catalog.
  region  = "RegionOne"
  regions = ["RegionOne", "RegionTwo"]

  # Routers and floating IPs use the first external network with one of these tags.
  external_networks = { tags = ["public"] }

  # Every unikorn_network becomes a VLAN provider network on this physical network, with the
  # lowest segmentation ID that Neutron reports free in these ranges.
  provider_network = { physical_network = "physnet1", vlan_ranges = [{ start = 100, end = 199 }] }

  # Facts Nova does not know about its flavors, keyed by flavor ID; they enrich the
  # unikorn_flavors / unikorn_flavor data sources.
  flavors = [
    {
      id  = "3c5d8a5e-0000-4000-8000-00000000a100"
      cpu = { architecture = "x86_64", count = 32, family = "Intel Xeon Platinum 8480+" }
      gpu = { vendor = "NVIDIA", model = "H100", memory_gib = 80, physical_count = 1, logical_count = 1 }
    },
  ]

  # The Cinder volume types the volume class data sources offer, and what Cinder does not say
  # about them.
  volume_classes = {
    ids = ["4c0d6e1a-0000-4000-8000-0000000000c1", "8a9e2f3b-0000-4000-8000-0000000000c2"]
    metadata = [
      { id = "4c0d6e1a-0000-4000-8000-0000000000c1", media = "nvme", performance = "high", encrypted = true },
      { id = "8a9e2f3b-0000-4000-8000-0000000000c2", media = "hdd", performance = "standard" },
    ]
  }

  # Only images signed with this key (ECDSA, PEM) are offered by unikorn_images / unikorn_image.
  image_signing_key = file("${path.module}/image-signing-key.pem")
}
