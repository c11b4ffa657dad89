package network

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file is the one home of what every tenant object with a public address needs from
// Neutron: the external network a floating IP must come from, and the floating IPs the
// provider puts on a port. The server and load balancer cores call it with their tenant's
// Neutron client.

// RouterInterfaceOwners are the device owners of a router's port on a subnet.
var RouterInterfaceOwners = []string{
	"network:router_interface",
	"network:ha_router_replicated_interface",
	"network:router_interface_distributed",
}

// routerInterfaces lists the router interface ports of a network (device_owner repeated: any of them).
type routerInterfaces struct {
	networkID string
}

func (o routerInterfaces) ToPortListQuery() (string, error) {
	q := url.Values{"network_id": {o.networkID}, "device_owner": RouterInterfaceOwners}
	return "?" + q.Encode(), nil
}

// PortListing is the run's listing of a tenant's ports (cloud.Listing), shared by the cores
// that read ports: a port is found by its ID, its name, "device:<ID>" (the device it is
// attached to) and "network:<ID>". A write that makes, moves or removes a port records those
// keys (Tenant.Wrote with PortKind).
var PortListing = cloud.Listing[ports.Port]{
	Kind: PortKind,
	List: func(ctx context.Context, t *cloud.Tenant) ([]ports.Port, error) {
		sc, err := t.Network()
		if err != nil {
			return nil, err
		}

		return listAll(ctx, ports.List(sc, ports.ListOpts{ProjectID: t.ProjectID()}), ports.ExtractPorts)
	},
	Keys: func(p ports.Port) []string {
		return []string{p.ID, p.Name, OnDeviceKey(p.DeviceID), OnNetworkKey(p.NetworkID)}
	},
}

// PortKind is the kind of PortListing, for Tenant.Wrote.
const PortKind = "port"

// OnDeviceKey and OnNetworkKey are the keys of PortListing that find the ports on a device and
// on a network.
func OnDeviceKey(id string) string { return "device:" + id }

// OnNetworkKey: see OnDeviceKey.
func OnNetworkKey(id string) string { return "network:" + id }

// ExternalNetworkOf is the external network from which an address on networkID (on subnetID,
// when given) can get a floating IP: the gateway network of the router with an interface
// there. Neutron refuses a floating IP from any other external network. (The provider's
// external_networks selector chose it when the unikorn_network made the router, unless the
// network names another one.) With a tenant (nil: none) the router interfaces and the router are
// read from the run's listings of ports and routers.
func ExternalNetworkOf(ctx context.Context, sc *gophercloud.ServiceClient, t *cloud.Tenant, networkID, subnetID string) (string, error) {
	all, ok, err := PortListing.Find(ctx, t, OnNetworkKey(networkID))
	if err == nil && ok {
		all = slices.DeleteFunc(all, func(p ports.Port) bool { return !slices.Contains(RouterInterfaceOwners, p.DeviceOwner) })
	} else if err == nil {
		all, err = listAll(ctx, ports.List(sc, routerInterfaces{networkID: networkID}), ports.ExtractPorts)
	}

	if err != nil {
		return "", fmt.Errorf("listing the router interfaces of network %s: %w", networkID, err)
	}

	var checked []string

	routerOf := routerLookup(sc, "").inRun(t, func(ctx context.Context) ([]routers.Router, error) {
		return listRouters(ctx, sc, t.ProjectID())
	})

	for _, p := range all {
		if subnetID != "" && !slices.ContainsFunc(p.FixedIPs, func(ip ports.IP) bool { return ip.SubnetID == subnetID }) {
			continue
		}

		if slices.Contains(checked, p.DeviceID) {
			continue
		}

		checked = append(checked, p.DeviceID)

		r, err := routerOf.byID(ctx, p.DeviceID)
		if err != nil {
			return "", fmt.Errorf("reading router %s of network %s: %w", p.DeviceID, networkID, err)
		}

		if r.GatewayInfo.NetworkID != "" {
			return r.GatewayInfo.NetworkID, nil
		}
	}

	where := "network " + networkID
	if subnetID != "" {
		where = fmt.Sprintf("subnet %s of network %s", subnetID, networkID)
	}

	return "", fmt.Errorf("%s has no router with an external gateway, so it cannot have a public IP "+
		"(a unikorn_network always has one)", where)
}

// FloatingIP is a Neutron floating IP, as the tenant cores use it.
type FloatingIP struct {
	ID, Address, PortID, Description string
}

func toFloatingIP(f *floatingips.FloatingIP) FloatingIP {
	return FloatingIP{ID: f.ID, Address: f.FloatingIP, PortID: f.PortID, Description: f.Description}
}

