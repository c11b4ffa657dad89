package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/config"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Object is one cloud object found by the checks. Floating IPs have no name: Name holds their
// description; trusts and members get a made-up name naming what they belong to.
type Object struct {
	Region  string // "" for Keystone
	Kind    string
	Name    string
	ID      string
	Project string
	// User is the trustor of a trust, the owner of an application credential.
	User string
}

func (o Object) String() string {
	where := o.Region
	if where == "" {
		where = "keystone"
	}

	return fmt.Sprintf("%s %s %q %s", where, o.Kind, o.Name, o.ID)
}

// Cloud asks OpenStack directly (never through the fault proxy) with the admin-capable
// service user of the local cloud, in every served region.
type Cloud struct {
	identity *gophercloud.ServiceClient
	regions  []string
}

// NewCloud authenticates as cloud (clouds.yaml file) and serves regions.
func NewCloud(ctx context.Context, file, cloud string, regions []string) (*Cloud, error) {
	ao, _, tlsConfig, err := clouds.Parse(clouds.WithLocations(file), clouds.WithCloudName(cloud))
	if err != nil {
		return nil, fmt.Errorf("reading cloud %s of %s: %w", cloud, file, err)
	}

	ao.AllowReauth = true

	pc, err := config.NewProviderClient(ctx, ao, config.WithTLSConfig(tlsConfig))
	if err != nil {
		return nil, fmt.Errorf("authenticating as cloud %s: %w", cloud, err)
	}

	id, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return nil, err
	}

	return &Cloud{identity: id, regions: regions}, nil
}

// listed turns one paged listing into Objects, keeping those keep accepts.
func listed[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error),
	conv func(T) Object, keep func(Object) bool,
) ([]Object, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, err
	}

	all, err := extract(pages)
	if err != nil {
		return nil, err
	}

	var out []Object

	for _, item := range all {
		if o := conv(item); keep(o) {
			out = append(out, o)
		}
	}

	return out, nil
}

// Scope is what one inventory looks for: every object whose name (or description) contains
// Name, and every object owned by one of Projects or Users (recorded earlier in the trial, so
// that objects of a deleted project are still found after destroy).
type Scope struct {
	Name     string
	Projects []string
	Users    []string
}

func (s Scope) keep(o Object) bool {
	return strings.Contains(o.Name, s.Name) ||
		(o.Project != "" && slices.Contains(s.Projects, o.Project)) ||
		(o.User != "" && slices.Contains(s.Users, o.User))
}

// Inventory lists every object of the kinds the reference stack makes, in Keystone and in
// every region, that falls in scope. It fails when any listing fails: a check that could not
// look is not a pass.
func (c *Cloud) Inventory(ctx context.Context, scope Scope) ([]Object, error) {
	var out []Object

	add := func(what string, objs []Object, err error) error {
		if err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}

		out = append(out, objs...)

		return nil
	}

	objs, err := listed(ctx, projects.List(c.identity, projects.ListOpts{}), projects.ExtractProjects,
		func(p projects.Project) Object {
			return Object{Kind: "project", Name: p.Name, ID: p.ID, Project: p.ID}
		}, scope.keep)
	if err := add("Keystone projects", objs, err); err != nil {
		return nil, err
	}

	userObjs, err := listed(ctx, users.List(c.identity, users.ListOpts{}), users.ExtractUsers,
		func(u users.User) Object { return Object{Kind: "user", Name: u.Name, ID: u.ID, User: u.ID} }, scope.keep)
	if err := add("Keystone users", userObjs, err); err != nil {
		return nil, err
	}

	userIDs := slices.Clone(scope.Users)
	userNames := map[string]string{}

	for _, u := range userObjs {
		userNames[u.ID] = u.Name
		if !slices.Contains(userIDs, u.ID) {
			userIDs = append(userIDs, u.ID)
		}
	}

	for _, uid := range userIDs {
		objs, err := listed(ctx, applicationcredentials.List(c.identity, uid, nil),
			applicationcredentials.ExtractApplicationCredentials,
			func(a applicationcredentials.ApplicationCredential) Object {
				return Object{Kind: "application credential", Name: a.Name, ID: a.ID, Project: a.ProjectID, User: uid}
			}, func(Object) bool { return true })
		if err != nil && gophercloud.ResponseCodeIs(err, 404) {
			continue // the user is gone, and its credentials with it
		}

		if err := add("application credentials of "+uid, objs, err); err != nil {
			return nil, err
		}
	}

	scope.Users = userIDs

	objs, err = listed(ctx, trusts.List(c.identity, trusts.ListOpts{}), trusts.ExtractTrusts,
		func(t trusts.Trust) Object {
			return Object{Kind: "trust", Name: "trust of " + userNames[t.TrustorUserID], ID: t.ID, Project: t.ProjectID, User: t.TrustorUserID}
		}, scope.keep)
	if err := add("Keystone trusts", objs, err); err != nil {
		return nil, err
	}

	for _, region := range c.regions {
		objs, err := c.regional(ctx, region, scope)
		if err != nil {
			return nil, err
		}

		out = append(out, objs...)
	}

	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })

	return out, nil
}

