package acctest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/monitors"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the direct Octavia and Neutron checks of the unikorn_loadbalancer tests.
// They ask as the service user in its own project, an Octavia and Neutron admin on the local
// cloud, so they see every project's objects.

// lbWaitTimeout bounds the waits of the helpers below.
const lbWaitTimeout = 5 * time.Minute

// LoadBalancerClients are the admin Octavia and Neutron clients of region.
func LoadBalancerClients(t *testing.T, region string) (octavia, neutron *gophercloud.ServiceClient) {
	t.Helper()

	base := Client(t).Base()

	octavia, err := base.LoadBalancer(region)
	if err != nil {
		t.Fatalf("Octavia client of %s: %v", region, err)
	}

	neutron, err = base.Network(region)
	if err != nil {
		t.Fatalf("Neutron client of %s: %v", region, err)
	}

	return octavia, neutron
}

// LBSnapshot is a load balancer as Octavia and Neutron hold it, children keyed by name.
type LBSnapshot struct {
	LoadBalancer loadbalancers.LoadBalancer
	Listeners    map[string]listeners.Listener
	Pools        map[string]pools.Pool
	Members      map[string][]string // by pool name: "address:port", sorted
	// Weights are the members' weights, by pool name, then "address:port".
	Weights     map[string]map[string]int
	Monitors    map[string]monitors.Monitor
	FloatingIPs []floatingips.FloatingIP // on the VIP port
}

// LoadBalancerSnapshot reads load balancer id in region with all its children; nil when
// Octavia answers 404. A load balancer PENDING_UPDATE is read once that change is over: a
// create returns as soon as Octavia took its completion mark, whose tag change then runs for a
// moment (loadbalancer.complete), and a snapshot is of what the change leaves (its updated_at
// among it). Any other status is read as it is.
func LoadBalancerSnapshot(t *testing.T, region, id string) (*LBSnapshot, error) {
	t.Helper()

	ctx := context.Background()
	octavia, neutron := LoadBalancerClients(t, region)

	lb, err := loadbalancers.Get(ctx, octavia, id).Extract()
	if err == nil && lb.ProvisioningStatus == "PENDING_UPDATE" {
		wctx, cancel := context.WithTimeout(ctx, lbWaitTimeout)
		lb, err = pollLoadBalancer(wctx, octavia, id, false)

		cancel()
	}

	if gophercloud.ResponseCodeIs(err, 404) {
		return nil, nil
	}

	if err != nil {
		return nil, err
	}

	s := &LBSnapshot{
		LoadBalancer: *lb,
		Listeners:    map[string]listeners.Listener{},
		Pools:        map[string]pools.Pool{},
		Members:      map[string][]string{},
		Weights:      map[string]map[string]int{},
		Monitors:     map[string]monitors.Monitor{},
	}

	ls, err := AllPages(ctx, listeners.List(octavia, listeners.ListOpts{LoadbalancerID: id}), listeners.ExtractListeners)
	if err != nil {
		return nil, err
	}

	for _, l := range ls {
		s.Listeners[l.Name] = l
	}

	ps, err := AllPages(ctx, pools.List(octavia, pools.ListOpts{LoadbalancerID: id}), pools.ExtractPools)
	if err != nil {
		return nil, err
	}

	for _, p := range ps {
		s.Pools[p.Name] = p

		ms, err := AllPages(ctx, pools.ListMembers(octavia, p.ID, pools.ListMembersOpts{}), pools.ExtractMembers)
		if err != nil {
			return nil, err
		}

		members := []string{}
		s.Weights[p.Name] = map[string]int{}

		for _, m := range ms {
			members = append(members, fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort))
			s.Weights[p.Name][fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort)] = m.Weight
		}

		slices.Sort(members)
		s.Members[p.Name] = members

		if p.MonitorID != "" {
			m, err := monitors.Get(ctx, octavia, p.MonitorID).Extract()
			if err != nil {
				return nil, err
			}

			s.Monitors[m.Name] = *m
		}
	}

	if lb.VipPortID != "" {
		if s.FloatingIPs, err = AllPages(ctx, floatingips.List(neutron, floatingips.ListOpts{PortID: lb.VipPortID}), floatingips.ExtractFloatingIPs); err != nil {
			return nil, err
		}
	}

	return s, nil
}

