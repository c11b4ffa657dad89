package acctest

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the helpers of the unikorn_server ownership tests (issue 26): the objects an
// interrupted create of a unikorn_server leaves behind, with its marks.

// PreCreateInterruptedServer makes, as the identity's user (through its trust), the port
// server-<name> on networkID and the server <name> on it in region, as a unikorn_server's create
// killed before its end leaves them: the port posted with the creation mark as its description
// (killed before it was tagged), the server with the creation mark and without the completion
// mark. It waits for the server to be ACTIVE and returns the port's and server's IDs.
func PreCreateInterruptedServer(t *testing.T, projectID, region, networkID, name, flavorID, imageID string) (portID, serverID string) {
	t.Helper()

	sess, err := Client(t).Identity(context.Background(), projectID)
	if err != nil {
		t.Fatalf("identity scope of %s: %v", projectID, err)
	}

	made := naming.MadeFor("unikorn_server")

	return bootServer(t, sess, region, name, flavorID, imageID, ports.CreateOpts{NetworkID: networkID, Description: made.Description()},
		made.Properties())
}
