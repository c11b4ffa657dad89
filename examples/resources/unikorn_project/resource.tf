# A project for people in an SSO domain, with its group "research-members" bound to member,
# a named user bound to reader, and quotas in every region the provider serves.
resource "unikorn_project" "research" {
  name        = "research"
  domain_id   = unikorn_domain.acme.id
  description = "Research computing"
  tags        = ["cost-centre=42"]

  quotas = {
    compute = { instances = 20, cores = 64 }
    network = { floatingip = 5 }
  }

  role_bindings = [
    { role = "member", groups = ["research-members"] },
    { role = "reader", users = ["auditor"], groups = ["security-team"] },
  ]
}

# Networks and security groups live in it through project_id (servers and load balancers
# stay in identities).
resource "unikorn_network" "research" {
  project_id = unikorn_project.research.id
  name       = "research"
  cidr       = "10.10.0.0/24"
}
