package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// echoMetadata answers a metadata PUT with what it was sent, as Nova does.
func echoMetadata(f *fakeAPI, path string) {
	f.on("PUT", path, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		writeJSON(w, http.StatusOK, body)
	})
}

func baseSpec() Spec {
	return Spec{
		Name: "web", NetworkID: "net-1", FlavorID: "flavor-tiny", ImageID: "img-1",
		SecurityGroupIDs: []string{"sg-1"}, PowerState: PowerRunning,
		Tags: map[string]string{"monitoring.example.com/team-name": "blue"},
	}
}

func TestEnsureCreates(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{}})
	f.reply("POST", "/network/v2.0/ports", 201, map[string]any{"port": neutronPort("port-1", "server-web", "", []string{"sg-1"})})
	f.reply("POST", "/compute/servers", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
	f.serverReads(
		map[string]any{"server": novaServer("srv-1", "web", "BUILD", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
	echoMetadata(f, "/compute/servers/srv-1/metadata")

	spec := baseSpec()
	spec.SSHKey = true
	spec.UserData = []byte("aGVsbG8=") // valid base64 itself: must still be encoded once more

	out, err := f.service().Ensure(context.Background(), spec, Known{})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ID != "srv-1" || out.Port.ID != "port-1" || out.Status != "ACTIVE" || out.FlavorID != "flavor-tiny" || out.FlavorName != "m1.tiny" {
		t.Fatalf("Ensure = %+v (port %+v)", out, out.Port)
	}

	port := f.last("POST /network/v2.0/ports").body(t, "port")
	if port["name"] != "server-web" || port["network_id"] != "net-1" || !slices.Equal(anyStrings(port["security_groups"]), []string{"sg-1"}) {
		t.Fatalf("port created with %v", port)
	}

	srv := f.last("POST /compute/servers").body(t, "server")
	if srv["name"] != "web" || srv["flavorRef"] != "flavor-tiny" || srv["imageRef"] != "img-1" || srv["key_name"] != naming.KeypairName {
		t.Fatalf("server created with %v", srv)
	}

	if srv["user_data"] != base64.StdEncoding.EncodeToString([]byte("aGVsbG8=")) {
		t.Fatalf("user_data = %v, want the data base64-encoded once", srv["user_data"])
	}

	nets, _ := srv["networks"].([]any)
	if first, ok := nets[0].(map[string]any); len(nets) != 1 || !ok || first["port"] != "port-1" {
		t.Fatalf("networks = %v", srv["networks"])
	}

	createMD, _ := srv["metadata"].(map[string]any)
	for key, want := range map[string]string{
		"organizationID": "org-1", "identity:organization_id": "org-1", "projectID": "proj-1", "identity:project_id": "proj-1",
		"regionID": "RegionOne", "region:region_id": "RegionOne", "monitoring:team_name": "blue",
	} {
		if createMD[key] != want {
			t.Errorf("create metadata %s = %v, want %s", key, createMD[key], want)
		}
	}

	md := f.last("PUT /compute/servers/srv-1/metadata").body(t, "metadata")
	if md["serverID"] != "srv-1" || md["region:server_id"] != "srv-1" || len(md) != 9 {
		t.Fatalf("metadata = %v, want the 8 system keys and the tag", md)
	}

	if f.count("GET /network/v2.0/floatingips") != 0 {
		t.Fatal("asked for floating IPs of a port made by this call")
	}
}

func TestEnsureCreateFailsWithFault(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{}})
	f.reply("POST", "/network/v2.0/ports", 201, map[string]any{"port": neutronPort("port-1", "server-web", "", nil)})
	f.reply("POST", "/compute/servers", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"code": 500, "message": "No valid host was found."}})})

	out, err := f.service().Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || !strings.Contains(err.Error(), "No valid host was found.") {
		t.Fatalf("err = %v, want Nova's fault", err)
	}

	if out == nil || out.ID != "srv-1" || out.Port == nil || out.Port.ID != "port-1" {
		t.Fatalf("out = %+v, want the server and port to record", out)
	}

	if n := f.count("GET /compute/servers/srv-1"); n != 1 {
		t.Fatalf("polled %d times, want to stop at the first ERROR", n)
	}
}

