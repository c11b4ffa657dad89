package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"
)

// Request budgets of one server, without the authentication of the scope (once per identity
// and provider run). The bar is the refresh: at most 2 requests per server.
const (
	refreshBudget = 2
	createBudget  = 20 // with a floating IP: Keystone project, lookups, port, server, polls, metadata, router, FIP
	deleteBudget  = 12
)

// TestAccServer_measure prints what a server costs: the requests of one create, refresh and
// destroy through the core (each from a cold client, the scope's authentication counted
// apart), and the wall time of a Terraform apply that creates 10 servers at the CLI's default
// parallelism of 10, and of the refresh of that state. It fails when a count exceeds its
// budget. It is not parallel, so that the numbers are those of a quiet cloud.
func TestAccServer_measure(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.Regions()[0])

	var start time.Time

	servers10 := f.config() + fmt.Sprintf(`
resource "unikorn_server" "many" {
  count              = 10
  identity_id        = unikorn_identity.test.id
  region             = %[1]q
  name               = "%[2]s-${count.index}"
  network_id         = unikorn_network.test.id
  flavor_id          = %[3]q
  image_id           = %[4]q
  security_group_ids = [unikorn_security_group.a.id]
}
`, f.region, f.name, f.flavor, f.image)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: f.config(),
				Check: func(s *terraform.State) error {
					var ids fixtureIDs
					if err := ids.record(s); err != nil {
						return err
					}

					for _, publicIP := range []bool{false, true} {
						measureOne(t, f, ids, publicIP)
					}

					return nil
				},
			},
			{
				PreConfig:        func() { start = time.Now() },
				Config:           servers10,
				ConfigPlanChecks: settled(),
				Check: func(*terraform.State) error {
					t.Logf("MEASURE apply creating 10 servers (parallelism 10, Terraform's default), refresh of the "+
						"identity, network and groups included: %s", time.Since(start).Round(100*time.Millisecond))

					return nil
				},
			},
			{
				PreConfig:    func() { start = time.Now() },
				RefreshState: true,
				Check: func(*terraform.State) error {
					t.Logf("MEASURE refresh of the state with 10 servers (and the identity, network, groups): %s",
						time.Since(start).Round(100*time.Millisecond))

					return nil
				},
			},
		},
	})
}

// measureOne creates, refreshes and deletes one server through the core with fresh clients,
// and logs (and bounds) the requests of each.
func measureOne(t *testing.T, f fixture, ids fixtureIDs, publicIP bool) {
	t.Helper()

	ctx := context.Background()
	name := fmt.Sprintf("%s-m%v", f.name, publicIP)
	label := fmt.Sprintf("one server (public_ip = %v)", publicIP)

	spec := server.Spec{
		Name: name, NetworkID: ids.network, FlavorID: f.flavor, ImageID: f.image,
		SecurityGroupIDs: []string{ids.group}, PublicIP: publicIP, PowerState: server.PowerRunning,
	}

	// Create, in the identity scope.
	c := acctest.FreshClient(t)
	svc, auth := bind(t, c, ids.project, f.region, cloud.AsIdentity)

	start, before, methods := time.Now(), c.RequestCount(), c.RequestCountByMethod()

	out, err := svc.Ensure(ctx, spec, server.Known{})
	if out != nil {
		t.Cleanup(func() {
			_ = svc.Delete(context.Background(), name, server.Known{ServerID: out.ID, PortID: out.Port.ID})
		})
	}

	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}

	created := c.RequestCount() - before
	t.Logf("MEASURE create %s: %d requests %v in %s (+%d to authenticate the identity scope: trust lookup, token)",
		label, created, acctest.RequestsSince(methods, c.RequestCountByMethod()), time.Since(start).Round(100*time.Millisecond), auth)

	known := server.Known{ServerID: out.ID, PortID: out.Port.ID, FlavorID: out.FlavorID, FlavorName: out.FlavorName}

	// Refresh, in the privileged scope, as Read does.
	c = acctest.FreshClient(t)
	svc, auth = bind(t, c, ids.project, f.region, cloud.Privileged)

	before = c.RequestCount()

	got, err := svc.Observe(ctx, name, known)
	if err != nil || got == nil {
		t.Fatalf("refreshing %s: %v, %v", name, got, err)
	}

	refreshed := c.RequestCount() - before
	t.Logf("MEASURE refresh %s: %d requests (+%d to authenticate the privileged scope, once per identity and run)",
		label, refreshed, auth)

	if publicIP && got.PublicIPAddress == "" {
		t.Errorf("the refresh does not see the floating IP")
	}

	// Destroy, in the privileged scope (warm: the refresh authenticated it).
	start, before, methods = time.Now(), c.RequestCount(), c.RequestCountByMethod()

	if err := svc.Delete(ctx, name, known); err != nil {
		t.Fatalf("deleting %s: %v", name, err)
	}

	deleted := c.RequestCount() - before
	t.Logf("MEASURE destroy %s: %d requests %v in %s", label, deleted, acctest.RequestsSince(methods, c.RequestCountByMethod()),
		time.Since(start).Round(100*time.Millisecond))

	switch {
	case refreshed > refreshBudget:
		t.Errorf("refresh took %d requests, budget %d", refreshed, refreshBudget)
	case created > createBudget:
		t.Errorf("create took %d requests, budget %d", created, createBudget)
	case deleted > deleteBudget:
		t.Errorf("destroy took %d requests, budget %d", deleted, deleteBudget)
	}
}

