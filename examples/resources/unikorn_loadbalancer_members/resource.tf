# The load balancer is made while the servers boot: its listener leaves `members` unset, so
# the members are given below, and only they wait for the servers' addresses.
resource "unikorn_loadbalancer" "app" {
  identity_id = unikorn_identity.team_a.id
  network_id  = unikorn_network.web.id
  name        = "app"

  listeners = [{
    name           = "http"
    protocol       = "TCP"
    port           = 80
    health_monitor = {}
    # no `members`: a unikorn_loadbalancer_members holds them (`members = []` would mean none)
  }]
}

# The members of the listener "http": one batch update of pool lb-app-http-pool.
resource "unikorn_loadbalancer_members" "app_http" {
  identity_id     = unikorn_identity.team_a.id
  loadbalancer_id = unikorn_loadbalancer.app.id
  listener        = "http"

  members = [for i, s in unikorn_server.app : {
    address = s.private_ip
    port    = 8080
    # The first server takes twice the share of the others (weights are 0 to 256, default 1).
    weight = i == 0 ? 2 : 1
  }]
}
