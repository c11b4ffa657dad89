// Package network is tenant networking: the unikorn_network resource (a Neutron network,
// IPv4 subnet, router and router interface, all named network-<name>), the
// unikorn_security_group resource (securitygroup-<name> with its rules reconciled as a set),
// the unikorn_external_networks data source, and the provider arguments external_networks
// and provider_network.
//
// The core (service.go, network.go, securitygroup.go, vlan.go, addressing.go, neutron.go)
// holds no Terraform types: it finds every object again by its exact name in the identity's
// project (the privileged scope of DESIGN.md §4), adopts what exists, never makes a twin,
// and derives VLAN segmentation IDs from what Neutron reports in use. The *_resource.go and
// *_data_source.go files map the framework's models onto it.
package network
