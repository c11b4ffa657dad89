package server

import (
	"encoding/json"
	"maps"
	"net/http"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the server's own fake OpenStack: the bodies of Nova servers, Neutron ports
// and the identity's Keystone project, on the one recorder of internal/cloudtest.

// service is a Service of project p1 in RegionOne against api.
func service(api *cloudtest.API) *Service {
	return &Service{
		projectID: "p1",
		region:    "RegionOne",
		compute:   api.ServiceClient("/compute/", "/compute/"),
		network:   api.ServiceClient("/network/", "/network/v2.0/"),
		keystone:  api.ServiceClient("/identity/", "/identity/"),
	}
}

// newProject is the fake with the identity's project p1 and, unless overridden, no port and no
// server called web.
func newProject(t *testing.T) *cloudtest.API {
	t.Helper()

	api := cloudtest.New(t)
	api.Reply("GET", "/identity/projects/p1", 200, keystoneProject())
	api.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{}})
	api.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{}})

	return api
}

// newCreate is newProject answering the creation of the port server-web (port-1, security
// group sg-1, posted with the creation mark as its description), its marking (the tag, then its
// own description) and the creation of the server web (srv-1) with its completion mark.
func newCreate(t *testing.T) *cloudtest.API {
	t.Helper()

	api := newProject(t)
	api.Reply("POST", "/network/v2.0/ports", 201, map[string]any{"port": posted(neutronPort("port-1", "server-web", "", []string{"sg-1"}))})
	answerPortMarks(api, "port-1")
	api.Reply("POST", "/compute/servers", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})
	answerCompletion(api)

	return api
}

// markTagPath is the path of the tag that marks port id as a unikorn_server's.
func markTagPath(id string) string {
	return "/network/v2.0/ports/" + id + "/tags/" + naming.MarkPrefix + Type
}

// answerPortMarks answers the marking of port id: its tag, then its own (empty) description.
func answerPortMarks(api *cloudtest.API, id string) {
	api.Reply("PUT", markTagPath(id), 201, nil)
	api.Reply("PUT", "/network/v2.0/ports/"+id, 200, map[string]any{"port": tagged(neutronPort(id, "server-web", "", []string{"sg-1"}))})
}

// answerCompletion answers the completion mark of server srv-1, as Nova does (the key it was sent).
func answerCompletion(api *cloudtest.API) {
	api.Reply("PUT", "/compute/servers/srv-1/metadata/"+naming.MarkCompletedKey, 200,
		map[string]any{"meta": map[string]any{naming.MarkCompletedKey: naming.MarkCompletedValue}})
}

// externalGateway answers for router-1 (the router of net-1, gateway on ext-1: its interface
// is the one port listed by device owner; a list by name finds none) and for the floating IP
// fip-1 (203.0.113.7) made on port-1; the project has no floating IP before.
func externalGateway(t *testing.T, api *cloudtest.API) {
	t.Helper()

	api.On("GET", "/network/v2.0/ports", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("name") != "" {
			cloudtest.WriteJSON(w, 200, map[string]any{"ports": []any{}})
			return
		}

		if len(q["device_owner"]) != 3 || q.Get("network_id") != "net-1" {
			t.Errorf("router interface query = %v", q)
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"ports": []any{map[string]any{"id": "rif", "device_id": "router-1", "network_id": "net-1"}}})
	})
	api.Reply("GET", "/network/v2.0/routers/router-1", 200, map[string]any{"router": map[string]any{
		"id": "router-1", "external_gateway_info": map[string]any{"network_id": "ext-1"},
	}})
	api.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
	api.Reply("POST", "/network/v2.0/floatingips", 201, map[string]any{"floatingip": map[string]any{
		"id": "fip-1", "floating_ip_address": "203.0.113.7", "port_id": "port-1",
	}})
}

// serverReads answers the reads of server srv-1 with the bodies in turn, repeating the last one.
func serverReads(api *cloudtest.API, bodies ...any) {
	api.Sequence("GET", "/compute/servers/srv-1", bodies...)
}

// echoMetadata answers the metadata PUT (a reset) and POST (a merge) of server srv-1 with what it
// was sent.
func echoMetadata(api *cloudtest.API) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		cloudtest.WriteJSON(w, http.StatusOK, body)
	}

	api.On("PUT", "/compute/servers/srv-1/metadata", echo)
	api.On("POST", "/compute/servers/srv-1/metadata", echo)
}

// Builders of API objects.

func novaServer(id, name, status string, extra map[string]any) map[string]any {
	s := map[string]any{
		"id": id, "name": name, "status": status, "tenant_id": "p1", "user_id": "u1",
		"flavor":   map[string]any{"original_name": "m1.tiny", "vcpus": 1, "ram": 512, "disk": 1},
		"image":    map[string]any{"id": "img-1"},
		"metadata": map[string]any{},
		"addresses": map[string]any{
			"net": []any{map[string]any{"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"}},
		},
		"server_groups": []any{},
	}

	maps.Copy(s, extra)

	return s
}

func withFloating(srv map[string]any, addr string) map[string]any {
	out := maps.Clone(srv)
	out["addresses"] = map[string]any{"net": []any{
		map[string]any{"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
		map[string]any{"addr": addr, "version": 4, "OS-EXT-IPS:type": "floating", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
	}}

	return out
}

func neutronPort(id, name, deviceID string, groups []string) map[string]any {
	return map[string]any{
		"id": id, "name": name, "network_id": "net-1", "device_id": deviceID, "mac_address": "fa:16:3e:00:00:01",
		"fixed_ips":             []any{map[string]any{"subnet_id": "sub-1", "ip_address": "10.0.0.5"}},
		"security_groups":       groups,
		"allowed_address_pairs": []any{},
		"project_id":            "p1",
	}
}

// posted is port p as a unikorn_server's create posts it: its creation mark as its description.
func posted(p map[string]any) map[string]any {
	out := maps.Clone(p)
	out["description"] = made.Description()

	return out
}

// tagged is port p tagged with a unikorn_server's creation mark, with its own description.
func tagged(p map[string]any) map[string]any {
	out := maps.Clone(p)
	out["tags"] = made.Tags()
	out["description"] = ""

	return out
}

// marked is metadata md of a server with the marks m (an unfinished or finished create).
func marked(m naming.Mark, md map[string]any) map[string]any {
	out := maps.Clone(md)
	if out == nil {
		out = map[string]any{}
	}

	for k, v := range m.Properties() {
		out[k] = v
	}

	return map[string]any{"metadata": out}
}

func keystoneProject() map[string]any {
	return map[string]any{"project": map[string]any{
		"id": "p1", "name": "unikorn-identity-team", "tags": []string{"organization=org-1", "project=proj-1", "other"},
	}}
}
