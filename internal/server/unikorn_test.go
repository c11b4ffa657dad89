package server

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Servers that Unikorn's region service made (unikorn-facts.md §4): the Nova server carries the
// user's display name ("web") and the linkage metadata with Unikorn's own server ID ("u-srv") and
// region ID ("u-region"); its port is named server-<Unikorn server ID>.

// unikornLegacy is the metadata of a server Unikorn made before v1.16 (the legacy keys only),
// and, with identityID, before v1.10.
func unikornLegacy() map[string]any {
	return map[string]any{
		"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region", "identityID": "u-id",
	}
}

// unikornNamespaced is the metadata of a server Unikorn v1.16 or later made: both forms, and its
// tag compute.unikorn-cloud.org/cluster-id.
func unikornNamespaced() map[string]any {
	return map[string]any{
		"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region",
		"region:server_id": "u-srv", "identity:organization_id": "org-1", "identity:project_id": "proj-1",
		"region:region_id": "u-region", "compute:cluster_id": "c-1",
	}
}

// unikornServer is the fake with the Unikorn server srv-1 called web carrying md, its port
// port-u (server-u-srv) and, as a decoy, a port server-web attached to another device. Ports are
// listed by device and by name as Neutron filters them.
func unikornServer(t *testing.T, md map[string]any, portName string) *cloudtest.API {
	t.Helper()

	f := newProject(t)
	f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", map[string]any{"metadata": md})})

	all := []map[string]any{
		neutronPort("port-u", portName, "srv-1", []string{"sg-1"}),
		neutronPort("port-decoy", "server-web", "other", nil),
	}

	f.On("GET", "/network/v2.0/ports", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()

		var out []any

		for _, p := range all {
			if (q.Get("device_id") == "" || p["device_id"] == q.Get("device_id")) && (q.Get("name") == "" || p["name"] == q.Get("name")) {
				out = append(out, p)
			}
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"ports": out})
	})
	f.Reply("GET", "/network/v2.0/ports/port-u", 200, map[string]any{"port": all[0]})
	f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})

	return f
}

// TestObserveUnikornServer: an imported server that Unikorn made is paired with its port through
// its linkage's server ID or the port's device, never by server-<display name>.
func TestObserveUnikornServer(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name, port string
		md         map[string]any
	}{
		{"before v1.16", "server-u-srv", unikornLegacy()},
		{"v1.16 and later", "server-u-srv", unikornNamespaced()},
		{"a port of another name, on the server", "unikorn managed port", unikornLegacy()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f := unikornServer(t, tc.md, tc.port)

			out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
			if err != nil {
				t.Fatalf("Observe: %v", err)
			}

			if out.Port == nil || out.Port.ID != "port-u" || out.Made || len(out.Notes) != 0 {
				t.Fatalf("Observe = %+v (port %+v), want the server paired with port-u, not made here, no note", out, out.Port)
			}

			for _, r := range f.Requests() {
				if r.Query.Get("name") == "server-web" {
					t.Errorf("looked up the port by the display name: %v", f.Calls())
				}
			}
		})
	}
}