// ListFloatingIPs lists the floating IPs of the client's project that match opts, by ID.
func ListFloatingIPs(ctx context.Context, sc *gophercloud.ServiceClient, opts floatingips.ListOpts) ([]FloatingIP, error) {
	all, err := listAll(ctx, floatingips.List(sc, opts), floatingips.ExtractFloatingIPs)
	if err != nil {
		return nil, fmt.Errorf("listing floating IPs: %w", err)
	}

	return floatingIPs(all), nil
}

func floatingIPs(all []floatingips.FloatingIP) []FloatingIP {
	out := make([]FloatingIP, len(all))
	for i := range all {
		out[i] = toFloatingIP(&all[i])
	}

	slices.SortFunc(out, func(a, b FloatingIP) int { return cmp.Compare(a.ID, b.ID) })

	return out
}

// floatingIPListing is the run's listing of a tenant's floating IPs: found by ID, by the port
// they are on ("port:<ID>", "port:" for none) and by their description ("description:<text>").
var floatingIPListing = cloud.Listing[floatingips.FloatingIP]{
	Kind: floatingIPKind,
	List: func(ctx context.Context, t *cloud.Tenant) ([]floatingips.FloatingIP, error) {
		sc, err := t.Network()
		if err != nil {
			return nil, err
		}

		return listAll(ctx, floatingips.List(sc, floatingips.ListOpts{ProjectID: t.ProjectID()}), floatingips.ExtractFloatingIPs)
	},
	Keys: func(f floatingips.FloatingIP) []string {
		return []string{f.ID, onPortKey(f.PortID), describedKey(f.Description)}
	},
}

const floatingIPKind = "floating IP"

func onPortKey(portID string) string { return "port:" + portID }

func describedKey(description string) string { return "description:" + description }

// FloatingIPsOn are the floating IPs of the project on portID, from the run's listing when
// there is one (t may be nil: none), else asked with sc.
func FloatingIPsOn(ctx context.Context, sc *gophercloud.ServiceClient, t *cloud.Tenant, projectID, portID string) ([]FloatingIP, error) {
	return findFloatingIPs(ctx, sc, t, onPortKey(portID), floatingips.ListOpts{PortID: portID, ProjectID: projectID})
}

// findFloatingIPs are the floating IPs that carry key in the run's listing, or (when it cannot
// answer) that opts lists.
func findFloatingIPs(ctx context.Context, sc *gophercloud.ServiceClient, t *cloud.Tenant, key string, opts floatingips.ListOpts) ([]FloatingIP, error) {
	all, ok, err := floatingIPListing.Find(ctx, t, key)

	switch {
	case err != nil:
		return nil, fmt.Errorf("listing floating IPs: %w", err)
	case ok:
		return floatingIPs(all), nil
	}

	return ListFloatingIPs(ctx, sc, opts)
}

// wroteFloatingIP records a write of floating IP f (and of the ports it leaves and goes to) for
// the run's listings.
func wroteFloatingIP(t *cloud.Tenant, f FloatingIP, toPort string) {
	t.Wrote(floatingIPKind, f.ID, onPortKey(f.PortID), onPortKey(toPort), describedKey(f.Description))
}

// PublicAddress says where a public address goes: the port, its network and subnet (for the
// external network), and the description that marks the floating IPs the provider makes for
// this object, so that only those are ever deleted or re-used.
type PublicAddress struct {
	// ProjectID is the identity's project: only its floating IPs are ever looked at (a token
	// with admin powers sees every project's).
	ProjectID                   string
	PortID, NetworkID, SubnetID string
	Description                 string
	// Tenant, when set, is the identity's project in its region as the provider binds it: the
	// reads come from the run's listings (issue 17) and the writes are recorded for them.
	Tenant *cloud.Tenant
}

