package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// This file holds the tests of the server's fault safety (issue 12): lost creates recovered
// by name, twins removed, a server adopted on a port Neutron has not bound yet, re-finds by
// name announced, and deletes by recorded IDs only.

// lossyCreate is a fake create: its POSTs fail or succeed as its faults say, in turn (the last
// one repeated), and its list answers the objects made so far.
type lossyCreate struct {
	// item is the object a POST of body makes (what it holds of the body: a server's metadata, a
	// port's description), answer the body of a POST that succeeds; twin, when set, is made by
	// someone else along with the first POST that acts.
	item         func(body []byte) any
	answer, twin any
	// meanwhile, when set, is made by someone else when the first POST is sent, whatever that
	// POST does.
	meanwhile any

	mu    sync.Mutex
	made  []any
	posts int
}

// fault is what one POST does: the status it answers (0: the connection is dropped without an
// answer; 2xx: the object is made and answered) and, for a failure, whether the service made the
// object before it.
type fault struct {
	status int
	acted  bool
}

func (l *lossyCreate) install(api *cloudtest.API, path, listPath, listKey string, faults ...fault) {
	api.On("POST", path, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)

		l.mu.Lock()
		f := faults[min(l.posts, len(faults)-1)]
		l.posts++

		if l.meanwhile != nil {
			l.made, l.meanwhile = append(l.made, l.meanwhile), nil
		}

		if ok := f.status >= 200 && f.status < 300; ok || f.acted {
			l.made = append(l.made, l.item(body))
			if l.twin != nil {
				l.made, l.twin = append(l.made, l.twin), nil
			}
		}
		l.mu.Unlock()

		switch {
		case f.status >= 200 && f.status < 300:
			cloudtest.WriteJSON(w, f.status, l.answer)
		case f.status != 0:
			cloudtest.WriteJSON(w, f.status, map[string]any{"error": map[string]any{"message": "fault", "code": f.status}})
		default:
			hj, ok := w.(http.Hijacker)
			if !ok {
				panic("the test server cannot drop a connection")
			}

			conn, _, _ := hj.Hijack()
			_ = conn.Close()
		}
	})
	api.On("GET", listPath, func(w http.ResponseWriter, _ *http.Request) {
		l.mu.Lock()
		defer l.mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{listKey: append([]any{}, l.made...)})
	})
}

// lossyNova is a lossyCreate of the server web (srv-1), with the metadata it was posted with, on
// newCreate's API.
func lossyNova(f *cloudtest.API, twin any, faults ...fault) {
	newLossyNova(twin).install(f, "/compute/servers", "/compute/servers/detail", "servers", faults...)
}

// newLossyNova is lossyNova's fake, to be installed.
func newLossyNova(twin any) *lossyCreate {
	return &lossyCreate{
		item: func(body []byte) any {
			var posted struct {
				Server struct {
					Metadata map[string]any `json:"metadata"`
				} `json:"server"`
			}
			_ = json.Unmarshal(body, &posted)

			return novaServer("srv-1", "web", "BUILD", map[string]any{"metadata": posted.Server.Metadata})
		},
		answer: map[string]any{"server": map[string]any{"id": "srv-1"}}, twin: twin,
	}
}

// lossyNeutron is a lossyCreate of the port server-web (port-1), with the description it was
// posted with, on newCreate's API.
func lossyNeutron(f *cloudtest.API, twin any, faults ...fault) {
	newLossyNeutron(twin).install(f, "/network/v2.0/ports", "/network/v2.0/ports", "ports", faults...)
}

// newLossyNeutron is lossyNeutron's fake, to be installed.
func newLossyNeutron(twin any) *lossyCreate {
	port := neutronPort("port-1", "server-web", "", []string{"sg-1"})

	return &lossyCreate{
		item: func(body []byte) any {
			var posted struct {
				Port struct {
					Description string `json:"description"`
				} `json:"port"`
			}
			_ = json.Unmarshal(body, &posted)

			out := maps.Clone(port)
			out["description"] = posted.Port.Description

			return out
		},
		answer: map[string]any{"port": posted(port)}, twin: twin,
	}
}

