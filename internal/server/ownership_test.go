package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the tests of the ownership rule for servers and snapshots (issue 26, items 4,
// 5 and 10): a create adopts only what an interrupted create of its own kind left unfinished,
// refuses anything else before any write, marks what it makes, and a lost answer or a re-find
// by name takes only such an object.

// statefulNova is a fake Nova server srv-1 that keeps the metadata it was created with and
// every metadata write since, as Nova does.
type statefulNova struct {
	mu sync.Mutex
	md map[string]any
}

func (n *statefulNova) install(t *testing.T, api *cloudtest.API) {
	t.Helper()

	api.On("POST", "/compute/servers", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Server struct {
				Metadata map[string]any `json:"metadata"`
			} `json:"server"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)

		n.mu.Lock()
		n.md = body.Server.Metadata
		n.mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusAccepted, map[string]any{"server": map[string]any{"id": "srv-1"}})
	})
	api.On("GET", "/compute/servers/srv-1", func(w http.ResponseWriter, _ *http.Request) {
		n.mu.Lock()
		defer n.mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", map[string]any{"metadata": maps.Clone(n.md)})})
	})
	api.On("PUT", "/compute/servers/srv-1/metadata", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)

		n.mu.Lock()
		n.md = body["metadata"]
		n.mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusOK, body)
	})
	api.On("PUT", "/compute/servers/srv-1/metadata/"+naming.MarkCompletedKey, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)

		n.mu.Lock()
		maps.Copy(n.md, body["meta"])
		n.mu.Unlock()

		cloudtest.WriteJSON(w, http.StatusOK, body)
	})
}

// TestEnsureMarksItsCreate: the port is posted with the creation mark as its description, tagged
// with it, then given its own description; the server carries the creation mark from its create
// request, keeps it through the metadata convergence, and gets the completion mark as the very
// last write. The marks never show in the server's metadata as the resource reads it.
func TestEnsureMarksItsCreate(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	nova := &statefulNova{}
	nova.install(t, f)

	out, err := service(f).Ensure(context.Background(), baseSpec(), Known{})
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}

	if port := f.Last(t, "POST /network/v2.0/ports").JSON(t, "port"); port["description"] != "unikorn-terraform:unikorn_server" {
		t.Errorf("port posted with description %v, want the creation mark", port["description"])
	}

	if desc := f.Last(t, "PUT /network/v2.0/ports/port-1").JSON(t, "port"); len(desc) != 1 || desc["description"] != "" {
		t.Errorf("port updated with %v, want its own (empty) description only", desc)
	}

	if md, _ := f.Last(t, "POST /compute/servers").JSON(t, "server")["metadata"].(map[string]any); md[naming.MarkKindKey] != Type ||
		md[naming.MarkCompletedKey] != nil {
		t.Errorf("server posted with metadata %v, want the creation mark and no completion mark", md)
	}

	if md := f.Last(t, "PUT /compute/servers/srv-1/metadata").JSON(t, "metadata"); md[naming.MarkKindKey] != Type {
		t.Errorf("the metadata convergence wrote %v, dropping the creation mark", md)
	}

	writes := f.Writes()
	want := []string{
		"POST /network/v2.0/ports", "PUT " + markTagPath("port-1"), "PUT /network/v2.0/ports/port-1",
		"POST /compute/servers", "PUT /compute/servers/srv-1/metadata",
		"PUT /compute/servers/srv-1/metadata/" + naming.MarkCompletedKey,
	}

	if !slices.Equal(writes, want) {
		t.Fatalf("writes = %v\nwant     %v", writes, want)
	}

	if got := naming.MarkOf(nova.md); got != made.Done() {
		t.Errorf("Nova holds the marks %v, want a finished create", got)
	}

	for k := range out.Metadata {
		if naming.IsMarkKey(k) {
			t.Errorf("the server's metadata shows the mark %s: %v", k, out.Metadata)
		}
	}
}

// TestEnsureRefusesWhatItDidNotBegin (item 5): a server or port of the name that a create of a
// unikorn_server did not leave unfinished — another configuration's finished server, one made by
// hand or for another resource type, a port made by hand — is refused with an ExistsError
// before anything is written: nothing is rebuilt, resized, re-grouped or re-tagged.
func TestEnsureRefusesWhatItDidNotBegin(t *testing.T) {
	t.Parallel()

	other := map[string]any{"image": map[string]any{"id": "img-other"}, "flavor": map[string]any{"original_name": "m1.large"}}
	with := func(md map[string]any) map[string]any {
		out := maps.Clone(other)
		maps.Copy(out, md)

		return out
	}

	tests := []struct {
		name   string
		port   map[string]any // nil: none
		server map[string]any // nil: none
		claim  cloud.Claim
		kind   string
		say    string
	}{
		{
			name:   "a finished server of another configuration",
			port:   tagged(neutronPort("port-1", "server-web", "srv-1", []string{"sg-other"})),
			server: novaServer("srv-1", "web", "ACTIVE", with(marked(made.Done(), nil))),
			claim:  cloud.ClaimFinished, kind: "server", say: "create_before_destroy",
		},
		{
			name:   "a server made by hand",
			port:   neutronPort("port-1", "server-web", "srv-1", nil),
			server: novaServer("srv-1", "web", "ACTIVE", other),
			claim:  cloud.ClaimForeign, kind: "server", say: "terraform import unikorn_server.<address> RegionOne/srv-1",
		},
		{
			name:   "a server made for another resource type",
			port:   tagged(neutronPort("port-1", "server-web", "srv-1", nil)),
			server: novaServer("srv-1", "web", "ACTIVE", with(marked(naming.MadeFor("unikorn_loadbalancer"), nil))),
			claim:  cloud.ClaimOtherKind, kind: "server",
		},
		{
			name:  "a port made by hand",
			port:  neutronPort("port-1", "server-web", "", nil),
			claim: cloud.ClaimForeign, kind: "port", say: "part of unikorn_server web",
		},
		{
			name:   "an interrupted server on a port made by hand",
			port:   neutronPort("port-1", "server-web", "srv-1", nil),
			server: novaServer("srv-1", "web", "ACTIVE", marked(made, nil)),
			claim:  cloud.ClaimForeign, kind: "port",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newCreate(t)
			answerCompletion(f)
			echoMetadata(f)

			if tt.port != nil {
				f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{tt.port}})
			}

			if tt.server != nil {
				f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{tt.server}})
				serverReads(f, map[string]any{"server": tt.server})
			}

			out, err := service(f).Ensure(context.Background(), baseSpec(), Known{})

			var exists *cloud.ExistsError
			if !errors.As(err, &exists) || exists.Claim != tt.claim || exists.Kind != tt.kind || out != nil {
				t.Fatalf("Ensure = %+v, %v; want the %s refused (claim %d)", out, err, tt.kind, tt.claim)
			}

			if !strings.Contains(err.Error(), tt.say) {
				t.Errorf("err = %v, want it to say %q", err, tt.say)
			}

			if writes := f.Writes(); len(writes) > 0 {
				t.Errorf("a refused create wrote %v", writes)
			}
		})
	}
}

// TestEnsureAdoptsInterruptedPort: a port whose create was killed before it was tagged (only its
// description says who began it) is adopted, tagged and given its own description, and the
// server is made on it and marked finished.
func TestEnsureAdoptsInterruptedPort(t *testing.T) {
	t.Parallel()

	f := newCreate(t)
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{posted(neutronPort("port-1", "server-web", "", []string{"sg-1"}))}})
	f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
	(&statefulNova{}).install(t, f)

	out, err := service(f).Ensure(context.Background(), baseSpec(), Known{})
	if err != nil || out.Port.ID != "port-1" || out.ID != "srv-1" {
		t.Fatalf("Ensure = %+v, %v; want srv-1 made on the adopted port-1", out, err)
	}

	want := []string{
		"PUT " + markTagPath("port-1"), "PUT /network/v2.0/ports/port-1",
		"POST /compute/servers", "PUT /compute/servers/srv-1/metadata",
		"PUT /compute/servers/srv-1/metadata/" + naming.MarkCompletedKey,
	}
	if writes := f.Writes(); !slices.Equal(writes, want) {
		t.Fatalf("writes = %v\nwant     %v", writes, want)
	}

	if !strings.Contains(strings.Join(out.Notes, "\n"), "port server-web (port-1) already existed") {
		t.Errorf("notes %q do not say the port was adopted", out.Notes)
	}
}

// TestCreateLostAnswerRecoversOnlyItsOwn: after a lost answer, an object of the name that someone
// else made meanwhile is not taken for the one the create made: the create fails with the
// refusal, and nothing is posted again.
func TestCreateLostAnswerRecoversOnlyItsOwn(t *testing.T) {
	t.Parallel()

	t.Run("server", func(t *testing.T) {
		t.Parallel()

		f := newCreate(t)
		nova := newLossyNova(nil)
		nova.meanwhile = novaServer("srv-0", "web", "ACTIVE", nil) // made by hand
		nova.install(f, "/compute/servers", "/compute/servers/detail", "servers", fault{status: 502})
		f.Reply("DELETE", "/network/v2.0/ports/port-1", 204, nil)

		out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "srv-0" || out != nil {
			t.Fatalf("Ensure = %+v, %v; want srv-0 refused, not recovered", out, err)
		}

		if n := f.Count("POST /compute/servers"); n != 1 {
			t.Errorf("server POSTs = %d, want 1", n)
		}
	})

	t.Run("port", func(t *testing.T) {
		t.Parallel()

		f := newCreate(t)
		neutron := newLossyNeutron(nil)
		neutron.meanwhile = neutronPort("port-0", "server-web", "", nil) // made by hand
		neutron.install(f, "/network/v2.0/ports", "/network/v2.0/ports", "ports", fault{status: 502})

		out, err := service(f).Ensure(cloud.WithSleeper(t.Context(), cloudtest.Instant), baseSpec(), Known{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "port-0" || out != nil {
			t.Fatalf("Ensure = %+v, %v; want port-0 refused, not recovered", out, err)
		}

		if n, writes := f.Count("POST /network/v2.0/ports"), f.Writes(); n != 1 || len(writes) != 1 {
			t.Errorf("writes = %v, want the one port POST", writes)
		}
	})
}

// TestObserveRefindsOnlyItsOwn: when the recorded server is gone, a server of its name that is
// not an unfinished create of a unikorn_server (another configuration's, or one made by hand)
// is not taken for it: the server is gone. A port of the name that is neither on the server nor
// made by a unikorn_server's create is not the server's port.
func TestObserveRefindsOnlyItsOwn(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		md   map[string]any
	}{
		{"finished by another configuration", marked(made.Done(), nil)},
		{"made by hand", nil},
	} {
		t.Run("server "+tc.name, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			// srv-old answers 404 (no route).
			f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{novaServer("srv-2", "web", "ACTIVE", tc.md)}})
			f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{tagged(neutronPort("port-2", "server-web", "srv-2", nil))}})

			out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-old", PortID: "port-old", FlavorID: "f", FlavorName: "m1.tiny"})
			if err != nil || out != nil {
				t.Fatalf("Observe = %+v, %v; want gone", out, err)
			}
		})
	}

	t.Run("port made by hand", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", nil)})
		// port-old answers 404 (no route); the port of the name is someone else's, on no device.
		f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{neutronPort("port-2", "server-web", "", nil)}})

		out, err := service(f).Observe(context.Background(), "web", Known{ServerID: "srv-1", PortID: "port-old", FlavorID: "f", FlavorName: "m1.tiny"})
		if err != nil || out == nil || out.Port != nil {
			t.Fatalf("Observe = %+v, %v; want srv-1 without a port", out, err)
		}
	})
}

// TestDeleteByNameOnlyItsOwn: a delete that recorded nothing looks its port up by name, and
// deletes it only when a unikorn_server's create made it.
func TestDeleteByNameOnlyItsOwn(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/network/v2.0/ports", 200, map[string]any{"ports": []any{neutronPort("port-9", "server-web", "", nil)}})
	f.Reply("DELETE", "/network/v2.0/ports/port-9", 204, nil)

	if err := service(f).Delete(context.Background(), "web", Known{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	if writes := f.Writes(); len(writes) > 0 {
		t.Fatalf("deleted what it did not make: %v", writes)
	}
}

// TestUpdateKeepsMarks: the metadata convergence of an update never removes the marks (they are
// no one's metadata), never adds them to a server that has none (an imported one), and the
// marks never show in the metadata the resource reads.
func TestUpdateKeepsMarks(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name  string
		marks naming.Mark
	}{
		{"made by this provider", made.Done()},
		{"imported", naming.Mark{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f := newProject(t)
			f.Reply("GET", "/network/v2.0/ports/port-1", 200, map[string]any{"port": tagged(neutronPort("port-1", "server-web", "srv-1", []string{"sg-1"}))})
			f.Reply("GET", "/compute/servers/srv-1", 200, map[string]any{"server": novaServer("srv-1", "web", "ACTIVE", marked(tc.marks, nil))})
			f.Reply("GET", "/network/v2.0/floatingips", 200, map[string]any{"floatingips": []any{}})
			echoMetadata(f)

			out, err := service(f).Ensure(context.Background(), baseSpec(), Known{ServerID: "srv-1", PortID: "port-1", FlavorID: "flavor-tiny", FlavorName: "m1.tiny"})
			if err != nil {
				t.Fatalf("Ensure: %v", err)
			}

			// A server this provider made is written whole (the marks kept); an imported one has
			// only the keys of its tags written.
			if tc.marks.Marked() {
				md := f.Last(t, "PUT /compute/servers/srv-1/metadata").JSON(t, "metadata")
				if got := naming.MarkOf(md); got != tc.marks {
					t.Errorf("metadata written with the marks %v, want %v as the server had", got, tc.marks)
				}
			} else {
				md := f.Last(t, "POST /compute/servers/srv-1/metadata").JSON(t, "metadata")
				if got := naming.MarkOf(md); got.Marked() || f.Count("PUT /compute/servers/srv-1/metadata") != 0 {
					t.Errorf("imported server's metadata written with the marks %v (%v)", got, f.Writes())
				}
			}

			if f.Count("PUT /compute/servers/srv-1/metadata/"+naming.MarkCompletedKey) != 0 {
				t.Errorf("an update wrote a completion mark: %v", f.Writes())
			}

			for k := range out.Metadata {
				if naming.IsMarkKey(k) {
					t.Errorf("the server's metadata shows the mark %s", k)
				}
			}
		})
	}
}

// TestSnapshotOwnership: a unikorn_server_snapshot adopts only the image an interrupted create of
// one began (never one made by hand or finished), a lost answer recovers only such an image, and
// a re-find by name takes only such an image.
func TestSnapshotOwnership(t *testing.T) {
	t.Parallel()

	spec := SnapshotSpec{Name: "backup", ServerID: "srv-1", OrganizationID: "org-1"}

	for _, tc := range []struct {
		name  string
		props map[string]any
		claim cloud.Claim
	}{
		{"refuses a snapshot of the server made by hand", snapshotProps(), cloud.ClaimForeign},
		{"refuses a finished snapshot of another configuration", snapshotMarked(naming.MadeFor(SnapshotType).Done().Properties()), cloud.ClaimFinished},
		{"refuses an image of the action", snapshotMarked(snapshotMarks(SnapshotNowType)), cloud.ClaimOtherKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			api, snaps := snapshotCloud(t)
			api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{glanceImage("img-8", "active", tc.props)}})

			_, _, err := snaps.Take(context.Background(), spec, true)

			var exists *cloud.ExistsError
			if !errors.As(err, &exists) || exists.Claim != tc.claim || exists.ImportID != "RegionOne/img-8" || len(api.Writes()) > 0 {
				t.Fatalf("Take: %v, writes %v; want an ExistsError (claim %d) and no write", err, api.Writes(), tc.claim)
			}
		})
	}

	t.Run("a lost answer does not recover an image made by hand", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		api.Sequence("GET", "/image/v2/images",
			map[string]any{"images": []any{}},
			map[string]any{"images": []any{glanceImage("img-0", "queued", snapshotProps())}})
		api.Reply("POST", "/compute/servers/srv-1/action", 502, map[string]any{"error": map[string]any{"code": 502}})

		img, _, err := snaps.Take(cloud.WithSleeper(t.Context(), cloudtest.Instant), spec, true)

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "img-0" || img != nil || api.Count("POST /compute/servers/srv-1/action") != 1 {
			t.Fatalf("Take = %v, %v; calls %v; want img-0 refused and one create", img, err, api.Calls())
		}
	})

	t.Run("a re-find by name takes only an unfinished create's image", func(t *testing.T) {
		t.Parallel()

		for _, tc := range []struct {
			props map[string]any
			taken bool
		}{
			{snapshotProps(), false},
			{snapshotMarked(naming.MadeFor(SnapshotType).Done().Properties()), false},
			{snapshotMarked(snapshotMarks(SnapshotType)), true},
		} {
			api, snaps := snapshotCloud(t)
			// img-old answers 404 (no route).
			api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{glanceImage("img-2", "active", tc.props)}})

			obs, err := snaps.Observe(context.Background(), "img-old", "backup")
			if err != nil || (obs.Image != nil) != tc.taken {
				t.Errorf("Observe of an image with %v = %+v, %v; want taken %v", tc.props, obs, err, tc.taken)
			}
		}
	})
}

// TestSnapshotFinishMarksMade: the end of a create publishes the image and marks it made in the
// same patch, only when that create began it; an update's publish never marks.
func TestSnapshotFinishMarksMade(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name   string
		props  map[string]any
		finish bool
		mark   bool
	}{
		{"the create's end", snapshotMarked(snapshotMarks(SnapshotType)), true, true},
		{"an update", snapshotMarked(snapshotMarks(SnapshotType)), false, false},
		{"an imported image", snapshotProps(), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			api, snaps := snapshotCloud(t)

			var patch []map[string]any

			api.On("PATCH", "/image/v2/images/img-9", func(w http.ResponseWriter, r *http.Request) {
				_ = json.NewDecoder(r.Body).Decode(&patch)
				cloudtest.WriteJSON(w, 200, glanceImage("img-9", "active", tc.props))
			})

			img := readImage(t, api, snaps, tc.props)

			var err error
			if tc.finish {
				_, err = snaps.Finish(context.Background(), img, SnapshotSpec{OrganizationID: "org-2"}, SnapshotType)
			} else {
				_, err = snaps.Publish(context.Background(), img, SnapshotSpec{OrganizationID: "org-2"})
			}

			if err != nil {
				t.Fatal(err)
			}

			marks := slices.ContainsFunc(patch, func(op map[string]any) bool {
				return op["path"] == "/"+naming.MarkCompletedKey && op["value"] == naming.MarkCompletedValue
			})
			if marks != tc.mark {
				t.Errorf("patch %v marks the image made: %v, want %v", patch, marks, tc.mark)
			}

			for _, op := range patch {
				if at, _ := op["path"].(string); op["op"] == "remove" && naming.IsMarkKey(strings.TrimPrefix(at, "/")) {
					t.Errorf("patch %v removes a mark", patch)
				}
			}
		})
	}
}

// TestConsoleOutputSensitive (item 10): the console log can hold what cloud-init prints
// (passwords, keys): it is sensitive.
func TestConsoleOutputSensitive(t *testing.T) {
	t.Parallel()

	var resp datasource.SchemaResponse

	NewConsoleDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &resp)

	if out, ok := resp.Schema.Attributes["output"]; !ok || !out.IsSensitive() {
		t.Fatal("unikorn_server_console.output must be sensitive")
	}
}
