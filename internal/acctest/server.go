package acctest

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the helpers of the unikorn_server tests. Checks read the cloud as the
// service user in its own project (an admin scope on the local cloud, which sees every
// project's servers, ports and floating IPs), so they work whatever state the identity is in.

// ImageID is the ID of the one image called name in region.
func ImageID(t *testing.T, region, name string) string {
	t.Helper()

	sc := AdminGlance(t, region)

	return idOf(t, region, "image", name, images.List(sc, images.ListOpts{Name: name}), images.ExtractImages,
		func(i images.Image) (string, string) { return i.Name, i.ID })
}

// FlavorID is the ID of the one flavor called name in region.
func FlavorID(t *testing.T, region, name string) string {
	t.Helper()

	return idOf(t, region, "flavor", name, flavors.ListDetail(AdminCompute(t, region), flavors.ListOpts{AccessType: flavors.AllAccess}),
		flavors.ExtractFlavors, func(f flavors.Flavor) (string, string) { return f.Name, f.ID })
}

// idOf is the ID of the one object of kind called name that pager lists in region.
func idOf[T any](t *testing.T, region, kind, name string, pager pagination.Pager, extract func(pagination.Page) ([]T, error),
	nameID func(T) (string, string),
) string {
	t.Helper()

	all, err := AllPages(context.Background(), pager, extract)
	if err != nil {
		t.Fatalf("listing %ss called %s in %s: %v", kind, name, region, err)
	}

	nameOf := func(o T) string { n, _ := nameID(o); return n }

	o, ok, err := naming.One(kind, name, all, nameOf, func(o T) string { _, id := nameID(o); return id })
	if err != nil || !ok {
		t.Fatalf("%s %s in %s: found %v, %v", kind, name, region, ok, err)
	}

	_, id := nameID(o)

	return id
}

// AdminCompute is the Nova client of region in the configured (admin) scope.
func AdminCompute(t *testing.T, region string) *gophercloud.ServiceClient {
	t.Helper()

	return clientOf(t, "Nova", region, Client(t).Base().Compute)
}

// AdminNeutron is the Neutron client of region in the configured (admin) scope.
func AdminNeutron(t *testing.T, region string) *gophercloud.ServiceClient {
	t.Helper()

	return clientOf(t, "Neutron", region, Client(t).Base().Network)
}

// clientOf is the client of service in region that client hands out; it fails the test
// when there is none.
func clientOf(t *testing.T, service, region string, client func(region string) (*gophercloud.ServiceClient, error)) *gophercloud.ServiceClient {
	t.Helper()

	sc, err := client(region)
	if err != nil {
		t.Fatalf("%s client of %s: %v", service, region, err)
	}

	return sc
}

// Server reads server id in region from Nova (microversion cloud.ComputeMicroversion).
func Server(t *testing.T, region, id string) (*servers.Server, error) {
	t.Helper()

	return servers.Get(context.Background(), AdminCompute(t, region), id).Extract()
}

// Port reads port id in region from Neutron.
func Port(t *testing.T, region, id string) (*ports.Port, error) {
	t.Helper()

	return ports.Get(context.Background(), AdminNeutron(t, region), id).Extract()
}

// FloatingIPsOfPort lists the floating IPs on port id in region.
func FloatingIPsOfPort(t *testing.T, region, portID string) ([]floatingips.FloatingIP, error) {
	t.Helper()

	return AllPages(context.Background(), floatingips.List(AdminNeutron(t, region), floatingips.ListOpts{PortID: portID}),
		floatingips.ExtractFloatingIPs)
}

