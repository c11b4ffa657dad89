package network

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Service is the Terraform-free core of tenant networking for one tenant (an identity's
// project in one region): networks (network + subnet + router + interface) and security
// groups. Networks and security groups are privileged-scope objects (DESIGN.md §4): the
// tenant is bound with cloud.Privileged.
type Service struct {
	sc     *gophercloud.ServiceClient
	tenant *cloud.Tenant
	cfg    *Config
}

// NewService is the core of tenant t, with the provider's networking configuration cfg.
func NewService(t *cloud.Tenant, cfg *Config) (*Service, error) {
	sc, err := t.Network()
	if err != nil {
		return nil, fmt.Errorf("the Neutron client of %s: %w", t, err)
	}

	return newService(sc, cfg, t), nil
}

// newService builds a Service on a Neutron client (tests point it at a fake).
func newService(sc *gophercloud.ServiceClient, cfg *Config, t *cloud.Tenant) *Service {
	if cfg == nil {
		cfg = NewConfig(ExternalNetworkSelector{}, nil)
	}

	return &Service{sc: sc, tenant: t, cfg: cfg}
}

// adminNetwork is the Neutron client of the admin scope (cloud.Admin) of the service's tenant;
// the service's own client when it has no cloud behind it (unit tests on a fake Neutron).
func (s *Service) adminNetwork(ctx context.Context) (*gophercloud.ServiceClient, error) {
	if s.tenant == nil || s.tenant.Session() == nil {
		return s.sc, nil
	}

	t, err := s.tenant.As(ctx, cloud.Admin)
	if err != nil {
		return nil, err
	}

	return t.Network()
}

// ProjectID is the identity project the service works in.
func (s *Service) ProjectID() string { return s.tenant.ProjectID() }

// Region is the region the service works in.
func (s *Service) Region() string { return s.tenant.Region() }

// Tenant is the tenant the service works for.
func (s *Service) Tenant() *cloud.Tenant { return s.tenant }

// deref is what an Extract answered, or the zero value and the error as an *APIError.
func deref[T any](v *T, err error) (T, error) {
	if err != nil || v == nil {
		var zero T
		return zero, apiError(err)
	}

	return *v, nil
}

// The lookups of this package's objects through sc; projectID "" means every project the
// client can see (import).

func networkLookup(sc *gophercloud.ServiceClient, projectID string) lookup[neutronNetwork] {
	return lookup[neutronNetwork]{
		kind: kindNetwork,
		get:  func(ctx context.Context, id string) (neutronNetwork, error) { return getNetwork(ctx, sc, id) },
		list: func(ctx context.Context, name string) ([]neutronNetwork, error) {
			return listNetworks(ctx, sc, networks.ListOpts{Name: name, ProjectID: projectID})
		},
		name:    func(n neutronNetwork) string { return n.Name },
		id:      func(n neutronNetwork) string { return n.ID },
		created: func(n neutronNetwork) time.Time { return n.CreatedAt },
		remove:  func(ctx context.Context, id string) error { return apiError(networks.Delete(ctx, sc, id).ExtractErr()) },

		tags:        func(n neutronNetwork) []string { return n.Tags },
		description: func(n neutronNetwork) string { return n.Description },
	}
}

func subnetLookup(sc *gophercloud.ServiceClient, networkID string) lookup[subnets.Subnet] {
	return lookup[subnets.Subnet]{
		kind: kindSubnet,
		get: func(ctx context.Context, id string) (subnets.Subnet, error) {
			return deref(subnets.Get(ctx, sc, id).Extract())
		},
		list: func(ctx context.Context, name string) ([]subnets.Subnet, error) {
			return listAll(ctx, subnets.List(sc, subnets.ListOpts{Name: name, NetworkID: networkID}), subnets.ExtractSubnets)
		},
		name:    func(s subnets.Subnet) string { return s.Name },
		id:      func(s subnets.Subnet) string { return s.ID },
		belongs: func(s subnets.Subnet) bool { return s.NetworkID == networkID },
		created: func(s subnets.Subnet) time.Time { return s.CreatedAt },
		remove:  func(ctx context.Context, id string) error { return apiError(subnets.Delete(ctx, sc, id).ExtractErr()) },

		tags:        func(s subnets.Subnet) []string { return s.Tags },
		description: func(s subnets.Subnet) string { return s.Description },
	}
}

func routerLookup(sc *gophercloud.ServiceClient, projectID string) lookup[routers.Router] {
	return lookup[routers.Router]{
		kind: kindRouter,
		get: func(ctx context.Context, id string) (routers.Router, error) {
			return deref(routers.Get(ctx, sc, id).Extract())
		},
		list: func(ctx context.Context, name string) ([]routers.Router, error) {
			return listAll(ctx, routers.List(sc, routers.ListOpts{Name: name, ProjectID: projectID}), routers.ExtractRouters)
		},
		name:    func(r routers.Router) string { return r.Name },
		id:      func(r routers.Router) string { return r.ID },
		created: func(r routers.Router) time.Time { return r.CreatedAt },
		remove:  func(ctx context.Context, id string) error { return apiError(routers.Delete(ctx, sc, id).ExtractErr()) },

		tags:        func(r routers.Router) []string { return r.Tags },
		description: func(r routers.Router) string { return r.Description },
	}
}

// groupLookup finds security groups; one request either way, and the group comes with its rules.
func groupLookup(sc *gophercloud.ServiceClient, projectID string) lookup[groups.SecGroup] {
	return lookup[groups.SecGroup]{
		kind: kindSecurityGroup,
		get: func(ctx context.Context, id string) (groups.SecGroup, error) {
			return deref(groups.Get(ctx, sc, id).Extract())
		},
		list: func(ctx context.Context, name string) ([]groups.SecGroup, error) {
			return listAll(ctx, groups.List(sc, groups.ListOpts{Name: name, ProjectID: projectID}), groups.ExtractGroups)
		},
		name:    func(g groups.SecGroup) string { return g.Name },
		id:      func(g groups.SecGroup) string { return g.ID },
		created: func(g groups.SecGroup) time.Time { return g.CreatedAt },
		remove:  func(ctx context.Context, id string) error { return apiError(groups.Delete(ctx, sc, id).ExtractErr()) },

		tags:        func(g groups.SecGroup) []string { return g.Tags },
		description: func(g groups.SecGroup) string { return g.Description },
	}
}

// The lookups of the service's tenant read from the run's listing of their kind (inRun): the
// project's networks, subnets, routers and security groups are each listed once per run.

// subnetIn is the lookup of networkID's subnets.
func (s *Service) subnetIn(networkID string) lookup[subnets.Subnet] {
	return subnetLookup(s.sc, networkID).inRun(s.tenant, func(ctx context.Context) ([]subnets.Subnet, error) {
		return listAll(ctx, subnets.List(s.sc, subnets.ListOpts{ProjectID: s.ProjectID()}), subnets.ExtractSubnets)
	})
}

// routerIn is the lookup of the project's routers.
func (s *Service) routerIn() lookup[routers.Router] {
	return routerLookup(s.sc, s.ProjectID()).inRun(s.tenant, func(ctx context.Context) ([]routers.Router, error) {
		return listRouters(ctx, s.sc, s.ProjectID())
	})
}

// wroteNetwork records, for the run's listings, a write of every part of network name at ref.
func (s *Service) wroteNetwork(name string, ref Ref) {
	s.tenant.Wrote(kindNetwork, ref.NetworkID, naming.Network(name))
	s.tenant.Wrote(kindSubnet, ref.SubnetID, naming.Subnet(name))
	s.tenant.Wrote(kindRouter, ref.RouterID, naming.Router(name))
	s.tenant.Wrote(PortKind, OnDeviceKey(ref.RouterID), OnNetworkKey(ref.NetworkID))
}

// listRouters lists the routers of projectID.
func listRouters(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]routers.Router, error) {
	return listAll(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID}), routers.ExtractRouters)
}

