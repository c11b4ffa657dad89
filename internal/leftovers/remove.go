package leftovers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// forceDelete deletes what find finds, in dependency order: load balancers (cascade) and
// servers, waiting until they are gone; volumes (with their snapshots) when rc has a Cinder
// client; floating IPs; routers with their interfaces; the remaining ports; networks; security
// groups other than default.
func forceDelete(ctx context.Context, rc regionClients, projectID string) error {
	if _, err := deleteEach(ctx, rc.loadBalancer, projectID, listLoadBalancers,
		func(ctx context.Context, sc *gophercloud.ServiceClient, lb loadbalancers.LoadBalancer) error {
			return deleteLoadBalancer(ctx, sc, lb.ID)
		}); err != nil {
		return err
	}

	srvs, err := deleteEach(ctx, rc.compute, projectID, listServers,
		func(ctx context.Context, sc *gophercloud.ServiceClient, s servers.Server) error {
			return cloud.Gone(servers.Delete(ctx, sc, s.ID).ExtractErr(), "deleting server %s", s.ID)
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

	if rc.blockStorage != nil {
		if err := deleteVolumes(ctx, rc.blockStorage, projectID); err != nil {
			return err
		}
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listFloatingIPs,
		func(ctx context.Context, sc *gophercloud.ServiceClient, f floatingips.FloatingIP) error {
			return cloud.Gone(floatingips.Delete(ctx, sc, f.ID).ExtractErr(), "deleting floating IP %s", f.ID)
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

			return cloud.Gone(ports.Delete(ctx, sc, p.ID).ExtractErr(), "deleting port %s", p.ID)
		}); err != nil {
		return err
	}

	if _, err := deleteEach(ctx, rc.network, projectID, listNetworks,
		func(ctx context.Context, sc *gophercloud.ServiceClient, n networks.Network) error {
			return cloud.Gone(networks.Delete(ctx, sc, n.ID).ExtractErr(), "deleting network %s", n.ID)
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

		if err := cloud.Gone(groups.Delete(ctx, sc, g.ID).ExtractErr(), "deleting security group %s (%q)", g.ID, g.Name); err != nil {
			return err
		}

		tflog.Debug(ctx, "Deleted a security group of the project", map[string]any{"security_group_id": g.ID})

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
		if err := cloud.Gone(loadbalancers.Delete(ctx, sc, id, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr(),
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
		if err := cloud.Gone(err, "detaching port %s from router %s", p.ID, id); err != nil {
			return err
		}
	}

	return cloud.Gone(routers.Delete(ctx, sc, id).ExtractErr(), "deleting router %s of project %s", id, projectID)
}

// Forget removes what the services still keep of the project of admin (bound in every served
// region in the admin scope) once its tenant objects are gone, which Keystone's delete would
// orphan: Neutron's default security groups (stock policy lets only admin delete them) and the
// quota records. Run it last, just before the project is deleted: Neutron makes the default
// group again on the project's next use.
func Forget(ctx context.Context, admin []*cloud.Tenant) error {
	if err := deleteDefaultSecurityGroupsIn(ctx, admin); err != nil {
		return err
	}

	return quota.Reset(ctx, admin)
}

// deleteDefaultSecurityGroupsIn deletes Neutron's default security group(s) of the project of
// admin in every region.
func deleteDefaultSecurityGroupsIn(ctx context.Context, admin []*cloud.Tenant) error {
	for _, t := range admin {
		network, err := t.Network()
		if err != nil {
			return err
		}

		if err := deleteDefaultSecurityGroups(ctx, network, t.ProjectID()); err != nil {
			return fmt.Errorf("region %s: %w", t.Region(),
				t.AdminRefusal("Neutron", "deleting the default security group of project "+t.ProjectID(), err))
		}
	}

	return nil
}

// deleteDefaultSecurityGroups deletes the default security group(s) of projectID through sc.
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

// deleteVolumes deletes the volumes of projectID with their snapshots and waits until they are
// gone (a volume still attached to a server is freed when the server goes, before this).
func deleteVolumes(ctx context.Context, sc *gophercloud.ServiceClient, projectID string) error {
	vols, err := deleteEach(ctx, sc, projectID, listVolumes,
		func(ctx context.Context, sc *gophercloud.ServiceClient, v volumes.Volume) error {
			return cloud.Gone(volumes.Delete(ctx, sc, v.ID, volumes.DeleteOpts{Cascade: true}).ExtractErr(), "deleting volume %s", v.ID)
		})
	if err != nil {
		return err
	}

	for _, v := range vols {
		id := v.ID

		if err := waitGone(ctx, func(ctx context.Context) error {
			return volumes.Get(ctx, sc, id).Err
		}); err != nil {
			return fmt.Errorf("waiting for volume %s to be deleted: %w", id, err)
		}
	}

	return nil
}

// errNotFound reports a 404.
func errNotFound(err error) bool {
	return err != nil && gophercloud.ResponseCodeIs(err, 404)
}