// CheckServerDestroy is the CheckDestroy of unikorn_server: for every server in the state it
// asks Nova that the server is gone, and Neutron that its port is gone (by ID and by the name
// server-<name> in its project) and that no floating IP is left on the port or made for it.
func CheckServerDestroy(t *testing.T) func(*terraform.State) error {
	return CheckEach("unikorn_server", func(a map[string]string) error {
		region, name, project := a["region"], a["name"], a["identity_id"]

		if _, err := Server(t, region, a["id"]); !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return fmt.Errorf("server %s (%s): still exists in %s (err %v)", name, a["id"], region, err)
		}

		if id := a["port_id"]; id != "" {
			if _, err := Port(t, region, id); !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				return fmt.Errorf("server %s: port %s still exists (err %v)", name, id, err)
			}

			fips, err := FloatingIPsOfPort(t, region, id)
			if err != nil {
				return err
			}

			if len(fips) > 0 {
				return fmt.Errorf("server %s: floating IP %s left on port %s", name, fips[0].FloatingIP, id)
			}
		}

		return ServerLeftovers(t, region, project, name)
	})
}

// ServerLeftovers says which object of the server <name> exists in project and region, asked
// of the cloud by name: the server <name>, its port server-<name> or a floating IP made for it
// (description "unikorn_server server-<name>"); nil when there is none. It is what a test
// asserts after input that must stop before anything is made.
func ServerLeftovers(t *testing.T, region, project, name string) error {
	t.Helper()

	ctx := context.Background()

	srvs, err := AllPages(ctx, servers.List(AdminCompute(t, region), servers.ListOpts{
		Name: "^" + regexp.QuoteMeta(name) + "$", AllTenants: true, TenantID: project,
	}), servers.ExtractServers)
	if err != nil {
		return err
	}

	if left := naming.Exact(srvs, name, func(s servers.Server) string { return s.Name }); len(left) > 0 {
		return fmt.Errorf("server %s exists (%s, status %s)", name, left[0].ID, left[0].Status)
	}

	ps, err := AllPages(ctx, ports.List(AdminNeutron(t, region), ports.ListOpts{Name: naming.ServerPort(name), ProjectID: project}),
		ports.ExtractPorts)
	if err != nil {
		return err
	}

	if left := naming.Exact(ps, naming.ServerPort(name), func(p ports.Port) string { return p.Name }); len(left) > 0 {
		return fmt.Errorf("server %s: a port %s is left (%s)", name, naming.ServerPort(name), left[0].ID)
	}

	fips, err := AllPages(ctx, floatingips.List(AdminNeutron(t, region), floatingips.ListOpts{
		Description: "unikorn_server " + naming.ServerPort(name), ProjectID: project,
	}), floatingips.ExtractFloatingIPs)
	if err != nil {
		return err
	}

	if len(fips) > 0 {
		return fmt.Errorf("server %s: its floating IP %s (%s) is left", name, fips[0].FloatingIP, fips[0].ID)
	}

	return nil
}

// SetImageMinRAM sets Glance's min_ram of image id in region (as the service user, who made
// it with CreateImage).
func SetImageMinRAM(t *testing.T, region, id string, mib int) {
	t.Helper()

	client := AdminGlance(t, region)

	if _, err := images.Update(t.Context(), client, id, images.UpdateOpts{images.ReplaceImageMinRam{NewMinRam: mib}}).Extract(); err != nil {
		t.Fatalf("setting min_ram of image %s: %v", id, err)
	}
}

// PreCreateServer makes, as the identity's user (through its trust), the port
// server-<name> on networkID and the server <name> on it in region, as an apply that died
// after those steps would have left them, waits for the server to be ACTIVE and returns the
// port's and server's IDs.
func PreCreateServer(t *testing.T, projectID, region, networkID, name, flavorID, imageID string) (portID, serverID string) {
	t.Helper()

	sess, err := Client(t).Identity(context.Background(), projectID)
	if err != nil {
		t.Fatalf("identity scope of %s: %v", projectID, err)
	}

	return bootServer(t, sess, region, name, flavorID, imageID, ports.CreateOpts{NetworkID: networkID}, nil)
}

