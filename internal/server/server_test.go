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

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func baseSpec() Spec {
	return Spec{
		Name: "web", NetworkID: "net-1", FlavorID: "flavor-tiny", ImageID: "img-1",
		SecurityGroupIDs: []string{"sg-1"}, PowerState: PowerRunning,
		Tags: map[string]string{"monitoring.example.com/team-name": "blue"},
	}
}

func TestEnsureCreates(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	serverReads(f,
		map[string]any{"server": novaServer("srv-1", "web", "BUILD", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
	echoMetadata(f)

	spec := baseSpec()
	spec.SSHKey = true
	spec.UserData = []byte("aGVsbG8=") // valid base64 itself: must still be encoded once more

	out, err := service(f).Ensure(context.Background(), spec, Known{})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ID != "srv-1" || out.Port.ID != "port-1" || out.Status != "ACTIVE" || out.FlavorID != "flavor-tiny" || out.FlavorName != "m1.tiny" {
		t.Fatalf("Ensure = %+v (port %+v)", out, out.Port)
	}

	port := f.Last(t, "POST /network/v2.0/ports").JSON(t, "port")
	if port["name"] != "server-web" || port["network_id"] != "net-1" || !slices.Equal(anyStrings(port["security_groups"]), []string{"sg-1"}) {
		t.Fatalf("port created with %v", port)
	}

	srv := f.Last(t, "POST /compute/servers").JSON(t, "server")
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

	md := f.Last(t, "PUT /compute/servers/srv-1/metadata").JSON(t, "metadata")
	if md["serverID"] != "srv-1" || md["region:server_id"] != "srv-1" || len(md) != 9 {
		t.Fatalf("metadata = %v, want the 8 system keys and the tag", md)
	}

	if f.Count("GET /network/v2.0/floatingips") != 0 {
		t.Fatal("asked for floating IPs of a port made by this call")
	}
}

// TestEnsureCreatesWithPublicIP: the floating IP of a new server goes on while it boots, from
// the external network of its network's router, so that Nova shows it once the server is up.
func TestEnsureCreatesWithPublicIP(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	externalGateway(t, f)
	serverReads(f,
		map[string]any{"server": novaServer("srv-1", "web", "BUILD", nil)},
		map[string]any{"server": withFloating(novaServer("srv-1", "web", "ACTIVE", nil), "203.0.113.7")})
	echoMetadata(f)

	spec := baseSpec()
	spec.PublicIP = true

	out, err := service(f).Ensure(context.Background(), spec, Known{})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.PublicIPAddress != "203.0.113.7" || len(out.Notes) != 0 {
		t.Fatalf("Ensure = %+v, want the floating address seen by Nova", out)
	}

	calls := f.Calls()
	if fip, poll := slices.Index(calls, "POST /network/v2.0/floatingips"), slices.Index(calls, "GET /compute/servers/srv-1"); fip < 0 || fip > poll {
		t.Fatalf("calls = %v, want the floating IP made before the wait for the server", calls)
	}

	if body := f.Last(t, "POST /network/v2.0/floatingips").JSON(t, "floatingip"); body["floating_network_id"] != "ext-1" ||
		body["description"] != "unikorn_server server-web" {
		t.Fatalf("floating IP created with %v", body)
	}

	if n := f.Count("GET /compute/servers/srv-1"); n != 2 {
		t.Fatalf("read the server %d times, want 2 (BUILD, then ACTIVE with the address)", n)
	}
}

func TestEnsureCreateFailsWithFault(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"code": 500, "message": "No valid host was found."}})})

	out, err := service(f).Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || !strings.Contains(err.Error(), "No valid host was found.") {
		t.Fatalf("err = %v, want Nova's fault", err)
	}

	if out == nil || out.ID != "srv-1" || out.Port == nil || out.Port.ID != "port-1" {
		t.Fatalf("out = %+v, want the server and port to record", out)
	}

	if n := f.Count("GET /compute/servers/srv-1"); n != 1 {
		t.Fatalf("polled %d times, want to stop at the first ERROR", n)
	}
}

