package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// fakeImages is a stateful Glance of one project: images, their import (which takes
// importPolls GETs to finish, or fails with failReason), JSON patches and deletes.
type fakeImages struct {
	mu     sync.Mutex
	images map[string]map[string]any
	tasks  map[string][]map[string]any
	n      int

	importPolls int
	failReason  string
	// loseCreates drops the answer of that many POSTs after making the image (a 502).
	loseCreates int
	// deleteStatus answers every DELETE with this status when set (409: in use).
	deleteStatus int
	// onPoll, when set, is called with the count of an importing image's GETs so far.
	onPoll func(polls int)
}

func newFakeImages(t *testing.T) (*fakeImages, *Manager, *cloudtest.API) {
	t.Helper()

	f := &fakeImages{images: map[string]map[string]any{}, tasks: map[string][]map[string]any{}}
	api := cloudtest.New(t)
	api.Fallback(http.HandlerFunc(f.serve))

	m := NewManager(api.ServiceClient("/v2/", "/v2/"), "p1", "RegionOne", nil)
	m.pollMin = time.Millisecond

	return f, m, api
}

func (f *fakeImages) add(name, status string, extra map[string]any) string {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.n++
	id := fmt.Sprintf("img-%d", f.n)
	img := map[string]any{
		"id": id, "name": name, "status": status, "visibility": "private", "owner": "p1", "tags": []string{},
		"disk_format": "raw", "container_format": "bare", "protected": false, "min_disk": 0, "min_ram": 0,
		"created_at": "2026-01-01T00:00:00Z", "os_hash_algo": "sha512",
	}

	for k, v := range extra {
		img[k] = v
	}

	f.images[id] = img

	return id
}

func (f *fakeImages) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2/"), "/"), "/")

	if r.Method == http.MethodPost && len(parts) == 1 {
		f.create(w, body)
		return
	}

	if r.Method == http.MethodGet && len(parts) == 1 {
		f.list(w, r)
		return
	}

	f.mu.Lock()
	defer f.mu.Unlock()

	var img map[string]any

	ok := len(parts) >= 2
	if ok {
		img, ok = f.images[parts[1]]
	}

	if !ok {
		cloudtest.WriteJSON(w, http.StatusNotFound, nil)
		return
	}

	switch {
	case r.Method == http.MethodGet && len(parts) == 2:
		f.advance(img)
		cloudtest.WriteJSON(w, http.StatusOK, img)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[2] == "tasks":
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"tasks": f.tasks[parts[1]]})
	case r.Method == http.MethodPost && len(parts) == 3 && parts[2] == "import":
		var req map[string]map[string]string
		_ = json.Unmarshal(body, &req)
		img["status"], img["polls"] = "importing", 0
		img["os_glance_importing_to_stores"], img["os_glance_failed_import"] = "", ""
		f.tasks[parts[1]] = append(f.tasks[parts[1]], map[string]any{
			"id": fmt.Sprintf("task-%d", len(f.tasks[parts[1]])+1), "type": "api_image_import", "status": "processing",
			"message": "", "created_at": fmt.Sprintf("2026-01-01T00:00:0%dZ", len(f.tasks[parts[1]])+1),
			"input": map[string]any{"import_req": map[string]any{"method": req["method"]}},
		})
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPatch:
		var ops []map[string]any
		_ = json.Unmarshal(body, &ops)

		for _, op := range ops {
			p, _ := op["path"].(string)
			key := strings.TrimPrefix(p, "/")
			if op["op"] == "remove" {
				delete(img, key)
			} else {
				img[key] = op["value"]
			}
		}

		cloudtest.WriteJSON(w, http.StatusOK, img)
	case r.Method == http.MethodDelete:
		if f.deleteStatus != 0 {
			cloudtest.WriteJSON(w, f.deleteStatus, nil)
			return
		}

		if img["protected"] == true {
			cloudtest.WriteJSON(w, http.StatusForbidden, nil)
			return
		}

		delete(f.images, parts[1])
		w.WriteHeader(http.StatusNoContent)
	default:
		cloudtest.WriteJSON(w, http.StatusMethodNotAllowed, nil)
	}
}