func TestEnsureServerCreateErrorDeletesFreshPort(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{}})
	f.reply("POST", "/network/v2.0/ports", 201, map[string]any{"port": neutronPort("port-1", "server-web", "", nil)})
	f.reply("POST", "/compute/servers", 400, map[string]any{"badRequest": map[string]any{"message": "Invalid flavorRef", "code": 400}})
	f.reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

	out, err := f.service().Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || out != nil {
		t.Fatalf("Ensure = %+v, %v; want no server and an error", out, err)
	}

	if f.count("DELETE /network/v2.0/ports/port-1") != 1 {
		t.Fatal("the port made for the failed server was left behind")
	}
}

func TestEnsureAdopts(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{
		neutronPort("port-near", "server-web2", "srv-near", nil),
		neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"}),
	}})

	md := map[string]any{}
	want, _, _ := DesiredMetadata("srv-1", Linkage{OrganizationID: "org-1", ProjectID: "proj-1", Region: "RegionOne"}, baseSpec().Tags)

	for k, v := range want {
		md[k] = v
	}

	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-near", "web2", "ACTIVE", nil),
		novaServer("srv-1", "web", "ACTIVE", map[string]any{"metadata": md}),
	}})
	f.reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})

	out, err := f.service().Ensure(context.Background(), baseSpec(), Known{FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ID != "srv-1" || out.Port.ID != "port-1" {
		t.Fatalf("adopted %s on %s, want srv-1 on port-1", out.ID, out.Port.ID)
	}

	for _, call := range f.calls() {
		if !strings.HasPrefix(call, "GET ") {
			t.Errorf("adopting a converged server sent %s", call)
		}
	}

	if q := f.last("GET /compute/servers/detail").Query["name"]; len(q) != 1 || q[0] != "^web$" {
		t.Fatalf("Nova name filter = %v, want the anchored ^web$", q)
	}
}

func TestEnsureRefusesUnpairedServer(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{neutronPort("port-1", "server-web", "other", nil)}})
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{novaServer("srv-1", "web", "ACTIVE", nil)}})

	_, err := f.service().Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || !strings.Contains(err.Error(), "not attached to port server-web") {
		t.Fatalf("err = %v, want the pairing conflict", err)
	}

	for _, call := range f.calls() {
		if !strings.HasPrefix(call, "GET ") {
			t.Errorf("sent %s despite the conflict", call)
		}
	}
}

func TestEnsureDuplicateServers(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-b", "web", "ACTIVE", nil), novaServer("srv-a", "web", "ACTIVE", nil),
	}})

	_, err := f.service().Ensure(context.Background(), baseSpec(), Known{})

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !slices.Equal(dup.IDs, []string{"srv-a", "srv-b"}) {
		t.Fatalf("err = %v, want a DuplicateError naming both", err)
	}
}

func TestEnsureUpdatesInPlace(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.on("PUT", "/network/v2.0/ports/port-1", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-2"})})
	})

	active := novaServer("srv-1", "web", "ACTIVE", nil)
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": active})
	echoMetadata(f, "/compute/servers/srv-1/metadata")
	f.reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
	f.reply("GET", "/network/v2.0/routers/router-1", 200, map[string]any{"router": map[string]any{
		"id": "router-1", "external_gateway_info": map[string]any{"network_id": "ext-1"},
	}})
	f.on("GET", "/network/v2.0/ports", func(w http.ResponseWriter, r *http.Request) {
		if owners := r.URL.Query()["device_owner"]; len(owners) != 3 || r.URL.Query().Get("network_id") != "net-1" {
			t.Errorf("router interface query = %v", r.URL.Query())
		}

		writeJSON(w, 200, map[string]any{"ports": []any{map[string]any{"id": "rif", "device_id": "router-1", "network_id": "net-1"}}})
	})
	f.reply("POST", "/network/v2.0/floatingips", 201, map[string]any{"floatingip": map[string]any{
		"id": "fip-1", "floating_ip_address": "203.0.113.7", "port_id": "port-1",
	}})
	// Nova catches up with Neutron on the second read.
	f.serverReads(
		map[string]any{"server": active}, map[string]any{"server": withFloating(active, "203.0.113.7")})

	spec := baseSpec()
	spec.SecurityGroupIDs = []string{"sg-2"}
	spec.PublicIP = true

	out, err := f.service().Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.PublicIPAddress != "203.0.113.7" || !slices.Equal(out.Port.SecurityGroupIDs, []string{"sg-2"}) {
		t.Fatalf("Ensure = %+v (port %+v)", out, out.Port)
	}

	if sgs := anyStrings(f.last("PUT /network/v2.0/ports/port-1").body(t, "port")["security_groups"]); !slices.Equal(sgs, []string{"sg-2"}) {
		t.Fatalf("port updated with groups %v", sgs)
	}

	fip := f.last("POST /network/v2.0/floatingips").body(t, "floatingip")
	if fip["floating_network_id"] != "ext-1" || fip["port_id"] != "port-1" || fip["description"] != floatingIPDescription("web") {
		t.Fatalf("floating IP created with %v", fip)
	}

	for _, call := range []string{"GET /compute/servers/detail", "POST /compute/servers/srv-1/action", "GET /compute/flavors/flavor-tiny"} {
		if n := f.count(call); n != 0 {
			t.Errorf("%s sent %d times, want none (nothing to rebuild, resize or look up)", call, n)
		}
	}
}

