package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// rpUUID is the resource provider UUID of hypervisor node-a.example.com in placementCloud.
const rpUUID = "4a1d3cc5-0000-4000-8000-00000000000a"

// hypervisorCloud is placementCloud with Placement's resource provider node-a.example.com
// (rpUUID), found by name and by UUID.
func hypervisorCloud(t *testing.T, usedMemory int) (*cloudtest.API, HostCheck) {
	t.Helper()

	api, h := placementCloud(t, usedMemory)
	provider := map[string]any{"uuid": rpUUID, "name": "node-a.example.com", "generation": 1}

	api.On("GET", "/placement/resource_providers", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("name") == "node-a.example.com" || q.Get("uuid") == rpUUID {
			cloudtest.WriteJSON(w, 200, map[string]any{"resource_providers": []any{provider}})
			return
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"resource_providers": []any{}})
	})
	placementResources(api, rpUUID, usedMemory)

	return api, h
}

// TestCheckHypervisor: the Placement preflight of a server pinned to a hypervisor finds the
// resource provider by name or by UUID, as Unikorn's does, and compares its inventory less its
// usages with the flavor; an unknown hypervisor is named with Nova's hypervisors.
func TestCheckHypervisor(t *testing.T) {
	t.Parallel()

	t.Run("room, by name", func(t *testing.T) {
		t.Parallel()

		api, h := hypervisorCloud(t, 8192)

		if err := h.CheckHypervisor(context.Background(), "node-a.example.com", "f-1"); err != nil {
			t.Fatal(err)
		}

		want := []string{
			"GET /compute/flavors/f-1", "GET /placement/resource_providers",
			"GET /placement/resource_providers/" + rpUUID + "/inventories", "GET /placement/resource_providers/" + rpUUID + "/usages",
		}
		if diff := cmp.Diff(want, api.Calls()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})

	t.Run("room, by UUID", func(t *testing.T) {
		t.Parallel()

		api, h := hypervisorCloud(t, 8192)

		if err := h.CheckHypervisor(context.Background(), rpUUID, "f-1"); err != nil {
			t.Fatal(err)
		}

		if n := api.Count("GET /placement/resource_providers"); n != 2 {
			t.Errorf("listed resource providers %d times, want by name then by UUID", n)
		}
	})

	t.Run("shortfall names the hypervisor and the class", func(t *testing.T) {
		t.Parallel()

		_, h := hypervisorCloud(t, 30000)

		err := h.CheckHypervisor(context.Background(), "node-a.example.com", "f-1")

		var he *HostError
		if !errors.As(err, &he) || len(he.Short) != 1 ||
			!strings.Contains(err.Error(), "hypervisor node-a.example.com in region RegionOne has no room for flavor m1.medium: MEMORY_MB: the flavor needs 4096, 2768 free") {
			t.Fatalf("err = %v, want a HostError naming the hypervisor and the shortfall", err)
		}
	})

	t.Run("unknown hypervisor lists Nova's", func(t *testing.T) {
		t.Parallel()

		_, h := hypervisorCloud(t, 0)

		err := h.CheckHypervisor(context.Background(), "node-a", "f-1")

		var he *HostError
		if !errors.As(err, &he) || !strings.Contains(err.Error(),
			"Placement has no resource provider named node-a, or with that UUID, in region RegionOne (Nova's hypervisors: node-a.example.com, node-b.example.com)") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestEnsurePinnedToHypervisor: a server pinned to a hypervisor is created through the privileged
// scope's Nova with hypervisor_hostname (not host) in the body, and Nova's refusal names it.
func TestEnsurePinnedToHypervisor(t *testing.T) {
	t.Parallel()

	spec := baseSpec()
	spec.Hypervisor = "node-a.example.com"

	f := newCreate(t)
	f.Reply("POST", "/privileged/servers", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
	serverReads(f, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
	echoMetadata(f)

	if _, err := pinnedService(f).Ensure(context.Background(), spec, Known{}); err != nil {
		t.Fatal(err)
	}

	body := f.Last(t, "POST /privileged/servers").JSON(t, "server")
	if _, host := body["host"]; body["hypervisor_hostname"] != "node-a.example.com" || host || f.Count("POST /compute/servers") != 0 {
		t.Fatalf("server created with %v (identity-scope creates: %d)", body, f.Count("POST /compute/servers"))
	}

	refused := newCreate(t)
	refused.Reply("POST", "/privileged/servers", 403, map[string]any{"forbidden": map[string]any{"message": "Policy doesn't allow it", "code": 403}})
	refused.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

	if _, err := pinnedService(refused).Ensure(context.Background(), spec, Known{}); err == nil ||
		!strings.Contains(err.Error(), "refused a server create on hypervisor node-a.example.com") {
		t.Fatalf("err = %v, want the refusal naming the hypervisor", err)
	}
}

// TestHypervisorReplaces: moving a server to another hypervisor replaces it; setting one on a
// server without (an import) or unsetting it does not.
func TestHypervisorReplaces(t *testing.T) {
	t.Parallel()

	state := model("p1", "f1", "i1", "n1", nil, false, false)

	for _, tc := range []struct {
		name         string
		before, want types.String
		replaces     bool
	}{
		{"another hypervisor", types.StringValue("a"), types.StringValue("b"), true},
		{"the same", types.StringValue("a"), types.StringValue("a"), false},
		{"set on an import", types.StringNull(), types.StringValue("a"), false},
		{"unset", types.StringValue("a"), types.StringNull(), false},
	} {
		s, p := state, state
		s.HypervisorHostname, p.HypervisorHostname = tc.before, tc.want

		if got := replaces(p, s); got != tc.replaces {
			t.Errorf("%s: replaces = %v, want %v", tc.name, got, tc.replaces)
		}
	}
}