// regional lists the Neutron, Nova, Octavia and Cinder objects of one region in scope (a
// volume's attachments as objects of their own, named after the volume).
func (c *Cloud) regional(ctx context.Context, region string, scope Scope) ([]Object, error) {
	eo := gophercloud.EndpointOpts{Region: region}

	nc, err := openstack.NewNetworkV2(c.identity.ProviderClient, eo)
	if err != nil {
		return nil, err
	}

	cc, err := openstack.NewComputeV2(c.identity.ProviderClient, eo)
	if err != nil {
		return nil, err
	}

	lc, err := openstack.NewLoadBalancerV2(c.identity.ProviderClient, eo)
	if err != nil {
		return nil, err
	}

	bc, err := openstack.NewBlockStorageV3(c.identity.ProviderClient, eo)
	if err != nil {
		return nil, err
	}

	keep := scope.keep

	lists := []func() ([]Object, error){
		func() ([]Object, error) {
			return regionKind(ctx, region, "network", networks.List(nc, nil), networks.ExtractNetworks,
				func(n networks.Network) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "subnet", subnets.List(nc, nil), subnets.ExtractSubnets,
				func(n subnets.Subnet) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "router", routers.List(nc, routers.ListOpts{}), routers.ExtractRouters,
				func(n routers.Router) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "security group", groups.List(nc, groups.ListOpts{}), groups.ExtractGroups,
				func(n groups.SecGroup) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			// A port without a name (router interface, DHCP, VIP) is named by its owner.
			return regionKind(ctx, region, "port", ports.List(nc, nil), ports.ExtractPorts,
				func(n ports.Port) (string, string, string) {
					return cmp.Or(n.Name, "("+n.DeviceOwner+")"), n.ID, n.ProjectID
				}, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "floating IP", floatingips.List(nc, nil), floatingips.ExtractFloatingIPs,
				func(n floatingips.FloatingIP) (string, string, string) { return n.Description, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "server", servers.List(cc, servers.ListOpts{AllTenants: true}), servers.ExtractServers,
				func(n servers.Server) (string, string, string) { return n.Name, n.ID, n.TenantID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "server group", servergroups.List(cc, servergroups.ListOpts{AllProjects: true}),
				servergroups.ExtractServerGroups,
				func(n servergroups.ServerGroup) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "load balancer", loadbalancers.List(lc, nil), loadbalancers.ExtractLoadBalancers,
				func(n loadbalancers.LoadBalancer) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) {
			return regionKind(ctx, region, "listener", listeners.List(lc, nil), listeners.ExtractListeners,
				func(n listeners.Listener) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
		func() ([]Object, error) { return c.pools(ctx, lc, region, keep) },
		func() ([]Object, error) { return volumesOf(ctx, bc, region, keep) },
		func() ([]Object, error) {
			return regionKind(ctx, region, "health monitor", monitors.List(lc, nil), monitors.ExtractMonitors,
				func(n monitors.Monitor) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
		},
	}

	var out []Object

	for _, list := range lists {
		objs, err := list()
		if err != nil {
			return nil, err
		}

		out = append(out, objs...)
	}

	return out, nil
}

// regionKind lists the objects of one kind in region that keep accepts; fields reads an
// item's name, ID and project.
func regionKind[T any](ctx context.Context, region, kind string, pager pagination.Pager,
	extract func(pagination.Page) ([]T, error), fields func(T) (name, id, project string), keep func(Object) bool,
) ([]Object, error) {
	objs, err := listed(ctx, pager, extract, func(item T) Object {
		name, id, project := fields(item)

		return Object{Region: region, Kind: kind, Name: name, ID: id, Project: project}
	}, keep)
	if err != nil {
		return nil, fmt.Errorf("listing the %ss of %s: %w", kind, region, err)
	}

	return objs, nil
}

// pools lists the pools in scope and the members of each.
func (c *Cloud) pools(ctx context.Context, lc *gophercloud.ServiceClient, region string, keep func(Object) bool) ([]Object, error) {
	pls, err := regionKind(ctx, region, "pool", pools.List(lc, nil), pools.ExtractPools,
		func(n pools.Pool) (string, string, string) { return n.Name, n.ID, n.ProjectID }, keep)
	if err != nil {
		return nil, err
	}

	out := slices.Clone(pls)

	for _, pl := range pls {
		members, err := regionKind(ctx, region, "member", pools.ListMembers(lc, pl.ID, nil), pools.ExtractMembers,
			func(m pools.Member) (string, string, string) {
				return fmt.Sprintf("member of %s at %s:%d", pl.Name, m.Address, m.ProtocolPort), m.ID, m.ProjectID
			}, func(Object) bool { return true })
		if err != nil {
			return nil, err
		}

		out = append(out, members...)
	}

	return out, nil
}

// volumesOf lists the volumes of region in scope, each followed by its attachments.
func volumesOf(ctx context.Context, bc *gophercloud.ServiceClient, region string, keep func(Object) bool) ([]Object, error) {
	all, err := volumes.List(bc, volumes.ListOpts{AllTenants: true}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing volumes in %s: %w", region, err)
	}

	vols, err := volumes.ExtractVolumes(all)
	if err != nil {
		return nil, err
	}

	var out []Object

	for _, v := range vols {
		o := Object{Region: region, Kind: "volume", Name: v.Name, ID: v.ID, Project: v.TenantID}
		if !keep(o) {
			continue
		}

		out = append(out, o)

		for _, a := range v.Attachments {
			out = append(out, Object{Region: region, Kind: "attachment", Name: v.Name, ID: a.AttachmentID + " (server " + a.ServerID + ")", Project: v.TenantID})
		}
	}

	return out, nil
}

// Expected is what the reference stack named name makes, one object each, as "kind name"
// keys (see naming): the deterministic names the twin check counts.
func Expected(name string) []string {
	lb, pool := naming.LoadBalancer(name), naming.Pool(name, "http")

	return []string{
		"project " + naming.IdentityProject(name),
		"user " + naming.IdentityUser(name),
		"application credential " + naming.IdentityApplicationCredential(name),
		"trust trust of " + naming.IdentityUser(name),
		"network " + naming.Network(name),
		"subnet " + naming.Subnet(name),
		"router " + naming.Router(name),
		"security group " + naming.SecurityGroup(name),
		"port " + naming.ServerPort(name),
		"server " + naming.Server(name),
		"floating IP unikorn_server " + naming.ServerPort(name),
		"load balancer " + lb,
		"floating IP " + lb,
		"listener " + naming.Listener(name, "http"),
		"pool " + pool,
		"volume " + naming.Volume(name),
		"attachment " + naming.Volume(name),
	}
}

// Verdict is what the twin check found.
type Verdict struct {
	// Twins are the deterministic names carried by more than one object.
	Twins []string
	// Missing are the expected objects not found at all.
	Missing []string
	// Projects and Users are the trial's Keystone IDs, for the orphan check after destroy.
	Projects, Users []string
}

// Twins checks an inventory of a converged stack named name: exactly one object per
// deterministic name (objects whose name contains the trial's name), none missing.
func Twins(name string, inv []Object) Verdict {
	var v Verdict

	count := map[string][]string{}

	for _, o := range inv {
		switch o.Kind {
		case "project":
			v.Projects = append(v.Projects, o.ID)
		case "user":
			v.Users = append(v.Users, o.ID)
		}

		if !strings.Contains(o.Name, name) {
			continue
		}

		key := o.Kind + " " + o.Name
		count[key] = append(count[key], o.String())
	}

	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}

	sort.Strings(keys)

	for _, k := range keys {
		if len(count[k]) > 1 {
			v.Twins = append(v.Twins, fmt.Sprintf("%d× %s: %s", len(count[k]), k, strings.Join(count[k], ", ")))
		}
	}

	for _, k := range Expected(name) {
		if len(count[k]) == 0 {
			v.Missing = append(v.Missing, k)
		}
	}

	return v
}
