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

// Request budgets of servers, without the authentication of the scope (once per identity and
// provider run). Issue 17: a refresh costs one listing per kind (servers, their server groups,
// ports), whatever the number of servers; a create shares its adopt lookups (the run's listings)
// and its polls (one server listing a round for all servers booting at once).
const (
	// refreshBudget is the refresh through the core of one server, and of ten: the same.
	refreshBudget = 3
	createBudget  = 24 // with a floating IP: the listings, port, server, twin checks, polls, metadata, floating IP
	deleteBudget  = 16

	// applyStepBudget and refreshStepBudget are what the provider's runs of the Terraform steps
	// cost in all: the apply that adds ten servers to the fixture (its plan and apply, with the
	// refresh of the identity, network and groups), and the refresh of that state. The apply's
	// polls grow with the time the cloud takes to boot (a listing every two seconds), not with
	// the number of servers.
	applyStepBudget   = 150
	refreshStepBudget = 40
)

// TestAccServer_measure prints what servers cost and fails when a count exceeds its budget: the
// requests of one create, refresh and destroy through the core (each from a cold client, the
// scope's authentication counted apart), the refresh of ten servers through the core, and the
// requests (from the provider's own request log) and wall time of a Terraform apply that creates
// 10 servers at the CLI's default parallelism of 10, and of the refresh of that state. It is not
// parallel, so that the numbers are those of a quiet cloud.
func TestAccServer_measure(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.FirstRegion())
	log := acctest.NewRequestLog()

	var (
		start time.Time
		runs  int
		ids   fixtureIDs
	)

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

	begin := func() { start, runs = time.Now(), log.Mark() }

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: log.ProviderFactories(),
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: f.config(),
				Check: func(s *terraform.State) error {
					if err := f.record(&ids)(s); err != nil {
						return err
					}

					for _, publicIP := range []bool{false, true} {
						measureOne(t, f, ids, publicIP)
					}

					return nil
				},
			},
			{
				PreConfig:        begin,
				Config:           servers10,
				ConfigPlanChecks: settled(),
				Check: func(*terraform.State) error {
					return stepBudget(t, log, runs, start, "apply creating 10 servers (parallelism 10, Terraform's default), "+
						"refresh of the identity, network and groups included", applyStepBudget)
				},
			},
			{
				PreConfig:    begin,
				RefreshState: true,
				Check: func(s *terraform.State) error {
					if err := stepBudget(t, log, runs, start, "refresh of the state with 10 servers (and the identity, network, groups)",
						refreshStepBudget); err != nil {
						return err
					}

					return refreshTen(t, f, ids, s)
				},
			},
		},
	})
}

// stepBudget logs what the provider's runs since mark cost (requests and tokens from their
// request logs) and the wall time since start, and fails over budget requests, or when one run
// asked for more than acctest.TokenBudget tokens.
func stepBudget(t *testing.T, log *acctest.RequestLog, mark int, start time.Time, what string, budget int64) error {
	t.Helper()

	requests, tokens := log.Since(mark)

	t.Logf("MEASURE %s: %d requests (%d tokens) in %s", what, requests, tokens, time.Since(start).Round(100*time.Millisecond))

	if requests > budget {
		return fmt.Errorf("%s took %d requests, budget %d", what, requests, budget)
	}

	return log.TokensOverBudget(mark)
}

// refreshTen refreshes the ten servers of the state through the core, as the resources' Reads do
// in one provider run (one cold client, the privileged scope's authentication counted apart):
// the cost is that of one server.
func refreshTen(t *testing.T, f fixture, ids fixtureIDs, s *terraform.State) error {
	t.Helper()

	c := acctest.FreshClient(t)
	svc, auth := bind(t, c, ids.project, f.region, cloud.Privileged)
	before := c.RequestCount()

	for i := range 10 {
		a, err := acctest.Attributes(s, fmt.Sprintf("unikorn_server.many.%d", i))
		if err != nil {
			return err
		}

		got, err := svc.Observe(context.Background(), a["name"], server.Known{
			ServerID: a["id"], PortID: a["port_id"], FlavorID: f.flavor, FlavorName: acctest.ServerFlavor,
		})
		if err != nil || got == nil || got.ID != a["id"] || got.Port == nil || got.Port.ID != a["port_id"] {
			return fmt.Errorf("refreshing %s: %+v, %v", a["name"], got, err)
		}
	}

	refreshed := c.RequestCount() - before
	t.Logf("MEASURE refresh of 10 servers through the core: %d requests (+%d to authenticate the privileged scope)", refreshed, auth)

	if refreshed > refreshBudget {
		return fmt.Errorf("the refresh of 10 servers took %d requests, budget %d (that of one)", refreshed, refreshBudget)
	}

	return nil
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
