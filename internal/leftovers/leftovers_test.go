package leftovers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// tenantCloud is a Nova, Neutron and Octavia of one region on the fake, holding a few tenant
// objects of project p-1 and some of another project (which an admin listing would show).
func tenantCloud(t *testing.T) (*cloudtest.API, regionClients) {
	t.Helper()

	f := cloudtest.New(t)

	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		map[string]any{"id": "s-1", "name": "web", "tenant_id": "p-1", "status": "ACTIVE"},
	}})
	f.Reply("GET", "/lb/v2.0/lbaas/loadbalancers", 200, map[string]any{"loadbalancers": []any{
		map[string]any{"id": "lb-1", "name": "lb-web", "project_id": "p-1", "provisioning_status": "ACTIVE"},
		map[string]any{"id": "lb-x", "name": "theirs", "project_id": "p-other", "provisioning_status": "ACTIVE"},
	}})
	f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{
		map[string]any{"id": "fip-1", "floating_ip_address": "203.0.113.5", "project_id": "p-1"},
	}})
	f.Reply("GET", "/network/v2.0/routers", 200, map[string]any{"routers": []any{
		map[string]any{"id": "r-1", "name": "network-a", "project_id": "p-1"},
	}})
	f.Reply("GET", "/network/v2.0/networks", 200, map[string]any{"networks": []any{
		map[string]any{"id": "n-1", "name": "network-a", "project_id": "p-1"},
		map[string]any{"id": "n-shared", "name": "public", "project_id": "p-admin"},
	}})
	f.Reply("GET", "/network/v2.0/security-groups", 200, map[string]any{"security_groups": []any{
		map[string]any{"id": "sg-def", "name": "default", "project_id": "p-1"},
		map[string]any{"id": "sg-1", "name": "securitygroup-a", "project_id": "p-1"},
	}})
	f.On("GET", "/network/v2.0/ports", func(w http.ResponseWriter, r *http.Request) {
		all := []any{
			map[string]any{"id": "port-srv", "project_id": "p-1", "device_owner": "compute:nova", "device_id": "s-1"},
			map[string]any{"id": "port-rif", "project_id": "p-1", "device_owner": "network:router_interface", "device_id": "r-1"},
			map[string]any{"id": "port-vip", "project_id": "p-1", "device_owner": "Octavia", "device_id": "lb-1"},
			map[string]any{"id": "port-free", "name": "spare", "project_id": "p-1", "device_owner": ""},
		}

		if dev := r.URL.Query().Get("device_id"); dev != "" {
			all = slices.DeleteFunc(all, func(p any) bool {
				m, _ := p.(map[string]any)
				return m["device_id"] != dev
			})
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"ports": all})
	})

	return f, regionClients{
		region:       "RegionTwo",
		compute:      f.ServiceClient("/compute/", "/compute/"),
		network:      f.ServiceClient("/network/v2.0/", "/network/v2.0/"),
		loadBalancer: f.ServiceClient("/lb/v2.0/", "/lb/v2.0/"),
	}
}

// deletable serves the object at path on f: GET answers body until a DELETE (answered
// status), and 404 after it.
func deletable(f *cloudtest.API, path string, status int, body any) {
	var deleted atomic.Bool

	f.On("DELETE", path, func(w http.ResponseWriter, _ *http.Request) {
		deleted.Store(true)
		w.WriteHeader(status)
	})
	f.On("GET", path, func(w http.ResponseWriter, _ *http.Request) {
		if deleted.Load() {
			http.Error(w, "{}", http.StatusNotFound)
			return
		}

		cloudtest.WriteJSON(w, http.StatusOK, body)
	})
}

func TestFindLeftovers(t *testing.T) {
	t.Parallel()

	f, rc := tenantCloud(t)

	got, err := find(context.Background(), rc, "p-1")
	if err != nil {
		t.Fatal(err)
	}

	// Every leftover is of the fake's region; by kind, in the order find lists them: the
	// default security group and the ports that go with their owners are no leftovers.
	var want []Object
	for _, o := range [][3]string{
		{KindServer, "s-1", "web"}, {KindLoadBalancer, "lb-1", "lb-web"}, {KindFloatingIP, "fip-1", "203.0.113.5"},
		{KindRouter, "r-1", "network-a"}, {KindNetwork, "n-1", "network-a"}, {KindSecurityGroup, "sg-1", "securitygroup-a"},
		{KindPort, "port-free", "spare"},
	} {
		want = append(want, Object{Region: "RegionTwo", Kind: o[0], ID: o[1], Name: o[2]})
	}

	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("leftovers (-want +got):\n%s", diff)
	}

	// Every Neutron and Octavia list asks for the project only.
	for _, r := range f.Requests() {
		if strings.HasPrefix(r.Path, "/network/") || strings.HasPrefix(r.Path, "/lb/") {
			if r.Query.Get("project_id") != "p-1" {
				t.Fatalf("%s?%s lists without the project filter", r, r.Query.Encode())
			}
		}
	}
}

