package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
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

// Kinds of tenant objects an identity's project can still hold when it is deleted.
const (
	KindServer        = "server"
	KindLoadBalancer  = "load balancer"
	KindFloatingIP    = "floating IP"
	KindRouter        = "router"
	KindPort          = "port"
	KindNetwork       = "network"
	KindSecurityGroup = "security group"
)

// defaultSecurityGroup is the group Neutron makes in every project on first use.
const defaultSecurityGroup = "default"

// Leftover is a tenant object still in an identity's project.
type Leftover struct {
	Region string
	Kind   string
	ID     string
	Name   string
}

func (l Leftover) String() string {
	if l.Name == "" {
		return fmt.Sprintf("%s %s", l.Kind, l.ID)
	}

	return fmt.Sprintf("%s %q (%s)", l.Kind, l.Name, l.ID)
}

// LeftoversError refuses to delete a project that still holds tenant objects.
type LeftoversError struct {
	ProjectID string
	Leftovers []Leftover
	Forced    bool // set when force_destroy could not remove them all
}

func (e *LeftoversError) Error() string {
	var b strings.Builder

	if e.Forced {
		fmt.Fprintf(&b, "project %s still holds %d tenant object(s) after force_destroy tried to delete them:", e.ProjectID, len(e.Leftovers))
	} else {
		fmt.Fprintf(&b, "project %s still holds %d tenant object(s) that Keystone would orphan:", e.ProjectID, len(e.Leftovers))
	}

	region := ""

	for _, l := range e.Leftovers {
		if l.Region != region {
			region = l.Region
			fmt.Fprintf(&b, "\n  in region %s:", region)
		}

		fmt.Fprintf(&b, "\n    - %s", l)
	}

	if !e.Forced {
		b.WriteString("\nDelete them first, or set force_destroy = true to delete them together with the identity.")
	}

	return b.String()
}

// regionClients are the clients of one region of a tenant that the leftovers check needs.
type regionClients struct {
	region       string
	compute      *gophercloud.ServiceClient
	network      *gophercloud.ServiceClient
	loadBalancer *gophercloud.ServiceClient
}

func clientsOf(t *cloud.Tenant) (regionClients, error) {
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

	return rc, nil
}

// clearTenantObjects looks for tenant objects in the identity's project in every served region
// (priv, in the privileged scope): it refuses with a *LeftoversError when there are any and
// force is false, and deletes them in dependency order when force is true.
func (s *Service) clearTenantObjects(ctx context.Context, priv []*cloud.Tenant, force bool) error {
	if len(priv) == 0 {
		return nil
	}

	projectID := priv[0].ProjectID()

	var all []Leftover

	perRegion := make([]regionClients, 0, len(priv))

	for _, t := range priv {
		rc, err := clientsOf(t)
		if err != nil {
			return err
		}

		perRegion = append(perRegion, rc)

		found, err := findLeftovers(ctx, rc, projectID)
		if err != nil {
			return err
		}

		all = append(all, found...)
	}

	if len(all) == 0 {
		return nil
	}

	if !force {
		return &LeftoversError{ProjectID: projectID, Leftovers: all}
	}

	tflog.Info(ctx, "force_destroy: deleting the tenant objects left in the identity's project", map[string]any{"count": len(all)})

	var remaining []Leftover

	for _, rc := range perRegion {
		if err := forceDeleteTenantObjects(ctx, rc, projectID); err != nil {
			return fmt.Errorf("force_destroy in region %s: %w", rc.region, err)
		}

		found, err := findLeftovers(ctx, rc, projectID)
		if err != nil {
			return err
		}

		remaining = append(remaining, found...)
	}

	if len(remaining) > 0 {
		return &LeftoversError{ProjectID: projectID, Leftovers: remaining, Forced: true}
	}

	return nil
}

// findLeftovers lists the tenant objects of projectID in one region: servers, load balancers,
// floating IPs, routers, networks, security groups other than Neutron's default, and ports
// that belong to none of those (ports of servers, routers, DHCP and load balancers go with
// their owners).
func findLeftovers(ctx context.Context, rc regionClients, projectID string) ([]Leftover, error) {
	kinds := []func() ([]Leftover, error){
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.compute, projectID, KindServer, listServers,
				func(s servers.Server) (string, string, bool) { return s.ID, s.Name, true })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.loadBalancer, projectID, KindLoadBalancer, listLoadBalancers,
				func(lb loadbalancers.LoadBalancer) (string, string, bool) { return lb.ID, lb.Name, true })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.network, projectID, KindFloatingIP, listFloatingIPs,
				func(f floatingips.FloatingIP) (string, string, bool) { return f.ID, f.FloatingIP, true })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.network, projectID, KindRouter, listRouters,
				func(r routers.Router) (string, string, bool) { return r.ID, r.Name, true })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.network, projectID, KindNetwork, listNetworks,
				func(n networks.Network) (string, string, bool) { return n.ID, n.Name, true })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.network, projectID, KindSecurityGroup, listSecurityGroups,
				func(g groups.SecGroup) (string, string, bool) { return g.ID, g.Name, g.Name != defaultSecurityGroup })
		},
		func() ([]Leftover, error) {
			return leftoversOf(ctx, rc, rc.network, projectID, KindPort, listProjectPorts,
				func(p ports.Port) (string, string, bool) { return p.ID, p.Name, !ownedPort(p) })
		},
	}

	var out []Leftover

	for _, kind := range kinds {
		found, err := kind()
		if err != nil {
			return nil, err
		}

		out = append(out, found...)
	}

	return out, nil
}