// bootServer makes, in session sess, the port server-<name> of port (its network, security
// groups) and the server <name> on it with metadata md in region, waits for the server to be
// ACTIVE and returns the port's and server's IDs.
func bootServer(t *testing.T, sess *cloud.Session, region, name, flavorID, imageID string, port ports.CreateOpts, md map[string]string) (portID, serverID string) {
	t.Helper()

	ctx := context.Background()
	net := clientOf(t, "Neutron", region, sess.Network)
	compute := clientOf(t, "Nova", region, sess.Compute)

	port.Name = naming.ServerPort(name)

	p, err := ports.Create(ctx, net, port).Extract()
	if err != nil {
		t.Fatalf("pre-creating port %s: %v", naming.ServerPort(name), err)
	}

	srv, err := servers.Create(ctx, compute, servers.CreateOpts{
		Name: name, FlavorRef: flavorID, ImageRef: imageID, Networks: []servers.Network{{Port: p.ID}}, Metadata: md,
	}, nil).Extract()
	if err != nil {
		t.Fatalf("pre-creating server %s: %v", name, err)
	}

	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	_, err = cloud.Poll(wctx, cloud.PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
		func(ctx context.Context) (*servers.Server, string, string, error) {
			s, err := servers.Get(ctx, compute, srv.ID).Extract()
			if err != nil {
				return nil, "", "", err
			}

			return s, s.Status, s.Fault.Message, nil
		})
	if err != nil {
		t.Fatalf("waiting for the pre-created server %s: %v", srv.ID, err)
	}

	return p.ID, srv.ID
}

// DeleteServer deletes server id in region out of band (as an admin) and waits until it is
// gone; its port stays, as it would after a `openstack server delete`.
func DeleteServer(t *testing.T, region, id string) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if err := deleteServer(ctx, AdminCompute(t, region), id); err != nil {
		t.Fatalf("deleting server %s: %v", id, err)
	}
}

// deleteServer deletes server id through sc and waits until it is gone.
func deleteServer(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	if err := servers.Delete(ctx, sc, id).ExtractErr(); err != nil {
		return err
	}

	_, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"deleting"}, NotFoundIsTarget: true},
		func(ctx context.Context) (*servers.Server, string, string, error) {
			s, err := servers.Get(ctx, sc, id).Extract()
			return s, "deleting", "", err
		})
	if err != nil {
		return fmt.Errorf("waiting for server %s to be deleted: %w", id, err)
	}

	return nil
}

// ExpectNoDrift is a plan check that fails when the plan reports objects changed outside of
// Terraform (its resource_drift): what `plan -refresh-only` would show. Used right after an
// apply (ConfigPlanChecks.PostApplyPostRefresh), it asserts that a refresh reads back exactly
// what the apply recorded.
func ExpectNoDrift() plancheck.PlanCheck {
	return noDrift{}
}

type noDrift struct{}

func (noDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc == nil || rc.Change == nil {
			continue
		}

		resp.Error = fmt.Errorf("%s changed outside of Terraform right after apply: before %v, after %v",
			rc.Address, rc.Change.Before, rc.Change.After)

		return
	}
}

// ExpectNonDestructive is a plan check: the resource at address is imported, updated in place
// or left alone; never replaced or deleted.
func ExpectNonDestructive(address string) plancheck.PlanCheck {
	return nonDestructive{address}
}

type nonDestructive struct{ address string }

func (c nonDestructive) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == c.address && !rc.Change.Actions.Update() && !rc.Change.Actions.NoOp() {
			resp.Error = fmt.Errorf("%s: planned %v, want an update in place or nothing", c.address, rc.Change.Actions)
			return
		}
	}
}

// ExpectCloud is a plan check that fails when check, asked of the cloud, does (the plan itself
// is not read): e.g. that a plan wrote nothing.
func ExpectCloud(check func() error) plancheck.PlanCheck {
	return cloudCheck(check)
}

type cloudCheck func() error

func (c cloudCheck) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c()
}