// TestEnsureUnikornServerKeepsMetadata: applying a configuration that mirrors a server Unikorn
// made writes nothing; a tag writes its own key only, and removing a tag the last apply wrote
// removes that key only. Unikorn's server and region IDs, the legacy keys alone, identityID and
// Unikorn's own tag keys are never rewritten.
func TestEnsureUnikornServerKeepsMetadata(t *testing.T) {
	t.Parallel()

	mirror := baseSpec()
	mirror.Tags = nil

	t.Run("a mirroring configuration writes nothing", func(t *testing.T) {
		t.Parallel()

		for _, md := range []map[string]any{unikornLegacy(), unikornNamespaced()} {
			f := unikornServer(t, md, "server-u-srv")

			// After an import the state knows the server; the refresh found the port.
			for _, known := range []Known{{ServerID: "srv-1"}, {ServerID: "srv-1", PortID: "port-u"}} {
				known.FlavorID, known.FlavorName = "flavor-tiny", "m1.tiny"

				out, err := service(f).Ensure(context.Background(), mirror, known)
				if err != nil {
					t.Fatalf("Ensure: %v", err)
				}

				if writes := f.Writes(); len(writes) != 0 || out.Port.ID != "port-u" {
					t.Fatalf("Ensure sent %v (port %+v), want nothing written on port-u", writes, out.Port)
				}
			}
		}
	})

	t.Run("a tag writes its key only", func(t *testing.T) {
		t.Parallel()

		f := unikornServer(t, unikornLegacy(), "server-u-srv")
		echoMetadata(f)

		spec := baseSpec()
		spec.Tags = map[string]string{"monitoring.example.com/team-name": "blue", "compute.unikorn-cloud.org/cluster-id": "c-1"}

		out, err := service(f).Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-u", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
		if err != nil {
			t.Fatalf("Ensure: %v", err)
		}

		if writes := f.Writes(); !slices.Equal(writes, []string{"POST /compute/servers/srv-1/metadata"}) {
			t.Fatalf("Ensure sent %v, want one metadata merge", writes)
		}

		sent := f.Last(t, "POST /compute/servers/srv-1/metadata").JSON(t, "metadata")
		if want := map[string]any{"monitoring:team_name": "blue", "compute:cluster_id": "c-1"}; !maps.Equal(sent, want) {
			t.Fatalf("merged %v, want %v", sent, want)
		}

		want := map[string]string{
			"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region", "identityID": "u-id",
			"monitoring:team_name": "blue", "compute:cluster_id": "c-1",
		}
		if !maps.Equal(out.Metadata, want) {
			t.Fatalf("metadata = %v, want %v", out.Metadata, want)
		}
	})

	t.Run("a removed tag removes its key only", func(t *testing.T) {
		t.Parallel()

		md := unikornNamespaced()
		md["monitoring:team_name"] = "blue"

		f := unikornServer(t, md, "server-u-srv")
		f.Reply("DELETE", "/compute/servers/srv-1/metadata/monitoring:team_name", 204, nil)

		_, err := service(f).Ensure(context.Background(), mirror, Known{
			ServerID: "srv-1", PortID: "port-u", FlavorID: "flavor-tiny", FlavorName: "m1.tiny",
			Tags: map[string]string{"monitoring.example.com/team-name": "blue"},
		})
		if err != nil {
			t.Fatalf("Ensure: %v", err)
		}

		if writes := f.Writes(); !slices.Equal(writes, []string{"DELETE /compute/servers/srv-1/metadata/monitoring:team_name"}) {
			t.Fatalf("Ensure sent %v, want the tag's key removed only", writes)
		}
	})
}

// TestEnsureRefusesUnikornServerByName: a create whose name is the display name of a server
// Unikorn made is refused before anything is written, naming the import.
func TestEnsureRefusesUnikornServerByName(t *testing.T) {
	t.Parallel()

	f := unikornServer(t, unikornNamespaced(), "server-u-srv")
	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-1", "web", "ACTIVE", map[string]any{"metadata": unikornNamespaced()}),
	}})

	_, err := service(f).Ensure(context.Background(), baseSpec(), Known{})
	if err == nil || !strings.Contains(err.Error(), "import") || len(f.Writes()) != 0 {
		t.Fatalf("Ensure: %v, writes %v; want a refusal naming the import and nothing written", err, f.Writes())
	}
}

// TestPlanUnikornServerMetadata: the plan of an imported server that Unikorn made (before v1.16:
// the legacy keys only, with Unikorn's IDs) keeps its metadata as it is when the configuration
// mirrors it, and plans a rewrite only when a tag changes; a server this provider made is held to
// its full linkage.
func TestPlanUnikornServerMetadata(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	md := types.MapValueMust(types.StringType, map[string]attr.Value{
		"serverID": types.StringValue("u-srv"), "organizationID": types.StringValue("org-1"),
		"projectID": types.StringValue("proj-1"), "regionID": types.StringValue("u-region"), "identityID": types.StringValue("u-id"),
	})
	state := serverModel{ID: types.StringValue("srv-1"), Region: types.StringValue("RegionOne"), Metadata: md, Tags: types.MapNull(types.StringType)}

	mirror := state
	if got := plannedMetadata(ctx, mirror, state, false); !got.Equal(md) {
		t.Fatalf("planned metadata of a mirroring configuration = %v, want the state's", got)
	}

	if got := plannedMetadata(ctx, mirror, state, true); !got.IsUnknown() {
		t.Fatalf("planned metadata of a server made here without its linkage = %v, want unknown", got)
	}

	tagged := state
	tagged.Tags = types.MapValueMust(types.StringType, map[string]attr.Value{"monitoring.example.com/team-name": types.StringValue("blue")})

	if got := plannedMetadata(ctx, tagged, state, false); !got.IsUnknown() {
		t.Fatalf("planned metadata with a new tag = %v, want unknown", got)
	}

	if !madeOf(ctx, nil) {
		t.Fatal("without a memo, the plan takes the server for one made here")
	}
}

