package network

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// NewSecurityGroupLookup is the unikorn_security_group data source: one security group found by
// id or by name, shown as the resource shows it.
func NewSecurityGroupLookup() datasource.DataSource {
	r, _ := NewSecurityGroupResource().(*securityGroupResource) // always one: the unit test reads its kind

	l := tenantLookup[securityGroupModel, SecurityGroupSpec, SecurityGroup, *securityGroupModel]{
		noun: "security group",
		kind: r.kind,
		named: func(ctx context.Context, svc *Service, cloudName string) ([]string, error) {
			return svc.groupIn().named(ctx, cloudName)
		},
	}

	return adapter.NewLookup(adapter.Lookup[meta, securityGroupModel]{
		Kind: adapter.Kind{TypeName: "security_group", Noun: "security group"},
		Description: "Finds one existing Neutron security group and shows it as `unikorn_security_group` does " +
			"(its description and its rules, Neutron's default egress rules left out), without managing it: nothing " +
			"is created, changed or deleted. It refers to a group of another configuration, or one made by Unikorn's " +
			"region service.\n\n" +
			"**By name**: the group `securitygroup-<name>` (exact match) in the project of `identity_id` (an " +
			"identity's, Unikorn's included: `name` is then the Unikorn security group ID) or of `project_id` (a " +
			"`unikorn_project`'s), in `region` (default: the provider's). None, or two groups of that name, is an " +
			"error that says so and lists them.\n\n" +
			"**By id**: the Neutron ID, in whatever project it is (found through the provider's admin scope); " +
			"`identity_id` or `project_id`, when given, is checked. The group must be named " +
			"`securitygroup-<name>`.\n\n" +
			"The groups of a project are listed once per region and run, however many look-ups read them.",
		Resource: NewSecurityGroupResource,
		Regional: true,
		Scope:    []string{"identity_id", "project_id"},
		ByID:     l.byID,
		ByName:   l.byName,
	})
}