// TestEnsureServerCreateFailures: a server POST that Nova refused for certain deletes the port
// made for it; one whose answer was lost after Nova made the server finds the server by name and
// records it; one that may have acted but made nothing is tried again and keeps the port (the
// next apply adopts it with whatever Nova made).
func TestEnsureServerCreateFailures(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		faults      []fault
		wantServer  bool
		posts       int
		portDeleted bool
	}{
		{"a refusal (400) deletes the fresh port", []fault{{status: 400}}, false, 1, true},
		{"a 502 after Nova made the server is recovered", []fault{{status: 502, acted: true}}, true, 1, false},
		{"an answer dropped after Nova made the server is recovered", []fault{{acted: true}}, true, 1, false},
		{"a 504 before Nova acted is tried again", []fault{{status: 504}, {status: 202}}, true, 2, false},
		{"a create that never lands keeps the port", []fault{{status: 504}}, false, 3, false},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newCreate(t)
			lossyNova(f, nil, tt.faults...)
			serverReads(f, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
			echoMetadata(f)
			f.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

			out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{})

			switch {
			case tt.wantServer && (err != nil || out == nil || out.ID != "srv-1" || out.Port == nil || out.Port.ID != "port-1"):
				t.Fatalf("Ensure = %+v, %v; want server srv-1 on port-1 recorded", out, err)
			case !tt.wantServer && (err == nil || out != nil):
				t.Fatalf("Ensure = %+v, %v; want no server and an error", out, err)
			}

			if n := f.Count("POST /compute/servers"); n != tt.posts {
				t.Errorf("server POSTs = %d, want %d", n, tt.posts)
			}

			if deleted := f.Count("DELETE /network/v2.0/ports/port-1") == 1; deleted != tt.portDeleted {
				t.Errorf("port deleted = %v, want %v", deleted, tt.portDeleted)
			}
		})
	}
}

// TestEnsurePortCreateLostAnswer: a port POST whose answer was lost after Neutron made the port
// finds the port by name, and the server is made on it.
func TestEnsurePortCreateLostAnswer(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	lossyNeutron(f, nil, fault{status: 502, acted: true})
	serverReads(f, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
	echoMetadata(f)

	out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{})
	if err != nil || out.Port.ID != "port-1" || out.ID != "srv-1" {
		t.Fatalf("Ensure = %+v, %v; want server srv-1 on the recovered port-1", out, err)
	}

	if n := f.Count("POST /network/v2.0/ports"); n != 1 {
		t.Fatalf("port POSTs = %d, want 1", n)
	}
}

// TestEnsureTwins: when another apply makes a port or a server of the same name at the same
// time, the create removes what it just made (and a server's port with it) and fails naming both.
func TestEnsureTwins(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		fake          func(f *cloudtest.API)
		kept, removed string
		changes       []string // every call but the reads
	}{
		{
			name: "port",
			fake: func(f *cloudtest.API) {
				lossyNeutron(f, neutronPort("port-0", "server-web", "", nil), fault{status: 201})
			},
			kept: "port-0", removed: "port-1",
			changes: []string{"POST /network/v2.0/ports", "DELETE /network/v2.0/ports/port-1"},
		},
		{
			name: "server",
			fake: func(f *cloudtest.API) {
				lossyNova(f, novaServer("srv-0", "web", "BUILD", nil), fault{status: 202})
				f.Reply("DELETE", "/compute/servers/srv-1", 204, nil)
			},
			kept: "srv-0", removed: "srv-1",
			changes: []string{
				"POST /network/v2.0/ports", "PUT " + markTagPath("port-1"), "PUT /network/v2.0/ports/port-1",
				"POST /compute/servers", "DELETE /compute/servers/srv-1", "DELETE /network/v2.0/ports/port-1",
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newCreate(t)
			tt.fake(f)
			f.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

			out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{})

			var twin *cloud.TwinError
			if !errors.As(err, &twin) || twin.Kept != tt.kept || twin.Removed != tt.removed || out != nil {
				t.Fatalf("Ensure = %+v, %v; want a twin error keeping %s and removing %s", out, err, tt.kept, tt.removed)
			}

			if changes := f.Writes(); !slices.Equal(changes, tt.changes) {
				t.Fatalf("changes = %v\nwant      %v", changes, tt.changes)
			}
		})
	}
}