func TestEnsureResizeNoHost(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.reply("GET", "/compute/flavors/flavor-small", 200, map[string]any{"flavor": map[string]any{"id": "flavor-small", "name": "m1.small"}})
	f.reply("POST", "/compute/servers/srv-1/action", 202, nil)
	f.serverReads(
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "RESIZE", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})

	spec := baseSpec()
	spec.FlavorID = "flavor-small"

	out, err := f.service().Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err == nil || !strings.Contains(err.Error(), "no host") {
		t.Fatalf("err = %v, want the resize that did not happen reported", err)
	}

	if out == nil || out.FlavorID != "flavor-tiny" {
		t.Fatalf("out = %+v, want the server recorded on its old flavor", out)
	}

	if body := f.last("POST /compute/servers/srv-1/action").body(t, "resize"); body["flavorRef"] != "flavor-small" {
		t.Fatalf("resize body = %v", body)
	}
}

func TestEnsureRebuildsForImageAndUserData(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/identity/projects/p1", 200, keystoneProject())
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.reply("POST", "/compute/servers/srv-1/action", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
	f.serverReads(
		map[string]any{"server": novaServer("srv-1", "web", "SHUTOFF", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "REBUILD", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "SHUTOFF", map[string]any{"image": map[string]any{"id": "img-2"}})})
	echoMetadata(f, "/compute/servers/srv-1/metadata")
	f.reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})

	spec := baseSpec()
	spec.ImageID = "img-2"
	spec.UserData = []byte("#cloud-config\n")
	spec.PowerState = PowerStopped

	out, err := f.service().Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ImageID != "img-2" || out.Status != "SHUTOFF" {
		t.Fatalf("Ensure = %+v", out)
	}

	rebuild := f.last("POST /compute/servers/srv-1/action").body(t, "rebuild")
	if rebuild["imageRef"] != "img-2" || rebuild["user_data"] != base64.StdEncoding.EncodeToString(spec.UserData) {
		t.Fatalf("rebuild body = %v", rebuild)
	}

	if v, ok := rebuild["key_name"]; !ok || v != nil {
		t.Fatalf("rebuild key_name = %v (%v), want an explicit null", v, ok)
	}
}

func TestObserveTwoRequests(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": withFloating(novaServer("srv-1", "web", "ACTIVE", nil), "203.0.113.7")})
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})

	out, err := f.service().Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}

	if out.PublicIPAddress != "203.0.113.7" || out.FlavorID != "flavor-tiny" || out.Port.PrivateIP != "10.0.0.5" || out.UserID != "u1" {
		t.Fatalf("Observe = %+v", out)
	}

	if n := len(f.calls()); n != 2 {
		t.Fatalf("Observe sent %d requests (%v), want 2", n, f.calls())
	}
}

func TestObserveResolvesChangedFlavor(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE",
		map[string]any{"flavor": map[string]any{"original_name": "m1.small"}})})
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", nil)})
	f.reply("GET", "/compute/flavors/detail", 200, map[string]any{"flavors": []any{
		map[string]any{"id": "flavor-tiny", "name": "m1.tiny"}, map[string]any{"id": "flavor-small", "name": "m1.small"},
	}})

	out, err := f.service().Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil || out.FlavorID != "flavor-small" {
		t.Fatalf("Observe = %+v, %v; want the flavor resized out of band", out, err)
	}
}