// LoadBalancerFloatingIPs lists the floating IPs of every project whose address is address
// or whose description is lb-<name>.
func LoadBalancerFloatingIPs(t *testing.T, region, name, address string) ([]floatingips.FloatingIP, error) {
	t.Helper()

	ctx := context.Background()
	_, neutron := LoadBalancerClients(t, region)

	var out []floatingips.FloatingIP

	for _, opts := range []floatingips.ListOpts{{Description: naming.LoadBalancer(name)}, {FloatingIP: address}} {
		if opts.FloatingIP == "" && opts.Description == "" {
			continue
		}

		fips, err := AllPages(ctx, floatingips.List(neutron, opts), floatingips.ExtractFloatingIPs)
		if err != nil {
			return nil, err
		}

		for _, f := range fips {
			if (opts.Description != "" && f.Description == opts.Description) || (opts.FloatingIP != "" && f.FloatingIP == address) {
				out = append(out, f)
			}
		}
	}

	return out, nil
}

// CheckLoadBalancerDestroy is the CheckDestroy of unikorn_loadbalancer: for every load
// balancer in the state, Octavia answers 404 by ID, no load balancer lb-<name> is left in its
// project, and Neutron holds neither its floating IP (by address) nor one described
// lb-<name>.
func CheckLoadBalancerDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		ctx := context.Background()

		return EachOf(s, "unikorn_loadbalancer", func(a map[string]string) error {
			id, name, region := a["id"], a["name"], a["region"]
			octavia, _ := LoadBalancerClients(t, region)

			if lb, err := loadbalancers.Get(ctx, octavia, id).Extract(); !gophercloud.ResponseCodeIs(err, 404) {
				if err == nil && lb.ProvisioningStatus == "DELETED" {
					return nil
				}

				return fmt.Errorf("load balancer %s (%s) still exists (err %v)", name, id, err)
			}

			left, err := LoadBalancersNamed(t, region, a["identity_id"], naming.LoadBalancer(name))
			if err != nil {
				return err
			}

			if len(left) > 0 {
				return fmt.Errorf("a load balancer %s is left in project %s: %s", left[0].Name, left[0].ProjectID, left[0].ID)
			}

			fips, err := LoadBalancerFloatingIPs(t, region, name, a["public_ip_address"])
			if err != nil {
				return err
			}

			if len(fips) > 0 {
				return fmt.Errorf("load balancer %s: floating IP %s (%s) is left", name, fips[0].FloatingIP, fips[0].ID)
			}

			return nil
		})
	}
}

// LoadBalancersNamed lists the load balancers of project projectID in region whose name is
// exactly octaviaName (lb-<name>), those Octavia reports DELETED left out.
func LoadBalancersNamed(t *testing.T, region, projectID, octaviaName string) ([]loadbalancers.LoadBalancer, error) {
	t.Helper()

	octavia, _ := LoadBalancerClients(t, region)

	all, err := AllPages(context.Background(), loadbalancers.List(octavia, loadbalancers.ListOpts{Name: octaviaName, ProjectID: projectID}),
		loadbalancers.ExtractLoadBalancers)
	if err != nil {
		return nil, err
	}

	return slices.DeleteFunc(naming.Exact(all, octaviaName, func(lb loadbalancers.LoadBalancer) string { return lb.Name }),
		func(lb loadbalancers.LoadBalancer) bool {
			return lb.ProjectID != projectID || lb.ProvisioningStatus == "DELETED"
		}), nil
}

// AllPages reads every page of a listing and extracts its items.
func AllPages[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error)) ([]T, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, err
	}

	return extract(pages)
}

// identityOctavia is the Octavia client of region in the identity scope of projectID (acting
// as the identity's user, as the provider does).
func identityOctavia(t *testing.T, projectID, region string) *gophercloud.ServiceClient {
	t.Helper()

	sess, err := Client(t).Identity(context.Background(), projectID)
	if err != nil {
		t.Fatalf("identity scope of %s: %v", projectID, err)
	}

	sc, err := sess.LoadBalancer(region)
	if err != nil {
		t.Fatalf("Octavia client of %s: %v", region, err)
	}

	return sc
}

// CreateRawLoadBalancers creates, in the identity project projectID, one bare load balancer
// (no listeners) per name with its VIP on subnetID, as the identity's user, waits until all
// are ACTIVE and returns their IDs. A cleanup deletes those still there when the test ends.
func CreateRawLoadBalancers(t *testing.T, projectID, region, subnetID string, names ...string) []string {
	t.Helper()

	return createLoadBalancers(t, identityOctavia(t, projectID, region), region, subnetID, names...)
}