// leftoversOf lists the objects of projectID with list (through sc, one of rc's clients) and
// reports as leftovers of kind those that describe keeps, by ID and name.
func leftoversOf[T any](ctx context.Context, rc regionClients, sc *gophercloud.ServiceClient, projectID, kind string,
	list func(context.Context, *gophercloud.ServiceClient, string) ([]T, error), describe func(T) (id, name string, keep bool),
) ([]Leftover, error) {
	all, err := list(ctx, sc, projectID)
	if err != nil {
		return nil, err
	}

	var out []Leftover

	for _, v := range all {
		if id, name, keep := describe(v); keep {
			out = append(out, Leftover{Region: rc.region, Kind: kind, ID: id, Name: name})
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

// forceDeleteTenantObjects deletes what findLeftovers finds, in dependency order: load
// balancers (cascade) and servers, waiting until they are gone; floating IPs; routers with
// their interfaces; the remaining ports; networks; security groups other than default.
func forceDeleteTenantObjects(ctx context.Context, rc regionClients, projectID string) error {
	if _, err := deleteEach(ctx, rc.loadBalancer, projectID, listLoadBalancers,
		func(ctx context.Context, sc *gophercloud.ServiceClient, lb loadbalancers.LoadBalancer) error {
			return deleteLoadBalancer(ctx, sc, lb.ID)
		}); err != nil {
		return err
	}

	srvs, err := deleteEach(ctx, rc.compute, projectID, listServers,
		func(ctx context.Context, sc *gophercloud.ServiceClient, s servers.Server) error {
			return gone(servers.Delete(ctx, sc, s.ID).ExtractErr(), "deleting server %s", s.ID)
		})
	if err != nil {
		return err
	}

	for _, s := range srvs {
		id := s.ID

		if err := waitGone(ctx, func(ctx context.Context) error {
			return servers.Get(ctx, rc.compute, id).Err
		}); err != nil {
			return fmt.Errorf("waiting for server %s to be deleted: %w", id, err)
		}
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listFloatingIPs,
		func(ctx context.Context, sc *gophercloud.ServiceClient, f floatingips.FloatingIP) error {
			return gone(floatingips.Delete(ctx, sc, f.ID).ExtractErr(), "deleting floating IP %s", f.ID)
		}); err != nil {
		return err
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listRouters,
		func(ctx context.Context, sc *gophercloud.ServiceClient, r routers.Router) error {
			return deleteRouter(ctx, sc, projectID, r.ID)
		}); err != nil {
		return err
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listProjectPorts,
		func(ctx context.Context, sc *gophercloud.ServiceClient, p ports.Port) error {
			if p.DeviceOwner == "network:dhcp" {
				return nil // goes with its network
			}

			return gone(ports.Delete(ctx, sc, p.ID).ExtractErr(), "deleting port %s", p.ID)
		}); err != nil {
		return err
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listNetworks,
		func(ctx context.Context, sc *gophercloud.ServiceClient, n networks.Network) error {
			return gone(networks.Delete(ctx, sc, n.ID).ExtractErr(), "deleting network %s", n.ID)
		}); err != nil {
		return err
	}

	_, err = deleteEach(ctx, rc.network, projectID, listSecurityGroups, deleteSecurityGroup(false))

	return err
}

// deleteEach lists the objects of projectID with list and hands each to del, in order; it
// returns what it listed.
func deleteEach[T any](ctx context.Context, sc *gophercloud.ServiceClient, projectID string,
	list func(context.Context, *gophercloud.ServiceClient, string) ([]T, error),
	del func(context.Context, *gophercloud.ServiceClient, T) error,
) ([]T, error) {
	all, err := list(ctx, sc, projectID)
	if err != nil {
		return nil, err
	}

	for _, v := range all {
		if err := del(ctx, sc, v); err != nil {
			return nil, err
		}
	}

	return all, nil
}

// deleteSecurityGroup deletes a security group other than Neutron's default (the default
// only, with defaultGroup).
func deleteSecurityGroup(defaultGroup bool) func(context.Context, *gophercloud.ServiceClient, groups.SecGroup) error {
	return func(ctx context.Context, sc *gophercloud.ServiceClient, g groups.SecGroup) error {
		if (g.Name == defaultSecurityGroup) != defaultGroup {
			return nil
		}

		if err := gone(groups.Delete(ctx, sc, g.ID).ExtractErr(), "deleting security group %s (%q)", g.ID, g.Name); err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted a security group of the identity's project", map[string]any{"security_group_id": g.ID})

		return nil
	}
}

// deleteLoadBalancer waits for the load balancer to leave PENDING_* (Octavia refuses to
// delete it before), deletes it with its children and waits until it is gone.
func deleteLoadBalancer(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	lb, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending:     []string{"PENDING_CREATE", "PENDING_UPDATE"},
		Target:      []string{"ACTIVE", "ERROR", "PENDING_DELETE", "DELETED"},
		MinInterval: time.Second,
	}, func(ctx context.Context) (*loadbalancers.LoadBalancer, string, string, error) {
		lb, err := loadbalancers.Get(ctx, sc, id).Extract()
		if err != nil {
			return nil, "", "", err
		}

		return lb, lb.ProvisioningStatus, "", nil
	})

	switch {
	case errNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("waiting for load balancer %s to settle before deleting it: %w", id, err)
	}

	if lb != nil && lb.ProvisioningStatus != "PENDING_DELETE" && lb.ProvisioningStatus != "DELETED" {
		if err := gone(loadbalancers.Delete(ctx, sc, id, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr(),
			"deleting load balancer %s", id); err != nil {
			return err
		}
	}

	if err := waitGone(ctx, func(ctx context.Context) error {
		lb, err := loadbalancers.Get(ctx, sc, id).Extract()
		if err == nil && lb.ProvisioningStatus == "DELETED" {
			return gophercloud.ErrUnexpectedResponseCode{Actual: 404}
		}

		return err
	}); err != nil {
		return fmt.Errorf("waiting for load balancer %s to be deleted: %w", id, err)
	}

	return nil
}

// deleteRouter detaches the router's interfaces in projectID and deletes it (its gateway
// goes with it).
func deleteRouter(ctx context.Context, sc *gophercloud.ServiceClient, projectID, id string) error {
	prts, err := listPorts(ctx, sc, "", id)
	if err != nil {
		return err
	}

	for _, p := range prts {
		if !strings.HasPrefix(p.DeviceOwner, "network:router_interface") {
			continue
		}

		err := routers.RemoveInterface(ctx, sc, id, routers.RemoveInterfaceOpts{PortID: p.ID}).Err
		if err := gone(err, "detaching port %s from router %s", p.ID, id); err != nil {
			return err
		}
	}

	return gone(routers.Delete(ctx, sc, id).ExtractErr(), "deleting router %s of project %s", id, projectID)
}

// deleteDefaultSecurityGroups deletes Neutron's default security group(s) of projectID,
// which Keystone would otherwise orphan. Run it last: Neutron makes the group again on the
// project's next use.
func deleteDefaultSecurityGroups(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) error {
	_, err := deleteEach(ctx, sc, projectID, listSecurityGroups, deleteSecurityGroup(true))

	return err
}

// waitGone polls get until it answers 404, within ctx's deadline.
func waitGone(ctx context.Context, get func(context.Context) error) error {
	_, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending:          []string{"present"},
		NotFoundIsTarget: true,
		MinInterval:      time.Second,
		MaxInterval:      5 * time.Second,
	}, func(ctx context.Context) (struct{}, string, string, error) {
		if err := get(ctx); err != nil {
			return struct{}{}, "", "", err
		}

		return struct{}{}, "present", "", nil
	})

	return err
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
			return firstOf(f.ProjectID, f.TenantID) != projectID
		})
}

