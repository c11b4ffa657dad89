package volume

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// fakeCinder is a stateful fake of the Cinder and Nova calls of the volume core: volumes by ID,
// made available (and detached, and deleted) at once.
type fakeCinder struct {
	api *cloudtest.API

	mu      sync.Mutex
	volumes map[string]map[string]any
	next    int
	// novaHolds is how many more attach requests Nova refuses (it still maps the volume to a
	// server), and onHold is called with the count of refusals after each.
	novaHolds int
	onHold    func(refusals int)
	refusals  int
	// novaThen, when set, is the status Nova answers once it no longer holds the volume (a
	// refusal of another kind).
	novaThen int
}

type stringer string

func (s stringer) String() string { return string(s) }

func newFake(t *testing.T) (*fakeCinder, *Volumes) {
	t.Helper()

	f := &fakeCinder{api: cloudtest.New(t), volumes: map[string]map[string]any{}}
	f.api.Fallback(http.HandlerFunc(f.serve))

	vols := newVolumes(f.api.ServiceClient("/volume/", "/volume/"), f.api.ServiceClient("/compute/", "/compute/"),
		stringer("project p, region r"), "r")

	return f, vols
}

// add puts a volume into the fake: name, size and metadata; the other fields as Cinder has them.
func (f *fakeCinder) add(name string, size int, metadata map[string]string) string {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.next++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", f.next)
	md := map[string]any{}

	for k, v := range metadata {
		md[k] = v
	}

	f.volumes[id] = map[string]any{
		"id": id, "name": name, "size": size, "status": StatusAvailable, "metadata": md, "volume_type": "__DEFAULT__",
		"volume_type_id": "t-default", "attachments": []any{}, "bootable": "false", "description": "",
		"os-vol-tenant-attr:tenant_id": "p",
	}

	return id
}

// attach records volume id as attached to server.
func (f *fakeCinder) attach(id, server string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.volumes[id]["status"] = StatusInUse
	f.volumes[id]["attachments"] = []any{map[string]any{"server_id": server, "device": "/dev/vdb", "attachment_id": "a-1"}}
}

func (f *fakeCinder) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()

	path := strings.TrimPrefix(r.URL.Path, "/volume/")
	id, action, _ := strings.Cut(strings.TrimPrefix(path, "volumes/"), "/")

	switch {
	case r.Method == http.MethodGet && path == "volumes/detail":
		out := []any{}

		for _, k := range slices.Sorted(mapsKeys(f.volumes)) {
			if name := r.URL.Query().Get("name"); name == "" || f.volumes[k]["name"] == name {
				out = append(out, f.volumes[k])
			}
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"volumes": out})
	case r.Method == http.MethodPost && path == "volumes":
		var body struct {
			Volume map[string]any `json:"volume"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)
		f.next++
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", f.next)
		v := body.Volume
		v["id"] = id
		v["status"] = "creating"
		v["attachments"] = []any{}
		v["bootable"] = "false"
		v["volume_type_id"] = "t-default"
		f.volumes[id] = v
		cloudtest.WriteJSON(w, http.StatusAccepted, map[string]any{"volume": v})
		v["status"] = StatusAvailable // ready by the first poll
	case strings.HasPrefix(r.URL.Path, "/compute/servers/") && r.Method == http.MethodPost:
		server := strings.Split(r.URL.Path, "/")[3]

		var body struct {
			Attachment struct {
				VolumeID string `json:"volumeId"`
			} `json:"volumeAttachment"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)
		vid := body.Attachment.VolumeID

		if f.novaHolds > 0 {
			f.novaHolds--
			f.refusals++
			cloudtest.WriteJSON(w, http.StatusBadRequest, map[string]any{"badRequest": map[string]any{
				"code": 400, "message": "Invalid volume: volume " + vid + " is already attached to instances: s-1",
			}})

			if f.onHold != nil {
				f.onHold(f.refusals)
			}

			return
		}

		if f.novaThen != 0 {
			cloudtest.WriteJSON(w, f.novaThen, map[string]any{"forbidden": map[string]any{"code": f.novaThen, "message": "Policy doesn't allow it"}})
			return
		}

		f.volumes[vid]["status"] = StatusInUse
		f.volumes[vid]["attachments"] = []any{map[string]any{"server_id": server, "device": "/dev/vdb", "attachment_id": "a-2"}}
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"volumeAttachment": map[string]any{"id": vid, "volumeId": vid, "serverId": server}})
	case strings.HasPrefix(r.URL.Path, "/compute/servers/") && r.Method == http.MethodDelete:
		vid := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if v, ok := f.volumes[vid]; ok {
			v["status"], v["attachments"] = StatusAvailable, []any{}
		}

		w.WriteHeader(http.StatusAccepted)
	case f.volumes[id] == nil:
		cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404}})
	case r.Method == http.MethodGet && action == "":
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"volume": f.volumes[id]})
	case r.Method == http.MethodPut && action == "":
		var body struct {
			Volume map[string]any `json:"volume"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		for k, v := range body.Volume {
			f.volumes[id][k] = v // metadata replaces metadata, as in Cinder
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"volume": f.volumes[id]})
	case r.Method == http.MethodPost && action == "action":
		var body struct {
			Extend struct {
				NewSize int `json:"new_size"`
			} `json:"os-extend"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)
		f.volumes[id]["size"] = body.Extend.NewSize
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodDelete && action == "":
		if f.volumes[id]["status"] == StatusInUse {
			cloudtest.WriteJSON(w, http.StatusBadRequest, map[string]any{"badRequest": map[string]any{"message": "attached"}})
			return
		}

		delete(f.volumes, id)
		w.WriteHeader(http.StatusAccepted)
	default:
		cloudtest.WriteJSON(w, http.StatusNotFound, nil)
	}
}

