package server

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
)

// snapshotCloud is a fake Nova and Glance for the snapshots of project p1.
func snapshotCloud(t *testing.T) (*cloudtest.API, *Snapshots) {
	t.Helper()

	api := cloudtest.New(t)

	return api, &Snapshots{
		compute:    api.ServiceClient("/compute/", "/compute/"),
		images:     image.NewManager(api.ServiceClient("/image/", "/image/v2/"), "p1", "RegionOne", nil).Of(SnapshotType),
		tenant:     "project p1, region RegionOne",
		identityID: "team", // the identity's project is unikorn-identity-team
	}
}

// glanceImage is the Glance image "backup" of p1 with extra (top-level) properties.
func glanceImage(id, status string, props map[string]any) map[string]any {
	img := map[string]any{
		"id": id, "name": "backup", "status": status, "visibility": "private", "owner": "p1", "protected": false,
		"tags": []any{}, "min_disk": 1, "min_ram": 0, "size": 29, "created_at": "2026-12-01T10:00:00Z",
		"updated_at": "2026-12-01T10:00:00Z", "os_hidden": false,
	}
	maps.Copy(img, props)

	return img
}

// snapshotProps are the properties Nova gives a snapshot of srv-1 of a signed Unikorn image.
func snapshotProps() map[string]any {
	return map[string]any{
		"image_type": "snapshot", "instance_uuid": "srv-1", "base_image_ref": "img-1",
		"unikorn:os:kernel": "linux", "unikorn:os:family": "ubuntu", "unikorn:os:distro": "ubuntu",
		"unikorn:os:version": "24.04", "unikorn:virtualization": "any", "unikorn:digest": "c2lnbmF0dXJl",
		"unikorn:organization:id": "org-1",
	}
}

// snapshotMarked are snapshotProps with the marks.
func snapshotMarked(marks map[string]string) map[string]any {
	props := snapshotProps()
	for k, v := range marks {
		props[k] = v
	}

	return props
}

// answerCreateImage answers Nova's create-image of srv-1 with image img-9.
func answerCreateImage(api *cloudtest.API) {
	api.On("POST", "/compute/servers/srv-1/action", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-OpenStack-Nova-API-Version", "2.88")
		cloudtest.WriteJSON(w, http.StatusAccepted, map[string]any{"image_id": "img-9"})
	})
}

