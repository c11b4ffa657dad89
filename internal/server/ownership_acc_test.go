package server_test

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the acceptance tests of the ownership rule for servers (issue 26, items 4, 5
// and 13): a create takes only what an interrupted create of a unikorn_server left unfinished.

// TestAccServer_secondConfiguration (item 5): a second configuration's server of the same name in
// the same identity — here another resource, with no state, as another workspace's would be:
// another image, flavor, security group, server group and tags — is refused, and the first
// server is left exactly as it was in the cloud (image, flavor, security groups, metadata and
// its marks, server groups); nothing of the second is made, and the first configuration's next
// plan is empty.
func TestAccServer_secondConfiguration(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	other := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region})
	large := acctest.FlavorID(t, f.region, acctest.ServerLargeFlavor)

	first := srv{extra: `  security_group_ids = [local.group_a]
  tags               = { "team.example.com/owner" = "first" }`}
	second := srv{label: "second", image: other.ID, flavor: large, extra: `  security_group_ids = [local.group_b]
  server_group       = true
  tags               = { "team.example.com/owner" = "second" }`}

	serverID := statecheck.CompareValue(compare.ValuesSame())
	portID := statecheck.CompareValue(compare.ValuesSame())

	var (
		before     *servers.Server
		beforePort *ports.Port
	)

	sameIDs := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			serverID.AddStateValue(address, tfjsonpath.New("id")),
			portID.AddStateValue(address, tfjsonpath.New("port_id")),
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(first),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: sameIDs(),
				Check: nova(t, func(srv *servers.Server, a map[string]string, _ *terraform.State) error {
					port, err := acctest.Port(t, f.region, a["port_id"])
					if err != nil {
						return err
					}

					if naming.MarkOf(srv.Metadata) != naming.MadeFor("unikorn_server").Done() {
						return fmt.Errorf("server %s carries the marks %v, want a finished unikorn_server", srv.ID, naming.MarkOf(srv.Metadata))
					}

					if !slices.Contains(port.Tags, naming.MarkPrefix+"unikorn_server") || port.Description != "" {
						return fmt.Errorf("port %s has tags %v and description %q, want the mark tag and no description",
							port.ID, port.Tags, port.Description)
					}

					before, beforePort = srv, port

					return nil
				}),
			},
			{
				Config: f.config(first, second),
				ExpectError: regexp.MustCompile(`(?s)a\s+server\s+named\s+"` + regexp.QuoteMeta(f.name) + `"\s+already\s+exists.*` +
					`finished\s+unikorn_server\s+of\s+another\s+configuration.*terraform\s+import\s+unikorn_server`),
			},
			{
				Config: f.config(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
				ConfigStateChecks: sameIDs(),
				Check: nova(t, func(srv *servers.Server, a map[string]string, s *terraform.State) error {
					port, err := acctest.Port(t, f.region, a["port_id"])
					if err != nil {
						return err
					}

					switch {
					case srv.Image["id"] != before.Image["id"] || srv.Flavor["original_name"] != before.Flavor["original_name"]:
						return fmt.Errorf("server %s is on image %v, flavor %v; it was on %v, %v", srv.ID, srv.Image["id"],
							srv.Flavor["original_name"], before.Image["id"], before.Flavor["original_name"])
					case !maps.Equal(srv.Metadata, before.Metadata):
						return fmt.Errorf("server %s metadata = %v\nit was              %v", srv.ID, srv.Metadata, before.Metadata)
					case !slices.Equal(serverGroups(srv), serverGroups(before)) || srv.Status != "ACTIVE":
						return fmt.Errorf("server %s is %s in server groups %v; it was %s in %v", srv.ID, srv.Status,
							serverGroups(srv), before.Status, serverGroups(before))
					case !slices.Equal(port.SecurityGroups, beforePort.SecurityGroups):
						return fmt.Errorf("port %s has security groups %v; it had %v", port.ID, port.SecurityGroups, beforePort.SecurityGroups)
					}

					// The refused create made nothing: one server and one port of the name.
					id, err := f.identityAttrs(s)
					if err != nil {
						return err
					}

					return namedOnce(t, f.region, id["id"], f.name)
				}),
			},
		},
	})
}

// TestAccServer_createBeforeDestroy (item 4): a server whose server_group changes under
// create_before_destroy is replaced by a new server made while the old one still holds the
// name. The new server's create refuses the old one (it is finished), says that a
// create_before_destroy replacement needs another name, and leaves the old server as it was:
// it still exists with its ID, and the configuration as it was plans nothing.
func TestAccServer_createBeforeDestroy(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)

	grouped := func(group bool) srv {
		return srv{extra: fmt.Sprintf(`  server_group = %t

  lifecycle {
    create_before_destroy = true
  }`, group)}
	}

	serverID := statecheck.CompareValue(compare.ValuesSame())

	var oldID string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(grouped(false)),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             acctest.CheckAttributes(address, func(a map[string]string) error { oldID = a["id"]; return nil }),
			},
			{
				Config: f.config(grouped(true)),
				ExpectError: regexp.MustCompile(`(?s)already\s+exists.*finished\s+unikorn_server.*create_before_destroy.*` +
					`needs\s+another\s+name.*left\s+untouched`),
			},
			{
				PreConfig: func() {
					srv, err := acctest.Server(t, f.region, oldID)
					if err != nil || srv.Status != "ACTIVE" || len(serverGroups(srv)) != 0 {
						t.Fatalf("the old server %s after the refused replacement: %+v, %v; want it ACTIVE in no server group", oldID, srv, err)
					}
				},
				Config: f.config(grouped(false)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
			},
		},
	})
}

