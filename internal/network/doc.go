// Package network is tenant networking: the unikorn_network resource (a Neutron network,
// IPv4 subnet, router and router interface, all named network-<name>), the
// unikorn_security_group resource (securitygroup-<name> with its rules reconciled as a set),
// the unikorn_external_networks data source, the provider arguments external_networks and
// provider_network, and the one home of router gateways and floating IPs that the server and
// load balancer cores call (gateway.go).
//
// The core (service.go, network.go, securitygroup.go, vlan.go, addressing.go, config.go,
// neutron.go, gateway.go) holds no Terraform types and talks to Neutron through typed
// gophercloud: it is bound to one tenant (a *cloud.Tenant in the privileged scope, DESIGN.md
// §4), finds every object again by its exact name in the identity's project, adopts only what
// an interrupted create of its resource type left unfinished (the ownership marks, ownership.go
// and marks.go) and refuses anything else, never makes a twin, and derives VLAN segmentation
// IDs from what Neutron reports in use. The framework files map the models onto it: resource.go is the CRUD both resources
// share (on the adapter kit), and each resource adds its schema (*_schema.go), its plan rules
// (*_resource.go) and its expand/flatten (*_flatten.go).
package network