func mapsKeys(m map[string]map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func unfinished() map[string]string { return naming.MadeFor(Type).Properties() }

func finished() map[string]string { return naming.MadeFor(Type).Done().Properties() }

func TestMakeCreatesWithTheCreationMark(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	f.add("volume-data2", 1, nil) // a near miss is not the volume
	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

	desc := "logs"

	vol, adopted, err := vols.Make(ctx, Spec{Name: "data", SizeGB: 3, Class: "t-fast", Description: &desc})
	if err != nil || adopted {
		t.Fatalf("Make = %v, adopted %v", err, adopted)
	}

	post := f.api.Last(t, "POST /volume/volumes").JSON(t, "volume")
	if post["name"] != "volume-data" || post["size"] != float64(3) || post["volume_type"] != "t-fast" || post["description"] != "logs" {
		t.Errorf("POST body %v", post)
	}

	if md, _ := post["metadata"].(map[string]any); md[naming.MarkKindKey] != Type || md[naming.MarkCompletedKey] != nil {
		t.Errorf("POST metadata %v, want the creation mark alone", md)
	}

	if got := f.api.Requests()[0]; got.Query.Get("name") != "volume-data" {
		t.Errorf("the first request %s?%s is not the look-up by name", got, got.Query.Encode())
	}

	if f.api.Requests()[0].Method != http.MethodGet {
		t.Error("the create did not look before it posted")
	}

	vol, err = vols.WaitMade(ctx, vol.ID)
	if err != nil {
		t.Fatal(err)
	}

	vol, err = vols.Finish(ctx, vol)
	if err != nil || !vol.Mark.Completed || vol.ClassID != "t-default" {
		t.Fatalf("Finish = %v, %+v", err, vol)
	}
}

func TestMakeOwnershipRule(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name      string
		metadata  map[string]string
		twice     bool
		wantAdopt bool
		wantClaim cloud.Claim
	}{
		{name: "an interrupted create of a volume is adopted", metadata: unfinished(), wantAdopt: true},
		{name: "a volume made by hand or by Unikorn is refused", metadata: map[string]string{"owner": "someone"}, wantClaim: cloud.ClaimForeign},
		{name: "another configuration's volume is refused", metadata: finished(), wantClaim: cloud.ClaimFinished},
		{name: "another kind's object is refused", metadata: naming.MadeFor("unikorn_server").Properties(), wantClaim: cloud.ClaimOtherKind},
		{name: "two volumes of the name are an error", metadata: unfinished(), twice: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			f, vols := newFake(t)
			id := f.add("volume-data", 2, tc.metadata)

			if tc.twice {
				f.add("volume-data", 2, tc.metadata)
			}

			vol, adopted, err := vols.Make(t.Context(), Spec{Name: "data", SizeGB: 2})

			var exists *cloud.ExistsError

			var dup *naming.DuplicateError

			switch {
			case tc.twice:
				if !errors.As(err, &dup) || len(dup.IDs) != 2 {
					t.Fatalf("Make = %v, want a duplicate error naming both", err)
				}
			case tc.wantAdopt:
				if err != nil || !adopted || vol.ID != id {
					t.Fatalf("Make = %v, adopted %v, %+v; want %s adopted", err, adopted, vol, id)
				}
			default:
				if !errors.As(err, &exists) || exists.Claim != tc.wantClaim || !strings.Contains(err.Error(), "r/"+id) {
					t.Fatalf("Make = %v, want an ExistsError of claim %d with the import ID", err, tc.wantClaim)
				}
			}

			if n := f.api.Count("POST /volume/volumes"); n != 0 {
				t.Errorf("%d POSTs, want none", n)
			}
		})
	}
}