// advance moves an importing image on: active after importPolls GETs, or back to queued with a
// failed task when failReason is set.
func (f *fakeImages) advance(img map[string]any) {
	if img["status"] != "importing" {
		return
	}

	polls, _ := img["polls"].(int)
	img["polls"] = polls + 1

	if f.onPoll != nil {
		f.onPoll(polls + 1)
	}

	if polls+1 < f.importPolls {
		return
	}

	id, _ := img["id"].(string)
	tasks := f.tasks[id]
	task := tasks[len(tasks)-1]

	if f.failReason != "" {
		img["status"], task["status"], task["message"] = "queued", "failure", f.failReason
		return
	}

	img["status"], img["size"], img["checksum"], task["status"] = "active", 16<<20, "abc", "success"
}

func (f *fakeImages) create(w http.ResponseWriter, body []byte) {
	var req map[string]any
	_ = json.Unmarshal(body, &req)

	name, _ := req["name"].(string)
	delete(req, "name")
	id := f.add(name, "queued", req)

	f.mu.Lock()
	defer f.mu.Unlock()

	if f.loseCreates > 0 {
		f.loseCreates--
		cloudtest.WriteJSON(w, http.StatusBadGateway, nil)

		return
	}

	cloudtest.WriteJSON(w, http.StatusCreated, f.images[id])
}

func (f *fakeImages) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()

	// Like Nova's, this filter is fuzzy (a prefix match): the core must post-filter.
	var out []map[string]any

	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for k := range f.images {
			if !yield(k) {
				return
			}
		}
	}) {
		img := f.images[id]
		if name, _ := img["name"].(string); strings.HasPrefix(name, r.URL.Query().Get("name")) && img["owner"] == r.URL.Query().Get("owner") {
			out = append(out, img)
		}
	}

	cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"images": out})
}

func testSpec(name string) Spec {
	return Spec{
		Name: name, SourceURL: "http://127.0.0.1:8000/a.raw", DiskFormat: "raw", ContainerFormat: "bare", Visibility: "private",
		Tags: []string{"b", "a"}, Properties: map[string]string{"hw_disk_bus": "scsi"},
	}
}

func TestManagerCreateImportConverge(t *testing.T) {
	t.Parallel()

	f, m, api := newFakeImages(t)
	f.importPolls = 3

	// A near-miss name must not be adopted.
	near := f.add("web2", "active", nil)

	spec := testSpec("web")
	spec.Protected = true

	created, err := m.Create(t.Context(), spec)
	if err != nil || created.Adopted || created.Image.ID == near {
		t.Fatalf("create: %+v, %v", created, err)
	}

	img, err := m.Import(t.Context(), created.Image, spec.SourceURL)
	if err != nil || string(img.Status) != "active" || img.SizeBytes != 16<<20 {
		t.Fatalf("import: %+v, %v", img, err)
	}

	img, err = m.Converge(t.Context(), img, spec)
	if err != nil || !img.Protected {
		t.Fatalf("converge: %+v, %v", img, err)
	}

	// One lookup, the POST, the twin check, the import, three polls with
	// their task reads, the protection patch.
	want := []string{
		"GET /v2/images", "POST /v2/images", "GET /v2/images", "POST /v2/images/img-2/import",
		"GET /v2/images/img-2", "GET /v2/images/img-2/tasks", "GET /v2/images/img-2", "GET /v2/images/img-2/tasks",
		"GET /v2/images/img-2", "PATCH /v2/images/img-2",
	}
	if got := api.Calls(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %v\nwant %v", got, want)
	}

	patch := api.Last(t, "PATCH /v2/images/img-2")
	if !strings.Contains(string(patch.Body), `"/protected"`) || strings.Contains(string(patch.Body), "tags") {
		t.Errorf("patch: %s", patch.Body)
	}

	// Nothing to change: no request.
	api.Reset()

	if _, err := m.Converge(t.Context(), img, spec); err != nil || len(api.Calls()) != 0 {
		t.Errorf("idempotent converge: %v, %v", api.Calls(), err)
	}
}

