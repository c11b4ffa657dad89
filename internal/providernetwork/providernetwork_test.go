package providernetwork

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

const project = "p-admin"

// fake is a Neutron that answers the routes a test sets, and otherwise takes every tag (PUT
// .../tags/<tag>) and answers a PUT of a network with that network, updated.
func fake(t *testing.T) (*cloudtest.API, *Service, context.Context) {
	t.Helper()

	api := cloudtest.New(t)
	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

	api.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v2.0/"), "/")

		switch {
		case r.Method == http.MethodPut && len(parts) == 4 && parts[2] == "tags":
			w.WriteHeader(http.StatusCreated)
		case r.Method == http.MethodPut && len(parts) == 2 && parts[0] == "networks":
			var body map[string]map[string]any

			_ = json.NewDecoder(r.Body).Decode(&body)

			n := net(parts[1], "pn")
			for k, v := range body["network"] {
				n[k] = v
			}

			cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"network": n})
		default:
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"NeutronError": map[string]any{"type": "NotFound"}})
		}
	}))

	return api, &Service{Client: api.ServiceClient("/", "/v2.0/"), ProjectID: project, Region: "RegionOne"}, ctx
}

// marked is n carrying marks m: as tags, or, when posted and not yet tagged, as its description.
func marked(n map[string]any, m naming.Mark, tagged bool) map[string]any {
	if tagged {
		n["tags"] = m.Tags()
	} else {
		n["description"] = m.Description()
	}

	return n
}

func net(id, name string) map[string]any {
	return map[string]any{
		"id": id, "name": name, "project_id": project, "provider:network_type": "vlan",
		"provider:physical_network": "physnet1", "provider:segmentation_id": 101, "router:external": false, "mtu": 1500,
	}
}

func nets(ns ...map[string]any) map[string]any { return map[string]any{"networks": ns} }

var vlanSpec = Spec{Name: "pn", NetworkType: TypeVLAN, PhysicalNetwork: "physnet1"}

// Two networks of the exact name are an error naming both; nothing is created.
func TestEnsureDuplicate(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks", http.StatusOK, nets(net("a", "pn"), net("b", "pn"), net("c", "pn-other")))

	_, err := svc.Ensure(ctx, vlanSpec, "")

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !strings.Contains(err.Error(), "a, b") {
		t.Fatalf("err = %v, want a duplicate error naming a and b", err)
	}

	if n := api.Count("POST /v2.0/networks"); n != 0 {
		t.Fatalf("%d creates after a duplicate", n)
	}
}

// A create whose answer is lost (502 after Neutron acted) finds the network again by name
// instead of posting a twin.
func TestEnsureLostAnswer(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Sequence("GET", "/v2.0/networks", nets(), nets(marked(net("made", "pn"), naming.MadeFor(TypeName), false)))
	api.Reply("POST", "/v2.0/networks", http.StatusBadGateway, map[string]any{})
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, map[string]any{"subnets": []any{}})

	out, err := svc.Ensure(ctx, vlanSpec, "")
	if err != nil || out.ID != "made" {
		t.Fatalf("Ensure = %+v, %v; want the network found again", out, err)
	}

	if n := api.Count("POST /v2.0/networks"); n != 1 {
		t.Fatalf("%d creates, want 1", n)
	}

	if body := api.Last(t, "POST /v2.0/networks").JSON(t, "network"); body["provider:segmentation_id"] != nil {
		t.Fatalf("segmentation ID %v posted, want Neutron to allocate one", body["provider:segmentation_id"])
	}
}

// Without the provider's provider_network on that physical network, Neutron allocates; with
// it, the lowest free ID of its ranges is taken, the next one when it was raced away.
func TestEnsureVLANAllocation(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	svc.VLAN = &network.ProviderNetwork{PhysicalNetwork: "physnet1", VLANRanges: []network.VLANRange{{Start: 100, End: 102}}}

	used := net("other", "x")
	used["provider:segmentation_id"] = 100

	n := 0

	api.On("GET", "/v2.0/networks", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("provider:network_type") == "vlan":
			cloudtest.WriteJSON(w, http.StatusOK, nets(used))
		case n < 2: // before the create, and the lookup after the refused one
			cloudtest.WriteJSON(w, http.StatusOK, nets())
		default:
			cloudtest.WriteJSON(w, http.StatusOK, nets(net("made", "pn")))
		}
	})
	api.On("POST", "/v2.0/networks", func(w http.ResponseWriter, _ *http.Request) {
		n++
		if n == 1 {
			cloudtest.WriteJSON(w, http.StatusConflict, map[string]any{"NeutronError": map[string]any{"type": "VlanIdInUse", "message": "taken"}})
			return
		}

		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"network": net("made", "pn")})
	})
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, map[string]any{"subnets": []any{}})

	if _, err := svc.Ensure(ctx, vlanSpec, ""); err != nil {
		t.Fatal(err)
	}

	var ids []any

	for _, c := range api.Requests() {
		if c.String() == "POST /v2.0/networks" {
			ids = append(ids, c.JSON(t, "network")["provider:segmentation_id"])
		}
	}

	if len(ids) != 2 || ids[0] != float64(101) || ids[1] != float64(102) {
		t.Fatalf("posted VLAN IDs %v, want 101 then 102", ids)
	}
}