// TestEnsureAdopts: the server and port an interrupted create left (marked, unfinished) are
// adopted; a converged one costs only its completion mark.
func TestEnsureAdopts(t *testing.T) {
	t.Parallel()

	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{
		neutronPort("port-near", "server-web2", "srv-near", nil),
		tagged(neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})),
	}})

	md := map[string]any{}
	want, _, _ := DesiredMetadata("srv-1", Linkage{OrganizationID: "org-1", ProjectID: "proj-1", Region: "RegionOne"}, baseSpec().Tags)

	for k, v := range want {
		md[k] = v
	}

	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-near", "web2", "ACTIVE", nil),
		novaServer("srv-1", "web", "ACTIVE", marked(made, md)),
	}})
	f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
	answerCompletion(f)

	out, err := service(f).Ensure(context.Background(), baseSpec(), Known{FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ID != "srv-1" || out.Port.ID != "port-1" {
		t.Fatalf("adopted %s on %s, want srv-1 on port-1", out.ID, out.Port.ID)
	}

	if writes := f.Writes(); !slices.Equal(writes, []string{"PUT /compute/servers/srv-1/metadata/" + naming.MarkCompletedKey}) {
		t.Errorf("adopting a converged server sent %v, want only its completion mark", writes)
	}

	if q := f.Last(t, "GET /compute/servers/detail").Query["name"]; len(q) != 1 || q[0] != "^web$" {
		t.Fatalf("Nova name filter = %v, want the anchored ^web$", q)
	}
}

func TestEnsureRefusesUnpairedServer(t *testing.T) {
	t.Parallel()

	// Both of an interrupted create (marked), but the port is another device's.
	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{tagged(neutronPort("port-1", "server-web", "other", nil))}})
	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{novaServer("srv-1", "web", "ACTIVE", marked(made, nil))}})

	_, err := service(f).Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || !strings.Contains(err.Error(), "not attached to port server-web") {
		t.Fatalf("err = %v, want the pairing conflict", err)
	}

	if writes := f.Writes(); len(writes) > 0 {
		t.Errorf("sent %v despite the conflict", writes)
	}
}

func TestEnsureDuplicateServers(t *testing.T) {
	t.Parallel()

	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-b", "web", "ACTIVE", nil), novaServer("srv-a", "web", "ACTIVE", nil),
	}})

	_, err := service(f).Ensure(context.Background(), baseSpec(), Known{})

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !slices.Equal(dup.IDs, []string{"srv-a", "srv-b"}) {
		t.Fatalf("err = %v, want a DuplicateError naming both", err)
	}
}