func TestFinishKeepsTheVolumesMetadata(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	md := unfinished()
	md["team"] = "storage"
	id := f.add("volume-data", 2, md)

	vol, err := vols.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}

	if _, err := vols.Finish(t.Context(), vol); err != nil {
		t.Fatal(err)
	}

	put := f.api.Last(t, "PUT /volume/volumes/"+id).JSON(t, "volume")
	got, _ := put["metadata"].(map[string]any)

	if len(got) != 3 || got["team"] != "storage" || got[naming.MarkKindKey] != Type || got[naming.MarkCompletedKey] != naming.MarkCompletedValue {
		t.Errorf("PUT metadata %v, want the volume's own key and both marks", got)
	}
}

func TestConvergeGrowsAndNeverShrinks(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	id := f.add("volume-data", 2, finished())
	ctx := t.Context()

	vol, _ := vols.Get(ctx, id)
	if _, err := vols.Converge(ctx, vol, Spec{Name: "data", SizeGB: 1}); err == nil || !strings.Contains(err.Error(), "cannot shrink") {
		t.Errorf("Converge to a smaller size = %v, want a refusal", err)
	}

	if w := f.api.Writes(); len(w) != 0 {
		t.Errorf("a refused shrink wrote %v", w)
	}

	grown, err := vols.Converge(ctx, vol, Spec{Name: "data", SizeGB: 5})
	if err != nil || grown.SizeGB != 5 {
		t.Fatalf("Converge to 5 GiB = %v, %+v", err, grown)
	}

	body := f.api.Last(t, "POST /volume/volumes/"+id+"/action").JSON(t, "os-extend")
	if body["new_size"] != float64(5) {
		t.Errorf("extend body %v", body)
	}
}

func TestDeleteDetachesFirst(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	id := f.add("volume-data", 2, finished())
	f.attach(id, "s-1")

	if err := vols.Delete(cloud.WithSleeper(t.Context(), cloudtest.Instant), id); err != nil {
		t.Fatal(err)
	}

	writes := f.api.Writes()
	want := []string{"DELETE /compute/servers/s-1/os-volume_attachments/" + id, "DELETE /volume/volumes/" + id}

	if !slices.Equal(writes, want) {
		t.Errorf("writes %v, want %v", writes, want)
	}

	if err := vols.Delete(t.Context(), id); err != nil {
		t.Errorf("deleting a volume that is gone = %v, want success", err)
	}
}

func TestObserveRefindsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	gone := "00000000-0000-4000-8000-999999999999"

	obs, err := vols.Observe(t.Context(), gone, "data")
	if err != nil || obs.Volume != nil {
		t.Fatalf("Observe of a gone volume = %v, %+v", err, obs)
	}

	f.add("volume-data", 2, finished()) // another configuration's

	if obs, err := vols.Observe(t.Context(), gone, "data"); err != nil || obs.Volume != nil {
		t.Errorf("Observe took a finished volume of the name: %v, %+v", err, obs)
	}

	f2, vols2 := newFake(t)
	id := f2.add("volume-data", 2, unfinished())

	obs, err = vols2.Observe(t.Context(), gone, "data")
	if err != nil || obs.Volume == nil || obs.Volume.ID != id || obs.RefoundFrom != gone {
		t.Errorf("Observe = %v, %+v; want %s found again", err, obs, id)
	}
}

// TestAttachWhileNovaStillMapsTheVolume: Cinder says the volume is available, but Nova still maps
// it to the server it left (2025.1 refuses the attach then): the request is sent again until Nova
// takes it, and given up with Nova's refusal when the wait ends.
func TestAttachWhileNovaStillMapsTheVolume(t *testing.T) {
	t.Parallel()

	f, vols := newFake(t)
	id := f.add("volume-data", 1, finished())
	f.novaHolds = 2

	if err := vols.Attach(cloud.WithSleeper(t.Context(), cloudtest.Instant), "s-2", id); err != nil {
		t.Fatal(err)
	}

	post := "POST /compute/servers/s-2/os-volume_attachments"
	if writes := f.api.Writes(); !slices.Equal(writes, []string{post, post, post}) {
		t.Errorf("writes %v, want the attach sent three times", writes)
	}

	if got := fmt.Sprint(f.volumes[id]["attachments"]); !strings.Contains(got, "server_id:s-2") {
		t.Errorf("attachments %s, want one to s-2", got)
	}

	// Nova never lets go: the wait ends (here cancelled by the fake after 3 refusals) with its refusal.
	f2, vols2 := newFake(t)
	id2 := f2.add("volume-data", 1, finished())
	ctx, cancel := context.WithCancel(cloud.WithSleeper(t.Context(), cloudtest.Instant))
	f2.novaHolds = 100
	f2.onHold = func(n int) {
		if n == 3 {
			cancel()
		}
	}

	err := vols2.Attach(ctx, "s-2", id2)
	if err == nil || !strings.Contains(err.Error(), "cancelled") || !strings.Contains(err.Error(), `last state "held"`) {
		t.Errorf("Attach = %v, want a cancelled wait in the held state", err)
	}

	// Another refusal after Nova let go is that refusal, not "still mapped".
	f3, vols3 := newFake(t)
	id3 := f3.add("volume-data", 1, finished())
	f3.novaHolds, f3.novaThen = 1, http.StatusForbidden

	err = vols3.Attach(cloud.WithSleeper(t.Context(), cloudtest.Instant), "s-2", id3)
	if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) || strings.Contains(err.Error(), "still mapped") {
		t.Errorf("Attach = %v, want Nova's 403 as it is", err)
	}
}

func TestHeldByNova(t *testing.T) {
	t.Parallel()

	refusal := func(code int, message string) error {
		return gophercloud.ErrUnexpectedResponseCode{Actual: code, Body: []byte(`{"badRequest": {"code": 400, "message": "` + message + `"}}`)}
	}

	for _, c := range []struct {
		err  error
		want bool
	}{
		{refusal(400, "Invalid volume: volume v is already attached to instances: s-1"), true},
		{refusal(400, "Invalid volume: volume v already attached"), true},
		{refusal(400, "Invalid volume: volume v status must be available"), false},
		{refusal(409, "already attached"), false},
		{errors.New("already attached"), false},
		{nil, false},
	} {
		if got := heldByNova(c.err); got != c.want {
			t.Errorf("heldByNova(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