// TestAccServer_imageChange (item 13): a change of image_id plans an update in place (a rebuild)
// with a warning at image_id that names the server and the loss of its root disk; with
// image_change = "replace" the same change plans a replace, without the warning. The warning is
// read from the provider's plan of the change (PlanResourceChange, which Terraform shows), the
// actions from Terraform's plans.
func TestAccServer_imageChange(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	other := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region})

	serverID := statecheck.CompareValue(compare.ValuesSame())
	replacedID := statecheck.CompareValue(compare.ValuesDiffer())

	var id string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            f.config(srv{}),
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: []statecheck.StateCheck{serverID.AddStateValue(address, tfjsonpath.New("id"))},
				Check:             acctest.CheckAttributes(address, func(a map[string]string) error { id = a["id"]; return nil }),
			},
			{
				PreConfig: func() {
					rebuild := planImageChange(t, f.region, id, other.ID, "")
					if warning := rebuildWarning(rebuild); warning == nil || len(rebuild.RequiresReplace) != 0 {
						t.Fatalf("plan of an image change: warning %v, replace %v; want the rebuild warning at image_id and an update",
							warning, rebuild.RequiresReplace)
					} else if !regexp.MustCompile(`"` + regexp.QuoteMeta(f.name) + `" \(` + id + `\).*root disk.*lost`).MatchString(warning.Detail) {
						t.Fatalf("rebuild warning %q does not name the server and the loss of its disk", warning.Detail)
					}

					replace := planImageChange(t, f.region, id, other.ID, "replace")
					if warning := rebuildWarning(replace); warning != nil || !slices.ContainsFunc(replace.RequiresReplace, isImageID) {
						t.Fatalf("plan of an image change with image_change = replace: warning %v, replace %v; want a replace, no warning",
							warning, replace.RequiresReplace)
					}
				},
				Config: f.config(srv{image: other.ID}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					serverID.AddStateValue(address, tfjsonpath.New("id")),
					replacedID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("image_id"), knownvalue.StringExact(other.ID)),
				},
			},
			{
				Config: f.config(srv{extra: `  image_change = "replace"`}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), acctest.ExpectNoDrift()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					replacedID.AddStateValue(address, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("image_id"), knownvalue.StringExact(f.image)),
				},
			},
		},
	})
}

// TestAccServer_snapshotOwnership (the rule for snapshots): a unikorn_server_snapshot's image
// carries the creation mark from Nova's create-image and the completion mark once published,
// though the server boots from an image whose own marks (a finished unikorn_image's) Nova copies
// into every snapshot; a second configuration's snapshot of the same name is refused, and the
// first is left as it was (its next plan empty).
func TestAccServer_snapshotOwnership(t *testing.T) {
	acctest.PreCheck(t)

	f := sharedFixture(t)
	base := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, Properties: naming.MadeFor("unikorn_image").Done().Properties()})
	imageID := statecheck.CompareValue(compare.ValuesSame())

	snapshot := func(label string) string {
		return fmt.Sprintf(`
resource "unikorn_server_snapshot" %[1]q {
  identity_id     = local.identity_id
  region          = %[2]q
  server_id       = unikorn_server.test.id
  name            = "%[3]s-snap"
  organization_id = "org-%[3]s"
}
`, label, f.region, f.name)
	}

	first := f.config(srv{image: base.ID}) + snapshot("test")

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkDestroy(t), acctest.CheckImagesDestroyed(t, "unikorn_server_snapshot")),
		Steps: []resource.TestStep{
			{
				Config:            first,
				ConfigPlanChecks:  settled(),
				ConfigStateChecks: []statecheck.StateCheck{imageID.AddStateValue(snapshotAddress, tfjsonpath.New("id"))},
				Check: acctest.CheckAttributes(snapshotAddress, func(a map[string]string) error {
					img, err := acctest.Image(t, f.region, a["id"])
					if err != nil {
						return err
					}

					if got := naming.MarkOf(img.Properties); got != naming.MadeFor("unikorn_server_snapshot").Done() {
						return fmt.Errorf("snapshot image %s carries the marks %v (properties %v), want a finished unikorn_server_snapshot",
							img.ID, got, img.Properties)
					}

					for k := range a {
						if naming.IsMarkKey(strings.TrimPrefix(k, "properties.")) {
							return fmt.Errorf("the snapshot's properties show the mark %s", k)
						}
					}

					return nil
				}),
			},
			{
				Config: first + snapshot("second"),
				ExpectError: regexp.MustCompile(`(?s)a\s+snapshot\s+image\s+named\s+"` + regexp.QuoteMeta(f.name) + `-snap"\s+already\s+exists.*` +
					`finished\s+unikorn_server_snapshot\s+of\s+another\s+configuration`),
			},
			{
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{imageID.AddStateValue(snapshotAddress, tfjsonpath.New("id"))},
			},
		},
	})
}

