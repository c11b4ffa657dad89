package network

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// NewNetworkLookup is the unikorn_network data source: one network found by id or by name,
// shown as the resource shows it.
func NewNetworkLookup() datasource.DataSource {
	r, _ := NewNetworkResource().(*networkResource)
	l := tenantLookup[networkModel, Spec, Network, *networkModel]{
		noun: "network",
		kind: r.kind,
		named: func(ctx context.Context, svc *Service, cloudName string) ([]string, error) {
			nl, err := svc.networks(ctx)
			if err != nil {
				return nil, err
			}

			return nl.named(ctx, cloudName)
		},
	}

	return adapter.NewLookup(adapter.Lookup[meta, networkModel]{
		Kind: adapter.Kind{TypeName: "network", Noun: "network"},
		Description: "Finds one existing network (the Neutron network with its subnet and router) and shows it as " +
			"`unikorn_network` does, without managing it: nothing is created, changed or deleted. It refers to a " +
			"network of another configuration, or one made by Unikorn's region service.\n\n" +
			"**By name**: the network `network-<name>` (exact match) in the project of `identity_id` (an identity's, " +
			"Unikorn's included: `name` is then the Unikorn network ID) or of `project_id` (a `unikorn_project`'s), in " +
			"`region` (default: the provider's). None, or two networks of that name, is an error that says so and " +
			"lists them.\n\n" +
			"**By id**: the Neutron network ID, in whatever project it is (found through the provider's admin scope); " +
			"without `region`, every served region is searched, the provider's first. `identity_id` or `project_id`, " +
			"when given, is checked. The network must be named `network-<name>`.\n\n" +
			"The networks of a project are listed once per region and run, however many look-ups read them.",
		Resource: NewNetworkResource,
		Regional: true,
		Scope:    []string{"identity_id", "project_id"},
		ByID:     l.byID,
		ByName:   l.byName,
	})
}