func listRouters(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]routers.Router, error) {
	return listOwned(ctx, routers.List(sc, routers.ListOpts{ProjectID: projectID}), routers.ExtractRouters, "routers",
		func(r routers.Router) bool {
			return firstOf(r.ProjectID, r.TenantID) != projectID
		})
}

func listNetworks(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]networks.Network, error) {
	return listOwned(ctx, networks.List(sc, networks.ListOpts{ProjectID: projectID}), networks.ExtractNetworks, "networks",
		func(n networks.Network) bool {
			return firstOf(n.ProjectID, n.TenantID) != projectID
		})
}

func listSecurityGroups(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]groups.SecGroup, error) {
	return listOwned(ctx, groups.List(sc, groups.ListOpts{ProjectID: projectID}), groups.ExtractGroups, "security groups",
		func(g groups.SecGroup) bool {
			return firstOf(g.ProjectID, g.TenantID) != projectID
		})
}

// listProjectPorts lists the ports of projectID.
func listProjectPorts(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) ([]ports.Port, error) {
	return listPorts(ctx, sc, projectID, "")
}

// listPorts lists the ports of projectID, or of device deviceID.
func listPorts(ctx context.Context, sc *gophercloud.ServiceClient, projectID, deviceID string) ([]ports.Port, error) {
	return listOwned(ctx, ports.List(sc, ports.ListOpts{ProjectID: projectID, DeviceID: deviceID}), ports.ExtractPorts, "ports",
		func(p ports.Port) bool {
			return (projectID != "" && firstOf(p.ProjectID, p.TenantID) != projectID) || (deviceID != "" && p.DeviceID != deviceID)
		})
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}

	return ""
}