// serverGroups are the server groups Nova reports srv in.
func serverGroups(srv *servers.Server) []string {
	if srv.ServerGroups == nil {
		return nil
	}

	return *srv.ServerGroups
}

// namedOnce checks that project holds exactly one server name and one port server-<name> in
// region.
func namedOnce(t *testing.T, region, project, name string) error {
	t.Helper()

	ctx := t.Context()

	srvs, err := acctest.AllPages(ctx, servers.List(acctest.AdminCompute(t, region), servers.ListOpts{
		Name: "^" + regexp.QuoteMeta(name) + "$", AllTenants: true, TenantID: project,
	}), servers.ExtractServers)
	if err != nil {
		return err
	}

	ps, err := acctest.AllPages(ctx, ports.List(acctest.AdminNeutron(t, region), ports.ListOpts{Name: naming.ServerPort(name), ProjectID: project}),
		ports.ExtractPorts)
	if err != nil {
		return err
	}

	srvs = naming.Exact(srvs, name, func(s servers.Server) string { return s.Name })
	ps = naming.Exact(ps, naming.ServerPort(name), func(p ports.Port) string { return p.Name })

	if len(srvs) != 1 || len(ps) != 1 {
		return fmt.Errorf("project %s holds %d servers %s and %d ports %s, want one of each", project, len(srvs), name, len(ps),
			naming.ServerPort(name))
	}

	return nil
}

// planImageChange is the provider's plan (PlanResourceChange, as Terraform asks for it) of
// changing the image of server id in region to imageID, with image_change = choice ("": unset):
// the server is imported and read through a fresh provider server, and the configuration is its
// required arguments as read.
func planImageChange(t *testing.T, region, id, imageID, choice string) *tfprotov6.PlanResourceChangeResponse {
	t.Helper()

	ctx := t.Context()
	provider, schemas := acctest.ConfiguredServer(t)
	schema := schemas.ResourceSchemas["unikorn_server"]
	typ := schema.ValueType()

	imported, err := provider.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "unikorn_server", ID: region + "/" + id})
	if err != nil || len(imported.ImportedResources) != 1 || errorIn(imported.Diagnostics) != nil {
		t.Fatalf("importing server %s: %v, %v", id, err, imported)
	}

	read, err := provider.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
		TypeName: "unikorn_server", CurrentState: imported.ImportedResources[0].State, Private: imported.ImportedResources[0].Private,
	})
	if err != nil || errorIn(read.Diagnostics) != nil {
		t.Fatalf("reading server %s: %v, %v", id, err, read)
	}

	priorValue, err := read.NewState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}

	var prior map[string]tftypes.Value
	if err := priorValue.As(&prior); err != nil {
		t.Fatal(err)
	}

	objectType, _ := typ.(tftypes.Object)
	config := map[string]tftypes.Value{}

	for name, attrType := range objectType.AttributeTypes {
		config[name] = tftypes.NewValue(attrType, nil)
	}

	for _, name := range []string{"identity_id", "region", "name", "network_id", "flavor_id"} {
		config[name] = prior[name]
	}

	config["image_id"] = tftypes.NewValue(tftypes.String, imageID)
	if choice != "" {
		config["image_change"] = tftypes.NewValue(tftypes.String, choice)
	}

	// Terraform's proposed new state: the configuration, and the prior value of what is
	// computed and not configured.
	proposed := map[string]tftypes.Value{}

	for _, a := range schema.Block.Attributes {
		proposed[a.Name] = config[a.Name]
		if a.Computed && config[a.Name].IsNull() {
			proposed[a.Name] = prior[a.Name]
		}
	}

	value := func(attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			t.Fatal(err)
		}

		return &dv
	}

	plan, err := provider.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "unikorn_server", PriorState: read.NewState, ProposedNewState: value(proposed), Config: value(config),
		PriorPrivate: read.Private,
	})
	if err != nil || errorIn(plan.Diagnostics) != nil {
		t.Fatalf("planning the image change of server %s: %v, %v", id, err, errorIn(plan.Diagnostics))
	}

	return plan
}

// rebuildWarning is the plan's warning at image_id, nil when there is none.
func rebuildWarning(plan *tfprotov6.PlanResourceChangeResponse) *tfprotov6.Diagnostic {
	for _, d := range plan.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Attribute != nil && isImageID(d.Attribute) {
			return d
		}
	}

	return nil
}

// isImageID tells whether p is the path of image_id.
func isImageID(p *tftypes.AttributePath) bool {
	return p.Equal(tftypes.NewAttributePath().WithAttributeName("image_id"))
}

// errorIn is the first error diagnostic, nil when there is none.
func errorIn(diags []*tfprotov6.Diagnostic) error {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}

	return nil
}