// groupIn is the lookup of the project's security groups (each listed with its rules).
func (s *Service) groupIn() lookup[groups.SecGroup] {
	return groupLookup(s.sc, s.ProjectID()).inRun(s.tenant, func(ctx context.Context) ([]groups.SecGroup, error) {
		return listAll(ctx, groups.List(s.sc, groups.ListOpts{ProjectID: s.ProjectID()}), groups.ExtractGroups)
	})
}

// locate finds, for an import, the object given by ID or by user-given name (the Neutron
// name is prefix+name) in region, across every project the provider's configured scope (an
// admin one) can see.
func locate[T any](ctx context.Context, c *cloud.Client, region, prefix, idOrName string,
	lookupOf func(*gophercloud.ServiceClient) lookup[T], projectOf func(T) string,
) (cloud.Located, error) {
	sc, err := c.Base().Network(region)
	if err != nil {
		return cloud.Located{}, err
	}

	l := lookupOf(sc)

	toLocated := func(obj T) (cloud.Located, error) {
		user, ok := strings.CutPrefix(l.name(obj), prefix)
		if !ok || user == "" {
			return cloud.Located{}, fmt.Errorf("%s %s is called %q, which is not of the form %s<name>: it is not managed by this provider",
				l.kind, l.id(obj), l.name(obj), prefix)
		}

		loc := cloud.Located{ID: l.id(obj), Name: user, ProjectID: projectOf(obj)}

		// An identity's project (checked as a tenant's is, once per run), else a
		// unikorn_project's; neither is left to Read's check of identity_id.
		if c.CheckIdentityProject(ctx, loc.ProjectID) != nil {
			loc.InProject = c.CheckHumanProject(ctx, loc.ProjectID) == nil
		}

		return loc, nil
	}

	if cloud.LooksLikeID(idOrName) {
		obj, err := l.get(ctx, idOrName)
		if err == nil {
			return toLocated(obj)
		}

		if !isNotFound(err) {
			return cloud.Located{}, fmt.Errorf("reading %s %s in region %s: %w", l.kind, idOrName, region, err)
		}
	}

	name := prefix + idOrName

	all, err := l.list(ctx, name)
	if err != nil {
		return cloud.Located{}, fmt.Errorf("looking up %s %s in region %s: %w", l.kind, name, region, err)
	}

	obj, ok, err := naming.One(l.kind, name, all, l.name, func(o T) string { return l.id(o) + " (project " + projectOf(o) + ")" })
	if err != nil {
		return cloud.Located{}, fmt.Errorf("%w: import it by ID instead", err)
	}

	if !ok {
		return cloud.Located{}, cloud.NotLocated(l.kind, idOrName, region)
	}

	return toLocated(obj)
}

// LocateNetwork finds, for an import, the network given by ID or by user-given name in
// region, in whatever project it is (through the provider's configured scope, which must be
// able to see every project's networks, as an admin's can).
func LocateNetwork(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	return locate(ctx, c, region, naming.NetworkPrefix, idOrName,
		func(sc *gophercloud.ServiceClient) lookup[neutronNetwork] { return networkLookup(sc, "") },
		func(n neutronNetwork) string { return n.ProjectID })
}

// LocateSecurityGroup finds, for an import, the security group given by ID or by user-given
// name in region, in whatever project it is (through the provider's configured scope).
func LocateSecurityGroup(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	return locate(ctx, c, region, naming.SecurityGroupPrefix, idOrName,
		func(sc *gophercloud.ServiceClient) lookup[groups.SecGroup] { return groupLookup(sc, "") },
		func(g groups.SecGroup) string { return g.ProjectID })
}