func TestObserveReportsFault(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"code": 500, "message": "Build of instance aborted"}})})
	f.reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", nil)})

	out, err := f.service().Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "f", FlavorName: "m1.tiny"})
	if err != nil || out.Status != "ERROR" || out.Fault != "Build of instance aborted (code 500)" {
		t.Fatalf("Observe = %+v, %v; want the ERROR and its fault", out, err)
	}
}

func TestObserveGone(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	// srv-1 answers 404 (no route); the name lookup finds only a near miss.
	f.reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{novaServer("srv-2", "web2", "ACTIVE", nil)}})

	out, err := f.service().Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"})
	if err != nil || out != nil {
		t.Fatalf("Observe = %+v, %v; want gone", out, err)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("DELETE", "/compute/servers/srv-1", 204, nil)

	gone := false

	f.on("GET", "/compute/servers/srv-1", func(w http.ResponseWriter, _ *http.Request) {
		if gone {
			writeJSON(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404}})
			return
		}

		gone = true

		writeJSON(w, 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", map[string]any{"OS-EXT-STS:task_state": "deleting"})})
	})
	f.reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{
		map[string]any{"id": "fip-ours", "floating_ip_address": "203.0.113.7", "description": floatingIPDescription("web")},
		map[string]any{"id": "fip-hand", "floating_ip_address": "203.0.113.8", "description": "reserved"},
	}})
	f.reply("DELETE", "/network/v2.0/floatingips/fip-ours", 404, nil) // already gone: fine
	f.reply("PUT", "/network/v2.0/floatingips/fip-hand", 200, map[string]any{"floatingip": map[string]any{"id": "fip-hand"}})
	f.reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

	if err := f.service().Delete(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	if body := f.last("PUT /network/v2.0/floatingips/fip-hand").body(t, "floatingip"); body["port_id"] != nil {
		t.Fatalf("foreign floating IP updated with %v, want it detached", body)
	}

	want := []string{
		"DELETE /compute/servers/srv-1", "GET /compute/servers/srv-1", "GET /compute/servers/srv-1",
		"GET /network/v2.0/floatingips", "PUT /network/v2.0/floatingips/fip-hand", "DELETE /network/v2.0/floatingips/fip-ours",
		"DELETE /network/v2.0/ports/port-1",
	}
	if got := f.calls(); !slices.Equal(got, want) {
		t.Fatalf("calls = %v\nwant    %v", got, want)
	}
}

func TestDeleteFailedDeletionReportsFault(t *testing.T) {
	t.Parallel()

	f := newFakeAPI(t)
	f.reply("DELETE", "/compute/servers/srv-1", 204, nil)
	f.reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"message": "disk is busy"}})})

	err := f.service().Delete(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"})
	if err == nil || !strings.Contains(err.Error(), "disk is busy") {
		t.Fatalf("err = %v, want Nova's fault", err)
	}
}

func TestFloatingAddress(t *testing.T) {
	t.Parallel()

	srv := withFloating(novaServer("s", "web", "ACTIVE", nil), "203.0.113.9")

	var s struct {
		Server json.RawMessage `json:"server"`
	}

	raw, _ := json.Marshal(map[string]any{"server": srv})
	_ = json.Unmarshal(raw, &s)

	got := toServerJSON(t, s.Server)

	if a := floatingAddress(got, "FA:16:3E:00:00:01"); a != "203.0.113.9" {
		t.Fatalf("floatingAddress = %q", a)
	}

	if a := floatingAddress(got, "fa:16:3e:00:00:02"); a != "" {
		t.Fatalf("floatingAddress of another port = %q", a)
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))

	for _, item := range list {
		s, _ := item.(string)
		out = append(out, s)
	}

	return out
}

func toServerJSON(t *testing.T, raw json.RawMessage) *servers.Server {
	t.Helper()

	var srv servers.Server
	if err := json.Unmarshal(raw, &srv); err != nil {
		t.Fatal(err)
	}

	return &srv
}