// createLoadBalancers creates, through octavia, one bare load balancer per name with its VIP
// on subnetID, waits until all are ACTIVE and returns their IDs; a cleanup deletes those
// still there when the test ends.
func createLoadBalancers(t *testing.T, octavia *gophercloud.ServiceClient, region, subnetID string, names ...string) []string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	ids := make([]string, 0, len(names))

	for _, name := range names {
		lb, err := loadbalancers.Create(ctx, octavia, loadbalancers.CreateOpts{Name: name, VipSubnetID: subnetID}).Extract()
		if err != nil {
			t.Fatalf("creating load balancer %s: %v", name, err)
		}

		ids = append(ids, lb.ID)

		t.Cleanup(func() { DeleteLoadBalancerOutOfBand(t, region, lb.ID) })
	}

	for _, id := range ids {
		if err := waitLoadBalancer(ctx, octavia, id, false); err != nil {
			t.Fatalf("waiting for load balancer %s: %v", id, err)
		}
	}

	return ids
}

// DeleteLoadBalancerOutOfBand deletes load balancer id (cascade, as an admin) and waits until
// it is gone. A load balancer already gone is fine.
func DeleteLoadBalancerOutOfBand(t *testing.T, region, id string) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	octavia, _ := LoadBalancerClients(t, region)

	if err := waitLoadBalancer(ctx, octavia, id, false); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
		t.Errorf("waiting to delete load balancer %s: %v", id, err)
	}

	err := loadbalancers.Delete(ctx, octavia, id, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
	if gophercloud.ResponseCodeIs(err, 404) {
		return
	}

	if err != nil {
		t.Errorf("deleting load balancer %s: %v", id, err)
		return
	}

	if err := waitLoadBalancer(ctx, octavia, id, true); err != nil {
		t.Errorf("waiting for load balancer %s to be gone: %v", id, err)
	}
}

// ChangeLoadBalancerOutOfBand runs change (with the admin Octavia client) and waits until
// load balancer id is ACTIVE again.
func ChangeLoadBalancerOutOfBand(t *testing.T, region, id string, change func(ctx context.Context, octavia *gophercloud.ServiceClient) error) error {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	octavia, _ := LoadBalancerClients(t, region)

	if err := waitLoadBalancer(ctx, octavia, id, false); err != nil {
		return err
	}

	if err := change(ctx, octavia); err != nil {
		return err
	}

	return waitLoadBalancer(ctx, octavia, id, false)
}

// waitLoadBalancer waits for ACTIVE, or (gone) for a 404.
func waitLoadBalancer(ctx context.Context, octavia *gophercloud.ServiceClient, id string, gone bool) error {
	_, err := pollLoadBalancer(ctx, octavia, id, gone)

	return err
}

// pollLoadBalancer is waitLoadBalancer returning the load balancer as last read (nil when gone).
func pollLoadBalancer(ctx context.Context, octavia *gophercloud.ServiceClient, id string, gone bool) (*loadbalancers.LoadBalancer, error) {
	spec := cloud.PollSpec{
		Pending:     []string{"PENDING_CREATE", "PENDING_UPDATE", "PENDING_DELETE"},
		Target:      []string{"ACTIVE"},
		MinInterval: 200 * time.Millisecond,
		MaxInterval: 2 * time.Second,
	}

	if gone {
		spec.Pending = append(spec.Pending, "ACTIVE", "DELETED")
		spec.Target = nil
		spec.NotFoundIsTarget = true
	}

	return cloud.Poll(ctx, spec, func(ctx context.Context) (*loadbalancers.LoadBalancer, string, string, error) {
		lb, err := loadbalancers.Get(ctx, octavia, id).Extract()
		if err != nil {
			return nil, "", "", err
		}

		return lb, lb.ProvisioningStatus, "", nil
	})
}

// AwaitLoadBalancerListed waits, for at most limit, until Octavia lists a load balancer of the
// exact Octavia name in the project (a create whose answer was lost may still be in flight);
// when none comes, it logs so and returns.
func AwaitLoadBalancerListed(t *testing.T, region, projectID, octaviaName string, limit time.Duration) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()

	spec := cloud.PollSpec{Pending: []string{"absent"}, Target: []string{"listed"}, MinInterval: time.Second, MaxInterval: 2 * time.Second}

	_, err := cloud.Poll(ctx, spec, func(context.Context) (struct{}, string, string, error) {
		found, err := LoadBalancersNamed(t, region, projectID, octaviaName)
		if err != nil || len(found) == 0 {
			return struct{}{}, "absent", "", err
		}

		return struct{}{}, "listed", "", nil
	})

	var timeout *cloud.WaitTimeoutError

	switch {
	case errors.As(err, &timeout):
		t.Logf("no load balancer named %s after %s: the create never reached Octavia", octaviaName, limit)
	case err != nil:
		t.Fatalf("listing load balancers named %s: %v", octaviaName, err)
	}
}

// MembersString renders members as "address:port" joined by commas, sorted, for messages.
func MembersString(members []string) string {
	return strings.Join(members, ",")
}