func TestManagerAdoptsAndRecoversLostCreate(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	f.loseCreates = 1

	created, err := m.Create(t.Context(), testSpec("lost"))
	if err != nil || created.Image == nil || created.Adopted {
		t.Fatalf("lost create: %+v, %v", created, err)
	}

	if n := len(f.images); n != 1 {
		t.Fatalf("%d images after a lost answer, want 1 (no twin)", n)
	}

	again, err := m.Create(t.Context(), testSpec("lost"))
	if err != nil || !again.Adopted || again.Image.ID != created.Image.ID {
		t.Fatalf("second create: %+v, %v (want the first adopted)", again, err)
	}
}

func TestManagerDuplicateName(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	a, b := f.add("dup", "active", nil), f.add("dup", "active", nil)

	_, err := m.Create(t.Context(), testSpec("dup"))

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !slices.Equal(dup.IDs, []string{a, b}) {
		t.Fatalf("duplicate: %v", err)
	}

	if _, err := m.Observe(t.Context(), "gone", "dup"); !errors.As(err, &dup) {
		t.Fatalf("observe with a duplicate: %v", err)
	}
}

func TestManagerImportFailure(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	f.failReason = "Task failed due to Internal Error"

	created, err := m.Create(t.Context(), testSpec("broken"))
	if err != nil {
		t.Fatal(err)
	}

	_, err = m.Import(t.Context(), created.Image, "http://127.0.0.1:8000/missing")

	var ie *ImportError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "Task failed due to Internal Error") ||
		!strings.Contains(err.Error(), "http://127.0.0.1:8000/missing") {
		t.Fatalf("import failure: %v", err)
	}

	// A second try on the adopted, queued image ignores the earlier failed task.
	f.failReason = ""

	queued, _ := m.Get(t.Context(), created.Image.ID)

	img, err := m.Import(t.Context(), queued, "http://127.0.0.1:8000/a.raw")
	if err != nil || string(img.Status) != "active" {
		t.Fatalf("second import: %+v, %v", img, err)
	}

	url, err := m.SourceURL(t.Context(), img.ID)
	if err != nil || url != "http://127.0.0.1:8000/a.raw" {
		t.Errorf("source URL: %q, %v", url, err)
	}
}

func TestManagerKilledImage(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	id := f.add("killed", "killed", nil)

	img, _ := m.Get(t.Context(), id)

	_, err := m.Import(t.Context(), img, "http://127.0.0.1:8000/a.raw")
	if ie := (*ImportError)(nil); !errors.As(err, &ie) || ie.Status != "killed" {
		t.Fatalf("killed: %v", err)
	}
}

func TestManagerObserve(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	id := f.add("obs", "active", map[string]any{"os_glance_failed_import": "", "unikorn:os:kernel": "linux"})

	got, err := m.Observe(t.Context(), id, "obs")
	if err != nil || got.Image.ID != id || got.RefoundFrom != "" {
		t.Fatalf("by ID: %+v, %v", got, err)
	}

	if props := UserProperties(got.Image); len(props) != 1 || props["unikorn:os:kernel"] != "linux" {
		t.Errorf("user properties: %v", props)
	}

	// Found again by name only when it is what an interrupted create of a unikorn_image left.
	got, err = m.Observe(t.Context(), "old-id", "obs")
	if err != nil || got.Image != nil {
		t.Fatalf("an unmarked image found again: %+v, %v", got, err)
	}

	unfinished := f.add("unfinished", "active", naming.MadeFor(TypeName).Extra())

	got, err = m.Observe(t.Context(), "old-id", "unfinished")
	if err != nil || got.Image.ID != unfinished || got.RefoundFrom != "old-id" {
		t.Fatalf("found again: %+v, %v", got, err)
	}

	got, err = m.Observe(t.Context(), "old-id", "nothing")
	if err != nil || got.Image != nil {
		t.Fatalf("gone: %+v, %v", got, err)
	}
}

