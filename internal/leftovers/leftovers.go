// Package leftovers is the one listing of the tenant objects a Keystone project still holds
// when it is to be deleted, in every served region, and their deletion in dependency order
// (force_destroy): shared by unikorn_identity and unikorn_project, whose destroys refuse while
// their project holds any, so that Keystone never orphans them. The project is acted on in
// the privileged scope (a tenant bound with cloud.Privileged per served region).
package leftovers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Kinds of tenant objects a project can still hold when it is deleted.
const (
	KindServer        = "server"
	KindLoadBalancer  = "load balancer"
	KindFloatingIP    = "floating IP"
	KindRouter        = "router"
	KindPort          = "port"
	KindNetwork       = "network"
	KindSecurityGroup = "security group"
	KindVolume        = "volume"
)

// defaultSecurityGroup is the group Neutron makes in every project on first use.
const defaultSecurityGroup = "default"

// Object is a tenant object still in a project.
type Object struct {
	Region string
	Kind   string
	ID     string
	Name   string
}

func (l Object) String() string {
	if l.Name == "" {
		return fmt.Sprintf("%s %s", l.Kind, l.ID)
	}

	return fmt.Sprintf("%s %q (%s)", l.Kind, l.Name, l.ID)
}

// Error refuses to delete a project that still holds tenant objects.
type Error struct {
	ProjectID string
	// Owner is the resource the project belongs to, named in the remedy ("identity", "project").
	Owner   string
	Objects []Object
	Forced  bool // set when force_destroy could not remove them all
}

func (e *Error) Error() string {
	var b strings.Builder

	if e.Forced {
		fmt.Fprintf(&b, "project %s still holds %d tenant object(s) after force_destroy tried to delete them:", e.ProjectID, len(e.Objects))
	} else {
		fmt.Fprintf(&b, "project %s still holds %d tenant object(s) that Keystone would orphan:", e.ProjectID, len(e.Objects))
	}

	region := ""

	for _, l := range e.Objects {
		if l.Region != region {
			region = l.Region
			fmt.Fprintf(&b, "\n  in region %s:", region)
		}

		fmt.Fprintf(&b, "\n    - %s", l)
	}

	if !e.Forced {
		fmt.Fprintf(&b, "\nDelete them first, or set force_destroy = true to delete them together with the %s.", e.Owner)
	}

	return b.String()
}

// Options say what Clear looks for and does.
type Options struct {
	// Owner is the resource the project belongs to, for messages ("identity", "project").
	Owner string
	// Force deletes what is found instead of refusing.
	Force bool
	// Volumes adds Cinder volumes to the kinds looked for (a human project's users make them).
	Volumes bool
}

// regionClients are the clients of one region of a tenant that the leftovers check needs.
type regionClients struct {
	region       string
	compute      *gophercloud.ServiceClient
	network      *gophercloud.ServiceClient
	loadBalancer *gophercloud.ServiceClient
	blockStorage *gophercloud.ServiceClient // nil unless volumes are looked for
}

func clientsOf(t *cloud.Tenant, volumes bool) (regionClients, error) {
	rc := regionClients{region: t.Region()}

	var err error

	if rc.compute, err = t.Compute(); err != nil {
		return rc, err
	}

	if rc.network, err = t.Network(); err != nil {
		return rc, err
	}

	if rc.loadBalancer, err = t.LoadBalancer(); err != nil {
		return rc, err
	}

	if volumes {
		if rc.blockStorage, err = t.BlockStorage(); err != nil {
			return rc, err
		}
	}

	return rc, nil
}