// TestEnsureAdoptsServerOnUnboundPort: a server of the name that Nova reports on the port (or
// that binds it while it is being built) is the port's, even before Neutron names it as the
// port's device; one on another port is not.
func TestEnsureAdoptsServerOnUnboundPort(t *testing.T) {
	t.Parallel()

	unbound := tagged(neutronPort("port-1", "server-web", "", []string{"sg-1"}))
	unfinished := marked(made, nil)
	noAddresses := map[string]any{"addresses": map[string]any{}}
	otherPort := map[string]any{"addresses": map[string]any{"net": []any{map[string]any{
		"addr": "10.0.0.9", "version": 4, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:99",
	}}}}
	maps.Copy(noAddresses, unfinished)
	maps.Copy(otherPort, unfinished)

	tests := []struct {
		name    string
		server  map[string]any   // the server web as listed
		reads   []map[string]any // its reads by ID
		ports   []map[string]any // the reads of port-1 by ID
		wantErr string
	}{
		{
			name: "Nova reports it on the port", server: novaServer("srv-1", "web", "ACTIVE", unfinished),
			reads: []map[string]any{novaServer("srv-1", "web", "ACTIVE", unfinished)},
		},
		{
			name: "it binds the port while it is built", server: novaServer("srv-1", "web", "BUILD", noAddresses),
			reads: []map[string]any{novaServer("srv-1", "web", "BUILD", noAddresses), novaServer("srv-1", "web", "ACTIVE", unfinished)},
			ports: []map[string]any{unbound, tagged(neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"}))},
		},
		{
			name: "it is on another port", server: novaServer("srv-1", "web", "ACTIVE", otherPort),
			reads: []map[string]any{novaServer("srv-1", "web", "ACTIVE", otherPort)}, wantErr: "not attached to port server-web",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newProject(t)
			f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{unbound}})
			f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{tt.server}})
			f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
			echoMetadata(f)
			answerCompletion(f)

			bodies := func(items []map[string]any, key string) []any {
				out := make([]any, len(items))
				for i, item := range items {
					out[i] = map[string]any{key: item}
				}

				return out
			}
			serverReads(f, bodies(tt.reads, "server")...)

			if tt.ports != nil {
				f.Sequence("GET", "/network/v2.0/ports/port-1", bodies(tt.ports, "port")...)
			}

			out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})

			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}

				return
			}

			if err != nil || out.ID != "srv-1" || out.Port.ID != "port-1" {
				t.Fatalf("Ensure = %+v, %v; want srv-1 adopted on port-1", out, err)
			}

			if f.Count("POST /compute/servers") != 0 || f.Count("POST /network/v2.0/ports") != 0 {
				t.Fatalf("calls = %v, want nothing made", f.Calls())
			}

			// Nothing was recorded: the adoption of both is said (issue 12, behaviour 7).
			notes := strings.Join(out.Notes, "\n")
			for _, want := range []string{"server web (srv-1) already existed", "port server-web (port-1) already existed"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q do not say %q", notes, want)
				}
			}
		})
	}
}

// TestObserveRefoundAnnounced: a server (and port) found again by name in place of the
// recorded ones are said in notes naming the old and the new IDs and when the new was made.
func TestObserveRefoundAnnounced(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	// srv-old and port-old answer 404 (no route).
	// An interrupted create's server (marked, unfinished): what a create would adopt.
	f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
		novaServer("srv-2", "web", "ACTIVE", map[string]any{"created": "2025-01-02T03:04:05Z", "metadata": made.Properties()}),
	}})
	port := neutronPort("port-2", "server-web", "srv-2", nil)
	port["created_at"] = "2025-01-02T03:04:01Z"
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{port}})

	out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-old", PortID: "port-old", FlavorID: "f", FlavorName: "m1.tiny"})
	if err != nil || out == nil || out.ID != "srv-2" {
		t.Fatalf("Observe = %+v, %v; want srv-2 found by name", out, err)
	}

	notes := strings.Join(out.Notes, "\n")
	for _, want := range []string{"srv-old", "srv-2", "2025-01-02T03:04:05Z", "port-old", "port-2", "2025-01-02T03:04:01Z"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %s", notes, want)
		}
	}
}

// TestDeleteRecordedIDsOnly: Delete acts on the recorded IDs only: a port of the name that the
// state does not record (a newer server's) is left alone; only a state that records nothing at
// all has its port looked up by name.
func TestDeleteRecordedIDsOnly(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		known Known
		want  []string
	}{
		{"server recorded, port not", Known{ServerID: "srv-1"}, []string{"DELETE /compute/servers/srv-1"}},
		{"nothing recorded", Known{}, []string{
			"GET /network/v2.0/ports", "GET /network/v2.0/floatingips", "GET /network/v2.0/floatingips", "DELETE /network/v2.0/ports/port-9",
		}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			f.Reply("DELETE", "/compute/servers/srv-1", 404, nil) // gone already: done
			f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{tagged(neutronPort("port-9", "server-web", "srv-9", nil))}})
			f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
			f.Reply("DELETE", "/network/v2.0/ports/port-9", 204, nil)

			if err := service(f).Delete(context.Background(), "web", tt.known); err != nil {
				t.Fatalf("Delete: %v", err)
			}

			if got := f.Calls(); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("calls = %v\nwant    %v", got, tt.want)
			}
		})
	}
}