// EnsureFloatingIP puts a floating IP on the port: the one already there, else one this
// provider made for the object that is on no port anymore (re-attached: a lost answer or an
// out-of-band port deletion never leaks one), else a new one from the external network of the
// port's router.
func EnsureFloatingIP(ctx context.Context, sc *gophercloud.ServiceClient, want PublicAddress) (*FloatingIP, error) {
	on, err := FloatingIPsOn(ctx, sc, want.Tenant, want.ProjectID, want.PortID)
	if err != nil {
		return nil, err
	}

	if len(on) > 0 {
		return &on[0], nil
	}

	orphans, err := orphanFloatingIPs(ctx, sc, want.Tenant, want.ProjectID, want.Description)
	if err != nil {
		return nil, err
	}

	if len(orphans) > 0 {
		port := want.PortID
		wroteFloatingIP(want.Tenant, orphans[0], port)

		f, err := floatingips.Update(ctx, sc, orphans[0].ID, floatingips.UpdateOpts{PortID: &port}).Extract()
		if err != nil {
			return nil, fmt.Errorf("attaching floating IP %s (%s) to port %s: %w", orphans[0].Address, orphans[0].ID, port, err)
		}

		fip := toFloatingIP(f)
		tflog.Info(ctx, "Re-attached a floating IP", map[string]any{"floating_ip_id": fip.ID, "port_id": port})

		return &fip, nil
	}

	external, err := ExternalNetworkOf(ctx, sc, want.Tenant, want.NetworkID, want.SubnetID)
	if err != nil {
		return nil, err
	}

	wroteFloatingIP(want.Tenant, FloatingIP{PortID: want.PortID, Description: want.Description}, "")

	fip, err := createFloatingIP(ctx, sc, want, external)
	wroteFloatingIP(want.Tenant, fip, "")
	if err != nil {
		return nil, fmt.Errorf("creating a floating IP on external network %s for port %s: %w", external, want.PortID, err)
	}

	tflog.Info(ctx, "Created a floating IP", map[string]any{"floating_ip_id": fip.ID, "address": fip.Address})

	return &fip, nil
}

// createFloatingIP makes the floating IP of want on external, through cloud.Create: an answer
// lost after Neutron acted is recovered by finding the floating IP with want's description on
// want's port. Neutron refuses a second floating IP on a port's address, so no twin can be made.
func createFloatingIP(ctx context.Context, sc *gophercloud.ServiceClient, want PublicAddress, external string) (FloatingIP, error) {
	opts := floatingips.CreateOpts{FloatingNetworkID: external, PortID: want.PortID, Description: want.Description}

	return cloud.Create(ctx, cloud.CreateSpec[FloatingIP]{
		Kind: "floating IP",
		Name: want.Description,
		Create: func(ctx context.Context) (FloatingIP, error) {
			f, err := floatingips.Create(ctx, sc, opts).Extract()
			if err != nil {
				return FloatingIP{}, err
			}

			return toFloatingIP(f), nil
		},
		Find: func(ctx context.Context) ([]FloatingIP, error) {
			on, err := ListFloatingIPs(ctx, sc, floatingips.ListOpts{PortID: want.PortID, ProjectID: want.ProjectID})

			return slices.DeleteFunc(on, func(f FloatingIP) bool { return f.Description != want.Description }), err
		},
		ID: func(f FloatingIP) string { return f.ID },
	})
}

// orphanFloatingIPs are the floating IPs of projectID marked with description that are on no port.
func orphanFloatingIPs(ctx context.Context, sc *gophercloud.ServiceClient, t *cloud.Tenant, projectID, description string) ([]FloatingIP, error) {
	fips, err := findFloatingIPs(ctx, sc, t, describedKey(description), floatingips.ListOpts{Description: description, ProjectID: projectID})
	if err != nil {
		return nil, err
	}

	return slices.DeleteFunc(fips, func(f FloatingIP) bool { return f.Description != description || f.PortID != "" }), nil
}

// RemoveFloatingIPs takes every floating IP off the port at (PortID may be empty: the port is
// gone) and deletes the ones marked with at.Description, on the port or on none; a floating IP
// somebody else attached is only detached. Only at.ProjectID's floating IPs are looked at.
// 404 is success.
func RemoveFloatingIPs(ctx context.Context, sc *gophercloud.ServiceClient, at PublicAddress) error {
	var fips []FloatingIP

	if at.PortID != "" {
		on, err := FloatingIPsOn(ctx, sc, at.Tenant, at.ProjectID, at.PortID)
		if err != nil {
			return err
		}

		fips = on
	}

	orphans, err := orphanFloatingIPs(ctx, sc, at.Tenant, at.ProjectID, at.Description)
	if err != nil {
		return err
	}

	for _, f := range orphans {
		if !slices.ContainsFunc(fips, func(g FloatingIP) bool { return g.ID == f.ID }) {
			fips = append(fips, f)
		}
	}

	for _, fip := range fips {
		wroteFloatingIP(at.Tenant, fip, "")

		if fip.Description == at.Description {
			err = floatingips.Delete(ctx, sc, fip.ID).ExtractErr()
		} else {
			empty := ""
			_, err = floatingips.Update(ctx, sc, fip.ID, floatingips.UpdateOpts{PortID: &empty}).Extract()
		}

		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return fmt.Errorf("removing floating IP %s (%s): %w", fip.Address, fip.ID, err)
		}

		tflog.Info(ctx, "Removed a floating IP", map[string]any{"floating_ip_id": fip.ID, "address": fip.Address})
	}

	return nil
}