// Deleting a network that is gone is success, with one request.
func TestDeleteGone(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks/gone", http.StatusNotFound, map[string]any{})

	if err := svc.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}

	if calls := api.Calls(); len(calls) != 1 {
		t.Fatalf("calls %v, want the one read", calls)
	}
}

// A network that a port of another project uses is not deleted, and the error names the port.
func TestDeleteForeignPorts(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks/n1", http.StatusOK, map[string]any{"network": net("n1", "pn")})
	api.Reply("GET", "/v2.0/ports", http.StatusOK, map[string]any{"ports": []any{
		map[string]any{"id": "dhcp", "project_id": project, "device_owner": "network:dhcp"},
		map[string]any{"id": "gw", "name": "", "project_id": "", "device_owner": "network:router_gateway", "device_id": "r1"},
	}})

	err := svc.Delete(ctx, "n1")

	var foreign *ForeignPortsError
	if !errors.As(err, &foreign) || len(foreign.Ports) != 1 || !strings.Contains(err.Error(), "gw, project none, owner network:router_gateway, device r1") {
		t.Fatalf("err = %v, want the router's gateway port named", err)
	}

	for _, c := range api.Calls() {
		if strings.HasPrefix(c, "DELETE") {
			t.Fatalf("%s after a refusal", c)
		}
	}
}

// Read: a network gone by its ID is found again by name (said in RefoundFrom) when an
// interrupted create left it; gone altogether, it is nil.
func TestObserveRefound(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks/old", http.StatusNotFound, map[string]any{})
	api.Sequence("GET", "/v2.0/networks", nets(marked(net("new", "pn"), naming.MadeFor(TypeName), true)), nets())
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, map[string]any{"subnets": []any{}})

	out, err := svc.Observe(ctx, "old", "pn")
	if err != nil || out.ID != "new" || out.RefoundFrom != "old" {
		t.Fatalf("Observe = %+v, %v", out, err)
	}

	if out, err := svc.Observe(ctx, "old", "pn"); out != nil || err != nil {
		t.Fatalf("Observe of a gone network = %+v, %v; want nil", out, err)
	}
}

// Subnets converge by name: one no longer wanted is deleted, one whose CIDR changed is
// replaced, one changed in place is updated, deletes before creates.
func TestConvergeSubnets(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	sub := func(id, name, cidr string) map[string]any {
		return map[string]any{"id": id, "name": name, "cidr": cidr, "network_id": "n1", "enable_dhcp": true, "gateway_ip": ""}
	}

	api.Sequence("GET", "/v2.0/subnets",
		map[string]any{"subnets": []any{sub("s-gone", "gone", "10.0.0.0/24"), sub("s-a", "a", "10.0.1.0/24"), sub("s-b", "b", "10.0.2.0/24")}},
		map[string]any{"subnets": []any{}}, // the create's lookups
	)
	api.Reply("DELETE", "/v2.0/subnets/s-gone", http.StatusNoContent, nil)
	api.Reply("DELETE", "/v2.0/subnets/s-b", http.StatusNoContent, nil)
	api.Reply("PUT", "/v2.0/subnets/s-a", http.StatusOK, map[string]any{"subnet": sub("s-a", "a", "10.0.1.0/24")})
	api.Reply("POST", "/v2.0/subnets", http.StatusCreated, map[string]any{"subnet": sub("s-b2", "b", "10.0.3.0/24")})

	out, err := svc.convergeSubnets(ctx, "n1", []SubnetSpec{
		{Name: "a", CIDR: "10.0.1.0/24", EnableDHCP: false},
		{Name: "b", CIDR: "10.0.3.0/24", EnableDHCP: true},
	})
	if err != nil || len(out) != 2 {
		t.Fatalf("converge = %+v, %v", out, err)
	}

	order := api.Writes()

	want := "DELETE /v2.0/subnets/s-gone, DELETE /v2.0/subnets/s-b, PUT /v2.0/subnets/s-a, POST /v2.0/subnets"
	if strings.Join(order, ", ") != want {
		t.Fatalf("calls %v, want %s", order, want)
	}
}