func TestManagerDelete(t *testing.T) {
	t.Parallel()

	f, m, api := newFakeImages(t)
	id := f.add("del", "active", map[string]any{"protected": true})

	if err := m.Delete(t.Context(), id, "del", true); err != nil {
		t.Fatalf("delete protected: %v", err)
	}

	if got := api.Calls(); !slices.Equal(got, []string{"PATCH /v2/images/" + id, "DELETE /v2/images/" + id}) {
		t.Errorf("requests: %v", got)
	}

	if err := m.Delete(t.Context(), id, "del", false); err != nil {
		t.Errorf("delete of a gone image: %v", err)
	}

	busy := f.add("busy", "active", nil)
	f.deleteStatus = http.StatusConflict

	err := m.Delete(t.Context(), busy, "busy", false)

	var inUse *InUseError
	if !errors.As(err, &inUse) || !strings.Contains(err.Error(), `image "busy" (`+busy+`)`) {
		t.Errorf("in use: %v", err)
	}
}

func TestPropertyPatch(t *testing.T) {
	t.Parallel()

	ops := propertyPatch(map[string]string{"a": "1", "b": "2", "c": "3"}, map[string]string{"a": "1", "b": "x", "d": "4"})

	var got []string
	for _, op := range ops {
		m := op.ToImagePatchMap()
		got = append(got, fmt.Sprint(m["op"], " ", m["path"]))
	}

	if want := []string{"replace /b", "add /d", "remove /c"}; !slices.Equal(got, want) {
		t.Errorf("patch: %v, want %v", got, want)
	}
}

func TestManagerImportHonoursTimeout(t *testing.T) {
	t.Parallel()

	f, m, _ := newFakeImages(t)
	f.importPolls = 1 << 30

	created, err := m.Create(t.Context(), testSpec("slow"))
	if err != nil {
		t.Fatal(err)
	}

	// The deadline passes once Glance has answered "importing" twice: no wall clock involved.
	ctx := newExpiringContext(t.Context())
	f.onPoll = func(polls int) {
		if polls >= 2 {
			ctx.expire()
		}
	}

	img, err := m.Import(ctx, created.Image, "http://127.0.0.1:8000/a.raw")

	var timeout *cloud.WaitTimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) || timeout.LastState != "importing" || img == nil {
		t.Fatalf("timeout: %v (%+v)", err, img)
	}
}

// expiringContext is a context whose deadline passes when the test says so.
type expiringContext struct {
	context.Context

	once sync.Once
	done chan struct{}
}

func newExpiringContext(parent context.Context) *expiringContext {
	return &expiringContext{Context: parent, done: make(chan struct{})}
}

func (c *expiringContext) expire() { c.once.Do(func() { close(c.done) }) }

func (c *expiringContext) Done() <-chan struct{} { return c.done }

func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestManagerAdminRefusal(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	api.Reply(http.MethodGet, "/v2/images", http.StatusOK, map[string]any{"images": []any{}})
	api.Reply(http.MethodPost, "/v2/images", http.StatusForbidden, map[string]any{"message": "public images need admin"})

	var asked string

	m := NewManager(api.ServiceClient("/v2/", "/v2/"), "p1", "RegionOne", func(service, call string, err error) error {
		asked = service + ": " + call
		return fmt.Errorf("needs cloud admin: %w", err)
	})

	spec := testSpec("pub")
	spec.Visibility = "public"

	_, err := m.Create(t.Context(), spec)
	if err == nil || !strings.Contains(err.Error(), "needs cloud admin") || asked != "Glance: creating an image of visibility public" {
		t.Fatalf("refusal: %v (asked %q)", err, asked)
	}

	if n := api.Count("POST /v2/images"); n != 1 {
		t.Errorf("%d POSTs after a definite refusal, want 1", n)
	}
}