// TestMadeElsewhere: in an identity this provider did not make (acted in as the service user), a
// new server's keypair and server group are refused, at plan time (the problems) and again before
// anything is made (Ensure), saying why and what to do instead; a rebuild keeps the keypair a
// server already has without naming it.
func TestMadeElsewhere(t *testing.T) {
	t.Parallel()

	problems := madeElsewhere(Preflight{SSHKey: true, ServerGroup: true}, "p1")
	if len(problems) != 2 || problems[0].Attribute != "ssh_key" || problems[1].Attribute != "server_group" {
		t.Fatalf("problems = %+v, want ssh_key and server_group", problems)
	}

	for _, want := range []string{"p1", "not made by this provider", "service user", "never logs in as the identity's own user", "keypair", "user_data"} {
		if !strings.Contains(problems[0].Detail, want) {
			t.Errorf("ssh_key problem %q does not say %q", problems[0].Detail, want)
		}
	}

	if len(madeElsewhere(Preflight{}, "p1")) != 0 {
		t.Fatal("problems without a keypair or server group asked for")
	}

	t.Run("a new server with ssh_key", func(t *testing.T) {
		t.Parallel()

		f := newProject(t)
		svc := service(f)
		svc.serviceUser = true

		spec := baseSpec()
		spec.SSHKey = true

		_, err := svc.Ensure(context.Background(), spec, Known{})
		if err == nil || !strings.Contains(err.Error(), "user_data") || len(f.Writes()) != 0 {
			t.Fatalf("Ensure: %v, writes %v; want the refusal before anything is made", err, f.Writes())
		}
	})

	t.Run("a rebuild keeps the keypair the server has", func(t *testing.T) {
		t.Parallel()

		f := unikornServer(t, unikornLegacy(), "server-u-srv")
		f.Reply("POST", "/compute/servers/srv-1/action", 202, map[string]any{"server": map[string]any{"id": "srv-1"}})

		withKey := map[string]any{"metadata": unikornLegacy(), "key_name": naming.KeypairName}
		rebuilt := maps.Clone(withKey)
		rebuilt["image"] = map[string]any{"id": "img-2"}

		serverReads(f,
			map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", withKey)},
			map[string]any{"server": novaServer("srv-1", "web", "REBUILD", withKey)},
			map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", rebuilt)})

		svc := service(f)
		svc.serviceUser = true

		spec := baseSpec()
		spec.Tags, spec.SSHKey, spec.ImageID = nil, true, "img-2"

		if _, err := svc.Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-u", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"}); err != nil {
			t.Fatalf("Ensure: %v", err)
		}

		rebuild := f.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "rebuild")
		if _, named := rebuild["key_name"]; named || rebuild["imageRef"] != "img-2" {
			t.Fatalf("rebuild body = %v, want no key_name (the server keeps its keypair)", rebuild)
		}
	})

	t.Run("a rebuild cannot give a server the keypair", func(t *testing.T) {
		t.Parallel()

		f := unikornServer(t, unikornLegacy(), "server-u-srv")

		svc := service(f)
		svc.serviceUser = true

		spec := baseSpec()
		spec.Tags, spec.SSHKey = nil, true

		_, err := svc.Ensure(context.Background(), spec, Known{ServerID: "srv-1", PortID: "port-u", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
		if err == nil || !strings.Contains(err.Error(), "user_data") || len(f.Writes()) != 0 {
			t.Fatalf("Ensure: %v, writes %v; want the refusal and nothing written", err, f.Writes())
		}
	})
}