func TestEnsureUpdatesInPlace(t *testing.T) {
	t.Parallel()

	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.On("PUT", "/network/v2.0/ports/port-1", func(w http.ResponseWriter, _ *http.Request) {
		cloudtest.WriteJSON(w, 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-2"})})
	})

	active := novaServer("srv-1", "web", "ACTIVE", marked(made.Done(), nil))
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": active})
	echoMetadata(f)
	externalGateway(t, f)
	// Nova catches up with Neutron on the second read.
	serverReads(f,
		map[string]any{"server": active}, map[string]any{"server": withFloating(active, "203.0.113.7")})

	spec := baseSpec()
	spec.SecurityGroupIDs = []string{"sg-2"}
	spec.PublicIP = true

	out, err := service(f).Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.PublicIPAddress != "203.0.113.7" || !slices.Equal(out.Port.SecurityGroupIDs, []string{"sg-2"}) {
		t.Fatalf("Ensure = %+v (port %+v)", out, out.Port)
	}

	if sgs := anyStrings(f.Last(t, "PUT /network/v2.0/ports/port-1").JSON(t, "port")["security_groups"]); !slices.Equal(sgs, []string{"sg-2"}) {
		t.Fatalf("port updated with groups %v", sgs)
	}

	fip := f.Last(t, "POST /network/v2.0/floatingips").JSON(t, "floatingip")
	if fip["floating_network_id"] != "ext-1" || fip["port_id"] != "port-1" || fip["description"] != floatingIPDescription("web") {
		t.Fatalf("floating IP created with %v", fip)
	}

	for _, call := range []string{"GET /compute/servers/detail", "POST /compute/servers/srv-1/action", "GET /compute/flavors/flavor-tiny"} {
		if n := f.Count(call); n != 0 {
			t.Errorf("%s sent %d times, want none (nothing to rebuild, resize or look up)", call, n)
		}
	}
}

func TestEnsureResizeNoHost(t *testing.T) {
	t.Parallel()

	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.Reply("GET", "/compute/flavors/flavor-small", 200, map[string]any{"flavor": map[string]any{"id": "flavor-small", "name": "m1.small"}})
	f.Reply("POST", "/compute/servers/srv-1/action", 202, nil)
	serverReads(f,
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "RESIZE", nil)},
		map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})

	spec := baseSpec()
	spec.FlavorID = "flavor-small"

	out, err := service(f).Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err == nil || !strings.Contains(err.Error(), "no host") {
		t.Fatalf("err = %v, want the resize that did not happen reported", err)
	}

	if out == nil || out.FlavorID != "flavor-tiny" {
		t.Fatalf("out = %+v, want the server recorded on its old flavor", out)
	}

	if body := f.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "resize"); body["flavorRef"] != "flavor-small" {
		t.Fatalf("resize body = %v", body)
	}
}

func TestEnsureRebuildsForImageAndUserData(t *testing.T) {
	t.Parallel()

	f := newProject(t)
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})
	f.Reply("POST", "/compute/servers/srv-1/action", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})

	rebuilt := marked(made.Done(), nil)
	rebuilt["image"] = map[string]any{"id": "img-2"}

	serverReads(f,
		map[string]any{"server": novaServer("srv-1", "web", "SHUTOFF", marked(made.Done(), nil))},
		map[string]any{"server": novaServer("srv-1", "web", "REBUILD", marked(made.Done(), nil))},
		map[string]any{"server": novaServer("srv-1", "web", "SHUTOFF", rebuilt)})
	echoMetadata(f)
	f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})

	spec := baseSpec()
	spec.ImageID = "img-2"
	spec.UserData = []byte("#cloud-config\n")
	spec.PowerState = PowerStopped

	out, err := service(f).Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if out.ImageID != "img-2" || out.Status != "SHUTOFF" {
		t.Fatalf("Ensure = %+v", out)
	}

	rebuild := f.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "rebuild")
	if rebuild["imageRef"] != "img-2" || rebuild["user_data"] != base64.StdEncoding.EncodeToString(spec.UserData) {
		t.Fatalf("rebuild body = %v", rebuild)
	}

	if v, ok := rebuild["key_name"]; !ok || v != nil {
		t.Fatalf("rebuild key_name = %v (%v), want an explicit null", v, ok)
	}
}

func TestObserveTwoRequests(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": withFloating(novaServer("srv-1", "web", "ACTIVE", nil), "203.0.113.7")})
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"})})

	out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}

	if out.PublicIPAddress != "203.0.113.7" || out.FlavorID != "flavor-tiny" || out.Port.PrivateIP != "10.0.0.5" || out.UserID != "u1" {
		t.Fatalf("Observe = %+v", out)
	}

	if n := len(f.Calls()); n != 2 {
		t.Fatalf("Observe sent %d requests (%v), want 2", n, f.Calls())
	}
}

func TestObserveResolvesChangedFlavor(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE",
		map[string]any{"flavor": map[string]any{"original_name": "m1.small"}})})
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", nil)})
	f.Reply("GET", "/compute/flavors/detail", 200, map[string]any{"flavors": []any{
		map[string]any{"id": "flavor-tiny", "name": "m1.tiny"}, map[string]any{"id": "flavor-small", "name": "m1.small"},
	}})

	out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
	if err != nil || out.FlavorID != "flavor-small" {
		t.Fatalf("Observe = %+v, %v; want the flavor resized out of band", out, err)
	}
}