// bind binds the core to the identity's tenant in region with scope and returns it with the
// requests that authenticating the scope took.
func bind(t *testing.T, c *cloud.Client, projectID, region string, scope cloud.Scope) (*server.Service, int64) {
	t.Helper()

	before := c.RequestCount()

	tenant, err := c.Tenant(context.Background(), projectID, region, scope)
	if err != nil {
		t.Fatal(err)
	}

	svc, err := server.NewService(tenant)
	if err != nil {
		t.Fatal(err)
	}

	return svc, c.RequestCount() - before
}

// Request budgets of the operations on a server, without the authentication of the scope.
const (
	consoleBudget  = 1  // the console output
	snapshotBudget = 12 // name lookup, create-image, the twin check, polls until active, a patch when needed
)

// measureOperations logs (and bounds) the requests of one console read and one snapshot of
// server serverID through the core, each from a cold client, the scope's authentication
// counted apart.
func measureOperations(t *testing.T, f fixture, projectID, serverID string) error {
	t.Helper()

	ctx := context.Background()

	c := acctest.FreshClient(t)
	svc, auth := bind(t, c, projectID, f.region, cloud.AsIdentity)
	before := c.RequestCount()

	if _, err := svc.ConsoleOutput(ctx, serverID, 0); err != nil {
		return err
	}

	console := c.RequestCount() - before
	t.Logf("MEASURE console read: %d requests (+%d to authenticate the identity scope)", console, auth)

	c = acctest.FreshClient(t)
	before = c.RequestCount()

	tenant, err := c.Tenant(ctx, projectID, f.region, cloud.AsIdentity)
	if err != nil {
		return err
	}

	snaps, err := server.NewSnapshots(tenant)
	if err != nil {
		return err
	}

	auth = c.RequestCount() - before
	start, before, methods := time.Now(), c.RequestCount(), c.RequestCountByMethod()

	img, err := snaps.Snap(ctx, server.SnapshotSpec{Name: f.name + "-measure", ServerID: serverID, OrganizationID: "org-" + f.name}, nil)
	if img != nil {
		acctest.DeleteImageOnCleanup(t, f.region, img.ID)
	}

	if err != nil {
		return err
	}

	snapshot := c.RequestCount() - before
	t.Logf("MEASURE snapshot until active and published: %d requests %v in %s (+%d to authenticate the identity scope)",
		snapshot, acctest.RequestsSince(methods, c.RequestCountByMethod()), time.Since(start).Round(100*time.Millisecond), auth)

	switch {
	case console > consoleBudget:
		return fmt.Errorf("a console read took %d requests, budget %d", console, consoleBudget)
	case snapshot > snapshotBudget:
		return fmt.Errorf("a snapshot took %d requests, budget %d", snapshot, snapshotBudget)
	}

	return nil
}