// Clear looks for tenant objects in the project of priv (bound in every served region, in the
// privileged scope): it refuses with an *Error when there are any and opts.Force is false, and
// deletes them in dependency order when it is true.
func Clear(ctx context.Context, priv []*cloud.Tenant, opts Options) error {
	if len(priv) == 0 {
		return nil
	}

	projectID := priv[0].ProjectID()

	var all []Object

	perRegion := make([]regionClients, 0, len(priv))

	for _, t := range priv {
		rc, err := clientsOf(t, opts.Volumes)
		if err != nil {
			return err
		}

		perRegion = append(perRegion, rc)

		found, err := find(ctx, rc, projectID)
		if err != nil {
			return err
		}

		all = append(all, found...)
	}

	if len(all) == 0 {
		return nil
	}

	if !opts.Force {
		return &Error{ProjectID: projectID, Owner: opts.Owner, Objects: all}
	}

	tflog.Info(ctx, "force_destroy: deleting the tenant objects left in the "+opts.Owner+"'s project", map[string]any{"count": len(all)})

	var remaining []Object

	for i, rc := range perRegion {
		priv[i].WroteEverything() // no per-run listing answers for the project's objects any more

		if err := forceDelete(ctx, rc, projectID); err != nil {
			return fmt.Errorf("force_destroy in region %s: %w", rc.region, err)
		}

		found, err := find(ctx, rc, projectID)
		if err != nil {
			return err
		}

		remaining = append(remaining, found...)
	}

	if len(remaining) > 0 {
		return &Error{ProjectID: projectID, Owner: opts.Owner, Objects: remaining, Forced: true}
	}

	return nil
}

// find lists the tenant objects of projectID in one region: servers, load balancers, floating
// IPs, routers, networks, security groups other than Neutron's default, ports that belong to
// none of those (ports of servers, routers, DHCP and load balancers go with their owners) and,
// when rc has a Cinder client, volumes.
func find(ctx context.Context, rc regionClients, projectID string) ([]Object, error) {
	kinds := []func() ([]Object, error){
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.compute, projectID, KindServer, listServers,
				func(s servers.Server) (string, string, bool) { return s.ID, s.Name, true })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.loadBalancer, projectID, KindLoadBalancer, listLoadBalancers,
				func(lb loadbalancers.LoadBalancer) (string, string, bool) { return lb.ID, lb.Name, true })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.network, projectID, KindFloatingIP, listFloatingIPs,
				func(f floatingips.FloatingIP) (string, string, bool) { return f.ID, f.FloatingIP, true })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.network, projectID, KindRouter, listRouters,
				func(r routers.Router) (string, string, bool) { return r.ID, r.Name, true })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.network, projectID, KindNetwork, listNetworks,
				func(n networks.Network) (string, string, bool) { return n.ID, n.Name, true })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.network, projectID, KindSecurityGroup, listSecurityGroups,
				func(g groups.SecGroup) (string, string, bool) { return g.ID, g.Name, g.Name != defaultSecurityGroup })
		},
		func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.network, projectID, KindPort, listProjectPorts,
				func(p ports.Port) (string, string, bool) { return p.ID, p.Name, !ownedPort(p) })
		},
	}

	if rc.blockStorage != nil {
		kinds = append(kinds, func() ([]Object, error) {
			return objectsOf(ctx, rc, rc.blockStorage, projectID, KindVolume, listVolumes,
				func(v volumes.Volume) (string, string, bool) { return v.ID, v.Name, true })
		})
	}

	var out []Object

	for _, kind := range kinds {
		found, err := kind()
		if err != nil {
			return nil, err
		}

		out = append(out, found...)
	}

	return out, nil
}

// objectsOf lists the objects of projectID with list (through sc, one of rc's clients) and
// reports as leftovers of kind those that describe keeps, by ID and name.
func objectsOf[T any](ctx context.Context, rc regionClients, sc *gophercloud.ServiceClient, projectID, kind string,
	list func(context.Context, *gophercloud.ServiceClient, string) ([]T, error), describe func(T) (id, name string, keep bool),
) ([]Object, error) {
	all, err := list(ctx, sc, projectID)
	if err != nil {
		return nil, err
	}

	var out []Object

	for _, v := range all {
		if id, name, keep := describe(v); keep {
			out = append(out, Object{Region: rc.region, Kind: kind, ID: id, Name: name})
		}
	}

	return out, nil
}

