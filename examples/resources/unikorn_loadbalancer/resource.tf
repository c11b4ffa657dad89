# A load balancer in front of the web tier: lb-web with its VIP on network-web, three
# listeners with their pools, members and monitors, and a floating IP on the VIP.
resource "unikorn_loadbalancer" "web" {
  identity_id = unikorn_identity.team_a.id
  network_id  = unikorn_network.web.id
  name        = "web"

  # A floating IP from the external network of network-web's router.
  public_ip = true

  listeners = [
    {
      # lb-web-https-listener, lb-web-https-pool (PROXYV2), lb-web-https-monitor (TCP).
      name                 = "https"
      protocol             = "TCP"
      port                 = 443
      proxy_protocol_v2    = true
      idle_timeout_seconds = 300
      allowed_cidrs        = ["0.0.0.0/0"]
      members = [
        { address = "10.0.0.10", port = 8443 },
        # Twice the share of the traffic of the other (weights are 0 to 256, default 1).
        { address = "10.0.0.11", port = 8443, weight = 2 },
      ]
      health_monitor = {
        interval_seconds    = 10
        timeout_seconds     = 5
        healthy_threshold   = 3
        unhealthy_threshold = 3
      }
    },
    {
      # A plain TCP pool without a monitor; only the office may connect.
      name          = "ssh"
      protocol      = "TCP"
      port          = 22
      allowed_cidrs = ["198.51.100.0/24"]
      members       = [{ address = "10.0.0.10", port = 22 }]
    },
    {
      # A UDP pool with a UDP-CONNECT monitor (default thresholds and timing).
      name           = "dns"
      protocol       = "UDP"
      port           = 53
      members        = [{ address = "10.0.0.12", port = 53 }]
      health_monitor = {}
    },
  ]

  timeouts = {
    create = "30m"
  }
}

# Members may come from servers: here every server of a count.
resource "unikorn_loadbalancer" "app" {
  identity_id = unikorn_identity.team_a.id
  network_id  = unikorn_network.web.id
  name        = "app"

  listeners = [{
    name     = "http"
    protocol = "TCP"
    port     = 80
    members  = [for s in unikorn_server.app : { address = s.private_ip, port = 8080 }]
  }]
}

output "web_address" {
  value = unikorn_loadbalancer.web.public_ip_address
}