func TestSnapshotTake(t *testing.T) {
	t.Parallel()

	spec := SnapshotSpec{Name: "backup", ServerID: "srv-1", OrganizationID: "org-1"}

	t.Run("asks Nova for the image with the organization", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		api.Sequence("GET", "/image/v2/images",
			map[string]any{"images": []any{}},
			map[string]any{"images": []any{glanceImage("img-9", "queued", snapshotProps())}})
		answerCreateImage(api)

		img, adopted, err := snaps.Take(context.Background(), spec, true)
		if err != nil || adopted || img.ID != "img-9" {
			t.Fatalf("Take = %+v, %v, %v", img, adopted, err)
		}

		// The image carries the creation mark from the first moment, and not the completion
		// mark Nova would copy from a server's image that this provider made.
		body := api.Last(t, "POST /compute/servers/srv-1/action").JSON(t, "createImage")
		// Like Unikorn's snapshots, it names its identity as Unikorn does.
		want := map[string]any{"name": "backup", "metadata": map[string]any{
			"unikorn:organization:id": "org-1", "unikorn_terraform_kind": "unikorn_server_snapshot", "unikorn_terraform_created": "false",
			"unikorn:identity_id": "team",
		}}

		if diff := cmp.Diff(want, body); diff != "" {
			t.Errorf("createImage (-want +got):\n%s", diff)
		}

		// Looked up by name and owner before, and once more after (the twin check).
		q := api.Requests()[0].Query
		if q.Get("name") != "backup" || q.Get("owner") != "p1" || api.Count("GET /image/v2/images") != 2 {
			t.Errorf("lookups: first query %v, %d in all", q, api.Count("GET /image/v2/images"))
		}
	})

	t.Run("adopts the snapshot of the same server an interrupted create began", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{glanceImage("img-8", "active", snapshotMarked(snapshotMarks(SnapshotType)))}})

		img, adopted, err := snaps.Take(context.Background(), spec, true)
		if err != nil || !adopted || img.ID != "img-8" || api.Count("POST /compute/servers/srv-1/action") != 0 {
			t.Fatalf("Take = %+v, %v, %v; calls %v", img, adopted, err, api.Calls())
		}
	})

	for _, tc := range []struct {
		name, from string
		adopt      bool
		want       string
	}{
		{"refuses an image of another server", "srv-2", true, "is not a snapshot of server srv-1"},
		{"an action refuses a name in use", "srv-1", false, "choose another name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			api, snaps := snapshotCloud(t)
			props := snapshotMarked(snapshotMarks(SnapshotType))
			props["instance_uuid"] = tc.from
			api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{glanceImage("img-8", "active", props)}})

			_, _, err := snaps.Take(context.Background(), spec, tc.adopt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || api.Count("POST /compute/servers/srv-1/action") != 0 {
				t.Fatalf("Take: %v, want an error saying %q and no create", err, tc.want)
			}
		})
	}

	t.Run("a busy server is said plainly", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		api.Reply("GET", "/image/v2/images", 200, map[string]any{"images": []any{}})
		api.Reply("POST", "/compute/servers/srv-1/action", 409, map[string]any{"conflictingRequest": map[string]any{
			"message": "Cannot 'createImage' instance srv-1 while it is in task_state image_uploading", "code": 409,
		}})

		_, _, err := snaps.Take(context.Background(), spec, true)
		if err == nil || !strings.Contains(err.Error(), "busy") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSnapshotWait(t *testing.T) {
	t.Parallel()

	t.Run("to active, telling each status", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		api.Sequence("GET", "/image/v2/images/img-9",
			glanceImage("img-9", "queued", snapshotProps()),
			glanceImage("img-9", "saving", snapshotProps()),
			glanceImage("img-9", "active", snapshotProps()))

		var told []string

		img, err := snaps.Wait(context.Background(), "img-9", "srv-1", func(m string) { told = append(told, m) })
		if err != nil || string(img.Status) != "active" {
			t.Fatalf("Wait = %v, %v", img, err)
		}

		want := []string{
			"Snapshot image img-9 of server srv-1 is queued", "Snapshot image img-9 of server srv-1 is saving",
			"Snapshot image img-9 of server srv-1 is active",
		}
		if diff := cmp.Diff(want, told); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})

	for _, tc := range []struct {
		name   string
		status int
		body   any
		want   string
	}{
		{"killed", 200, glanceImage("img-9", "killed", snapshotProps()), "is killed in Glance: Nova's snapshot failed"},
		{"removed by Nova", 404, map[string]any{}, "is gone: Nova's snapshot failed and removed it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			api, snaps := snapshotCloud(t)
			api.Reply("GET", "/image/v2/images/img-9", tc.status, tc.body)

			if _, err := snaps.Wait(context.Background(), "img-9", "srv-1", nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSnapshotPublish(t *testing.T) {
	t.Parallel()

	t.Run("sets the organization and drops the digest", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)

		var patch []map[string]any

		api.On("PATCH", "/image/v2/images/img-9", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewDecoder(r.Body).Decode(&patch)

			props := snapshotProps()
			delete(props, "unikorn:digest")
			props["unikorn:organization:id"] = "org-2"
			cloudtest.WriteJSON(w, 200, glanceImage("img-9", "active", props))
		})

		img, err := snaps.Publish(context.Background(), readImage(t, api, snaps, snapshotProps()), SnapshotSpec{OrganizationID: "org-2"})
		if err != nil {
			t.Fatal(err)
		}

		want := []map[string]any{
			{"op": "replace", "path": "/unikorn:organization:id", "value": "org-2"},
			{"op": "remove", "path": "/unikorn:digest"},
		}
		if diff := cmp.Diff(want, patch); diff != "" {
			t.Errorf("patch (-want +got):\n%s", diff)
		}

		if got := SnapshotOf(img); got.OrganizationID != "org-2" || got.ServerID != "srv-1" || got.Unaccepted != "" {
			t.Errorf("SnapshotOf = %+v", got)
		}
	})

	t.Run("nothing to do costs nothing", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		props := snapshotProps()
		delete(props, "unikorn:digest")

		_, err := snaps.Publish(context.Background(), readImage(t, api, snaps, props), SnapshotSpec{OrganizationID: "org-1", Visibility: VisibilityPrivate})
		if err != nil || api.Count("PATCH /image/v2/images/img-9") != 0 {
			t.Fatalf("Publish: %v, calls %v", err, api.Calls())
		}
	})
}

