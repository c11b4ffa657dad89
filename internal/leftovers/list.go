package leftovers

import (
	"context"
	"slices"

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

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

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
