package server

import (
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
)

// TestVolumesWaitForNova: after a detach that Cinder reports done, Nova still lists the volume
// on the server for a moment (its compute service destroys the block device mapping last); the
// server's volumes are read once Nova no longer lists it, not before.
func TestVolumesWaitForNova(t *testing.T) {
	t.Parallel()

	api := newProject(t)
	withVol := novaServer("srv-1", "web", "ACTIVE", map[string]any{
		"os-extended-volumes:volumes_attached": []any{map[string]any{"id": "vol-1"}},
	})
	without := novaServer("srv-1", "web", "ACTIVE", map[string]any{"os-extended-volumes:volumes_attached": []any{}})
	serverReads(api, map[string]any{"server": withVol}, map[string]any{"server": withVol}, map[string]any{"server": without})

	got, err := service(api).waitVolumesListed(t.Context(), &servers.Server{ID: "srv-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	if ids := attachedVolumes(got); len(ids) != 0 {
		t.Errorf("volumes %v, want none", ids)
	}

	if n := api.Count("GET /compute/servers/srv-1"); n != 3 {
		t.Errorf("%d reads of the server, want 3 (two still listing the volume)", n)
	}
}