// TestSnapshotPublishPublic: a snapshot published public (Unikorn's shape) gets its properties
// first, in its own scope, then its visibility from the admin scope (Glance's publicize_image);
// without the admin scope it is not made public; its owner makes it private again.
func TestSnapshotPublishPublic(t *testing.T) {
	t.Parallel()

	props := snapshotProps()
	delete(props, "unikorn:digest")

	t.Run("public through the admin scope, after the properties", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		snaps.publisher = image.NewManager(api.ServiceClient("/admin-image/", "/admin-image/v2/"), "p1", "RegionOne", nil)

		api.On("PATCH", "/image/v2/images/img-9", func(w http.ResponseWriter, _ *http.Request) {
			cloudtest.WriteJSON(w, 200, glanceImage("img-9", "active", props))
		})

		public := glanceImage("img-9", "active", props)
		public["visibility"] = "public"

		var patch []map[string]any

		api.On("PATCH", "/admin-image/v2/images/img-9", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewDecoder(r.Body).Decode(&patch)
			cloudtest.WriteJSON(w, 200, public)
		})

		img, err := snaps.Publish(context.Background(), readImage(t, api, snaps, snapshotProps()), SnapshotSpec{OrganizationID: "org-1", Visibility: VisibilityPublic})
		if err != nil {
			t.Fatal(err)
		}

		if want := []string{"PATCH /image/v2/images/img-9", "PATCH /admin-image/v2/images/img-9"}; !cmp.Equal(want, api.Writes()) {
			t.Fatalf("writes = %v, want the properties, then the visibility from the admin scope", api.Writes())
		}

		if diff := cmp.Diff([]map[string]any{{"op": "replace", "path": "/visibility", "value": "public"}}, patch); diff != "" {
			t.Errorf("admin patch (-want +got):\n%s", diff)
		}

		if got := SnapshotOf(img); got.Visibility != VisibilityPublic || got.OrganizationID != "org-1" {
			t.Errorf("SnapshotOf = %+v", got)
		}
	})

	t.Run("not without the admin scope", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)

		_, err := snaps.Publish(context.Background(), readImage(t, api, snaps, props), SnapshotSpec{OrganizationID: "org-1", Visibility: VisibilityPublic})
		if err == nil || !strings.Contains(err.Error(), "admin scope") || len(api.Writes()) != 0 {
			t.Fatalf("Publish: %v, writes %v", err, api.Writes())
		}
	})

	t.Run("private again by its owner", func(t *testing.T) {
		t.Parallel()

		api, snaps := snapshotCloud(t)
		public := maps.Clone(props)
		public["visibility"] = "public"

		api.Reply("PATCH", "/image/v2/images/img-9", 200, glanceImage("img-9", "active", props))

		if _, err := snaps.Publish(context.Background(), readImage(t, api, snaps, public), SnapshotSpec{OrganizationID: "org-1"}); err != nil {
			t.Fatal(err)
		}

		if want := []string{"PATCH /image/v2/images/img-9"}; !cmp.Equal(want, api.Writes()) {
			t.Fatalf("writes = %v, want one patch in the identity's scope", api.Writes())
		}
	})
}

func TestSnapshotOfUnaccepted(t *testing.T) {
	t.Parallel()

	api, snaps := snapshotCloud(t)

	img := readImage(t, api, snaps, map[string]any{"image_type": "snapshot", "instance_uuid": "srv-1", "unikorn:organization:id": "org-1"})

	if got := SnapshotOf(img); !strings.Contains(got.Unaccepted, "unikorn:os:kernel") {
		t.Errorf("Unaccepted = %q, want it to name the missing property", got.Unaccepted)
	}
}

// readImage is the active image img-9 with props as snaps reads it from api.
func readImage(t *testing.T, api *cloudtest.API, snaps *Snapshots, props map[string]any) *images.Image {
	t.Helper()

	api.Reply("GET", "/image/v2/images/img-9", 200, glanceImage("img-9", "active", props))

	img, err := snaps.images.Get(context.Background(), "img-9")
	if err != nil {
		t.Fatal(err)
	}

	return img
}
