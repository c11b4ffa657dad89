package provider_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccExample_twoStates applies examples/two-states as two teams would, each in its own
// state: the platform configuration (an identity and its network), then, while it stands, the
// app configuration, which finds both by name and adds a server. The server must be in the
// identity's project on the platform's network; destroying the app state deletes the server and
// leaves the identity and the network (the platform's next plan is empty); destroying the
// platform state then deletes them.
func TestAccExample_twoStates(t *testing.T) {
	name := acctest.RandomName()
	platform := map[string]string{}

	appliedApp := func(s *terraform.State) error {
		server, err := acctest.Attributes(s, "unikorn_server.app")
		if err != nil {
			return err
		}

		srv, err := acctest.Server(t, server["region"], server["id"])
		if err != nil {
			return fmt.Errorf("the app's server in Nova: %w", err)
		}

		if srv.TenantID != platform["identity"] {
			return fmt.Errorf("the app's server is in project %s, want the platform identity's %s", srv.TenantID, platform["identity"])
		}

		if server["network_id"] != platform["network"] {
			return fmt.Errorf("the app's server is on network %s, want the platform's %s", server["network_id"], platform["network"])
		}

		return nil
	}

	// The app state, applied and destroyed while the platform state stands.
	app := func(*terraform.State) error {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			CheckDestroy:             acctest.CheckServerDestroy(t),
			Steps: []resource.TestStep{{
				Config: exampleConfig(t, "../../examples/two-states/app/main.tf"),
				ConfigVariables: config.Variables{
					"identity": config.StringVariable(name), "network": config.StringVariable(name),
					"server": config.StringVariable(name),
					// By name: other tests make flavors and images at the same time (a zero-disk flavor among them).
					"flavor": config.StringVariable(acctest.ServerFlavor), "image": config.StringVariable(acctest.ServerImage),
				},
				Check: appliedApp,
			}},
		})

		return nil
	}

	vars := config.Variables{"name": config.StringVariable(name)}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckIdentityDestroy(t),
			func(*terraform.State) error {
				// The identity's project is gone: the network is asked for as an admin, by ID.
				for _, region := range acctest.Regions() {
					if exists, err := acctest.NetworkExists(t, region, platform["network"]); err != nil || exists {
						return fmt.Errorf("the platform's network %s in %s: exists %v (err %v)", platform["network"], region, exists, err)
					}
				}

				return nil
			},
		),
		Steps: []resource.TestStep{
			{
				Config:          exampleConfig(t, "../../examples/two-states/platform/main.tf"),
				ConfigVariables: vars,
				Check: resource.ComposeAggregateTestCheckFunc(
					recordIDs(platform, map[string]string{"identity": "unikorn_identity.team", "network": "unikorn_network.team"}),
					app,
				),
			},
			// The app's destroy left the platform's objects as they were: nothing to do.
			{Config: exampleConfig(t, "../../examples/two-states/platform/main.tf"), ConfigVariables: vars, PlanOnly: true},
		},
	})
}