func TestObserveReportsFault(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"code": 500, "message": "Build of instance aborted"}})})
	f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": neutronPort("port-1", "server-web", "srv-1", nil)})

	out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "f", FlavorName: "m1.tiny"})
	if err != nil || out.Status != "ERROR" || out.Fault != "Build of instance aborted (code 500)" {
		t.Fatalf("Observe = %+v, %v; want the ERROR and its fault", out, err)
	}
}

func TestObserveGone(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	// srv-1 answers 404 (no route); the name lookup finds only a near miss.
	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{novaServer("srv-2", "web2", "ACTIVE", nil)}})

	out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"})
	if err != nil || out != nil {
		t.Fatalf("Observe = %+v, %v; want gone", out, err)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("DELETE", "/compute/servers/srv-1", 204, nil)

	gone := false

	f.On("GET", "/compute/servers/srv-1", func(w http.ResponseWriter, _ *http.Request) {
		if gone {
			cloudtest.WriteJSON(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404}})
			return
		}

		gone = true

		cloudtest.WriteJSON(w, 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", map[string]any{"OS-EXT-STS:task_state": "deleting"})})
	})
	ours := map[string]any{"id": "fip-ours", "floating_ip_address": "203.0.113.7", "port_id": "port-1", "description": floatingIPDescription("web")}
	f.On("GET", "/network/v2.0/floatingips", func(w http.ResponseWriter, r *http.Request) {
		switch q := r.URL.Query(); {
		case q.Get("port_id") == "port-1":
			cloudtest.WriteJSON(w, 200, map[string]any{"floatingips": []any{ours,
				map[string]any{"id": "fip-hand", "floating_ip_address": "203.0.113.8", "port_id": "port-1", "description": "reserved"}}})
		case q.Get("description") == floatingIPDescription("web"):
			// One a lost answer left on no port: made for this server, so deleted too.
			cloudtest.WriteJSON(w, 200, map[string]any{"floatingips": []any{ours,
				map[string]any{"id": "fip-orphan", "floating_ip_address": "203.0.113.9", "description": floatingIPDescription("web")}}})
		default:
			t.Errorf("floating IP query %v", q)
		}
	})
	f.Reply("DELETE", "/network/v2.0/floatingips/fip-orphan", 204, nil)
	f.Reply("DELETE", "/network/v2.0/floatingips/fip-ours", 404, nil) // already gone: fine
	f.Reply("PUT", "/network/v2.0/floatingips/fip-hand", 200, map[string]any{"floatingip": map[string]any{"id": "fip-hand"}})
	f.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

	if err := service(f).Delete(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	if body := f.Last(t, "PUT /network/v2.0/floatingips/fip-hand").JSON(t, "floatingip"); body["port_id"] != nil {
		t.Fatalf("foreign floating IP updated with %v, want it detached", body)
	}

	want := []string{
		"DELETE /compute/servers/srv-1", "GET /compute/servers/srv-1", "GET /compute/servers/srv-1",
		"GET /network/v2.0/floatingips", "GET /network/v2.0/floatingips",
		"PUT /network/v2.0/floatingips/fip-hand", "DELETE /network/v2.0/floatingips/fip-ours", "DELETE /network/v2.0/floatingips/fip-orphan",
		"DELETE /network/v2.0/ports/port-1",
	}
	if got := f.Calls(); !slices.Equal(got, want) {
		t.Fatalf("calls = %v\nwant    %v", got, want)
	}
}

func TestDeleteFailedDeletionReportsFault(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("DELETE", "/compute/servers/srv-1", 204, nil)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ERROR",
		map[string]any{"fault": map[string]any{"message": "disk is busy"}})})

	err := service(f).Delete(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-1"})
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