func TestErrorListsThem(t *testing.T) {
	t.Parallel()

	err := error(&Error{ProjectID: "p-1", Owner: "identity", Objects: []Object{
		{"RegionOne", KindServer, "s-1", "web"},
		{"RegionTwo", KindNetwork, "n-1", "network-a"},
		{"RegionTwo", KindFloatingIP, "fip-1", ""},
	}})

	msg := err.Error()
	for _, want := range []string{
		"project p-1 still holds 3 tenant object(s)",
		"in region RegionOne:\n    - server \"web\" (s-1)",
		"in region RegionTwo:\n    - network \"network-a\" (n-1)\n    - floating IP fip-1",
		"force_destroy = true to delete them together with the identity.",
	} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message lacks %q:\n%s", want, msg)
		}
	}

	var le *Error
	if !errors.As(err, &le) {
		t.Fatal("not an *Error")
	}
}

func TestForceDeleteOrder(t *testing.T) {
	t.Parallel()

	f, rc := tenantCloud(t)

	deletable(f, "/lb/v2.0/lbaas/loadbalancers/lb-1", http.StatusNoContent,
		map[string]any{"loadbalancer": map[string]any{"id": "lb-1", "provisioning_status": "ACTIVE"}})
	deletable(f, "/compute/servers/s-1", http.StatusNoContent, map[string]any{"server": map[string]any{"id": "s-1", "status": "ACTIVE"}})
	f.Reply("PUT", "/network/v2.0/routers/r-1/remove_router_interface", 200, map[string]any{"id": "r-1"})

	for _, p := range []string{"floatingips/fip-1", "routers/r-1", "networks/n-1", "security-groups/sg-1"} {
		f.Reply("DELETE", "/network/v2.0/"+p, http.StatusNoContent, nil)
	}
	// Ports answer 404 on delete here: already gone with their owners, which is fine.

	if err := forceDelete(context.Background(), rc, "p-1"); err != nil {
		t.Fatal(err)
	}

	mutations := f.Writes()

	order := []string{
		"DELETE /lb/v2.0/lbaas/loadbalancers/lb-1",
		"DELETE /compute/servers/s-1",
		"DELETE /network/v2.0/floatingips/fip-1",
		"PUT /network/v2.0/routers/r-1/remove_router_interface",
		"DELETE /network/v2.0/routers/r-1",
		"DELETE /network/v2.0/ports/port-free",
		"DELETE /network/v2.0/networks/n-1",
		"DELETE /network/v2.0/security-groups/sg-1",
	}

	last := -1

	for _, want := range order {
		i := slices.Index(mutations, want)
		if i < 0 || i < last {
			t.Fatalf("%s missing or out of order in %v", want, mutations)
		}

		last = i
	}

	if slices.Contains(mutations, "DELETE /network/v2.0/security-groups/sg-def") {
		t.Fatal("force delete removed the default security group early (it goes last, before the project)")
	}

	lbDelete := f.Last(t, "DELETE /lb/v2.0/lbaas/loadbalancers/lb-1")
	if len(lbDelete.Body) != 0 {
		t.Fatalf("unexpected body %s", lbDelete.Body)
	}

	if q := lbDelete.Query.Encode(); q != "cascade=true" {
		t.Fatalf("load balancer deleted without cascade (%q)", q)
	}
}

func TestDeleteDefaultSecurityGroups(t *testing.T) {
	t.Parallel()

	f, rc := tenantCloud(t)
	f.On("DELETE", "/network/v2.0/security-groups/sg-def", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})

	if err := deleteDefaultSecurityGroups(context.Background(), rc.network, "p-1"); err != nil {
		t.Fatal(err)
	}

	if f.Count("DELETE /network/v2.0/security-groups/sg-def") != 1 || f.Count("DELETE /network/v2.0/security-groups/sg-1") != 0 {
		t.Fatalf("calls %v: want only the default group deleted", f.Calls())
	}
}

func TestVolumesOnlyWhenAsked(t *testing.T) {
	t.Parallel()

	f, rc := tenantCloud(t)

	f.Reply("GET", "/volume/v3/volumes/detail", 200, map[string]any{"volumes": []any{
		map[string]any{"id": "v-1", "name": "data", "os-vol-tenant-attr:tenant_id": "p-1", "status": "available"},
		map[string]any{"id": "v-x", "name": "theirs", "os-vol-tenant-attr:tenant_id": "p-other", "status": "available"},
	}})
	deletable(f, "/volume/v3/volumes/v-1", http.StatusAccepted, map[string]any{"volume": map[string]any{"id": "v-1", "status": "deleting"}})

	without, err := find(context.Background(), rc, "p-1")
	if err != nil {
		t.Fatal(err)
	}

	if f.Count("GET /volume/v3/volumes/detail") != 0 || slices.ContainsFunc(without, func(o Object) bool { return o.Kind == KindVolume }) {
		t.Fatalf("volumes looked for without being asked: %v", without)
	}

	rc.blockStorage = f.ServiceClient("/volume/v3/", "/volume/v3/")

	with, err := find(context.Background(), rc, "p-1")
	if err != nil {
		t.Fatal(err)
	}

	if last := with[len(with)-1]; last != (Object{"RegionTwo", KindVolume, "v-1", "data"}) {
		t.Fatalf("the last leftover is %v, want volume v-1 (and not another project's)", last)
	}

	if err := deleteVolumes(context.Background(), rc.blockStorage, "p-1"); err != nil {
		t.Fatal(err)
	}

	if q := f.Last(t, "DELETE /volume/v3/volumes/v-1").Query.Encode(); q != "cascade=true" {
		t.Fatalf("volume deleted without its snapshots (%q)", q)
	}

	if f.Count("DELETE /volume/v3/volumes/v-x") != 0 {
		t.Fatal("another project's volume was deleted")
	}
}