// ownedPort tells whether a port goes away with its owner (server, router, DHCP, load
// balancer), so that it need not be listed on its own.
func ownedPort(p ports.Port) bool {
	for _, prefix := range []string{"compute:", "network:", "Octavia", "neutron:LOADBALANCER"} {
		if strings.HasPrefix(p.DeviceOwner, prefix) {
			return true
		}
	}

	return false
}

// The listers below filter by project on the server (an admin sees every project's objects
// otherwise) and again on the client.

// listOwned lists with pager and drops what foreign says belongs to another project.
func listOwned[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error), what string,
	foreign func(T) bool,
) ([]T, error) {
	all, err := cloud.ListAll(ctx, pager, extract, what)
	if err != nil {
		return nil, err
	}

	return slices.DeleteFunc(all, foreign), nil
}

func listServers(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]servers.Server, error) {
	return listOwned(ctx, servers.List(sc, servers.ListOpts{}), servers.ExtractServers, "servers",
		func(s servers.Server) bool { return s.TenantID != "" && s.TenantID != projectID })
}

func listLoadBalancers(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]loadbalancers.LoadBalancer, error) {
	return listOwned(ctx, loadbalancers.List(sc, loadbalancers.ListOpts{ProjectID: projectID}), loadbalancers.ExtractLoadBalancers, "load balancers",
		func(lb loadbalancers.LoadBalancer) bool {
			return lb.ProjectID != projectID || lb.ProvisioningStatus == "DELETED"
		})
}

func listFloatingIPs(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]floatingips.FloatingIP, error) {
	return listOwned(ctx, floatingips.List(sc, floatingips.ListOpts{ProjectID: projectID}), floatingips.ExtractFloatingIPs, "floating IPs",
		func(f floatingips.FloatingIP) bool {
			return cmp.Or(f.ProjectID, f.TenantID) != projectID
		})
}

func listRouters(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]routers.Router, error) {
	return listOwned(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID}), routers.ExtractRouters, "routers",
		func(r routers.Router) bool {
			return cmp.Or(r.ProjectID, r.TenantID) != projectID
		})
}

func listNetworks(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]networks.Network, error) {
	return listOwned(ctx, networks.List(sc, networks.ListOpts{ProjectID: projectID}), networks.ExtractNetworks, "networks",
		func(n networks.Network) bool {
			return cmp.Or(n.ProjectID, n.TenantID) != projectID
		})
}

func listSecurityGroups(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]groups.SecGroup, error) {
	return listOwned(ctx, groups.List(sc, groups.ListOpts{ProjectID: projectID}), groups.ExtractGroups, "security groups",
		func(g groups.SecGroup) bool {
			return cmp.Or(g.ProjectID, g.TenantID) != projectID
		})
}

// listVolumes lists the volumes of projectID: the privileged scope's token is scoped to the
// project, so Cinder lists that project's own (an admin's answer names their project too).
func listVolumes(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]volumes.Volume, error) {
	return listOwned(ctx, volumes.List(sc, volumes.ListOpts{}), volumes.ExtractVolumes, "volumes",
		func(v volumes.Volume) bool { return v.TenantID != "" && v.TenantID != projectID })
}

// listProjectPorts lists the ports of projectID.
func listProjectPorts(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]ports.Port, error) {
	return listPorts(ctx, sc, projectID, "")
}

// listPorts lists the ports of projectID, or of device deviceID.
func listPorts(ctx context.Context, sc *gophercloud.ServiceClient, projectID, deviceID string) ([]ports.Port, error) {
	return listOwned(ctx, ports.List(sc, ports.ListOpts{ProjectID: projectID, DeviceID: deviceID}), ports.ExtractPorts, "ports",
		func(p ports.Port) bool {
			return (projectID != "" && cmp.Or(p.ProjectID, p.TenantID) != projectID) || (deviceID != "" && p.DeviceID != deviceID)
		})
}
