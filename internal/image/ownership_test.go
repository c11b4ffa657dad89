package image

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestManagerCreateMarksAndCompletes: the image is posted with the creation mark of
// unikorn_image among its properties, Complete writes the completion mark, and neither is a
// user property (shown or converged away).
func TestManagerCreateMarksAndCompletes(t *testing.T) {
	t.Parallel()

	f, m, api := newFakeImages(t)

	created, err := m.Create(t.Context(), testSpec("web"))
	if err != nil {
		t.Fatal(err)
	}

	if body := api.Last(t, "POST /v2/images").JSON(t, ""); body[naming.MarkKindKey] != TypeName {
		t.Fatalf("posted %v, want the creation mark", body)
	}

	img, err := m.Complete(t.Context(), created.Image)
	if err != nil || naming.MarkOf(img.Properties) != naming.MadeFor(TypeName).Done() {
		t.Fatalf("complete: %+v, %v", img, err)
	}

	if props := UserProperties(img); props[naming.MarkKindKey] != "" || props[naming.MarkCompletedKey] != "" || props["hw_disk_bus"] != "scsi" {
		t.Errorf("user properties %v: the marks are not the user's", props)
	}

	api.Reset()

	if _, err := m.Converge(t.Context(), img, testSpec("web")); err != nil || len(api.Calls()) != 0 {
		t.Errorf("a converge of the marked image made %v (%v)", api.Calls(), err)
	}

	// Complete writes nothing on an image that is finished, or was never this type's.
	imported := f.add("imported", "active", nil)
	api.Reset()

	for _, id := range []string{img.ID, imported} {
		got, _ := m.Get(t.Context(), id)
		if _, err := m.Complete(t.Context(), got); err != nil {
			t.Fatal(err)
		}
	}

	if writes := api.Writes(); len(writes) != 0 {
		t.Errorf("completing a finished or imported image made %v", writes)
	}
}

// TestManagerCreateAdoptsOnlyAnInterruptedCreate: an image of the name that this provider did
// not make, or that a finished create (or another type's) holds, is refused before any write;
// what an interrupted create of a unikorn_image left is adopted.
func TestManagerCreateAdoptsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		mark  naming.Mark
		adopt bool
	}{
		{naming.MadeFor(TypeName), true},
		{naming.MadeFor(TypeName).Done(), false},
		{naming.MadeFor("unikorn_server_snapshot"), false},
		{naming.Mark{}, false},
	} {
		f, m, api := newFakeImages(t)
		id := f.add("web", "active", c.mark.Extra())

		created, err := m.Create(t.Context(), testSpec("web"))

		var exists *cloud.ExistsError

		switch {
		case c.adopt && (err != nil || !created.Adopted || created.Image.ID != id):
			t.Errorf("%+v: got %+v, %v; want %s adopted", c.mark, created, err, id)
		case !c.adopt && (!errors.As(err, &exists) || exists.ID != id ||
			!strings.Contains(err.Error(), "terraform import unikorn_image.<address> RegionOne/"+id)):
			t.Errorf("%+v: got %+v, %v; want an ExistsError naming %s", c.mark, created, err, id)
		}

		if writes := api.Writes(); len(writes) != 0 {
			t.Errorf("%+v: the create made %v", c.mark, writes)
		}
	}
}

// TestManagerLostAnswerRecoversOnlyItsOwnImage: while the POST's answer is lost, an image of the
// name that this provider did not make shows up: it is not taken for this create's.
func TestManagerLostAnswerRecoversOnlyItsOwnImage(t *testing.T) {
	t.Parallel()

	f, m, api := newFakeImages(t)
	api.On("POST", "/v2/images", func(w http.ResponseWriter, _ *http.Request) {
		f.add("web", "queued", nil)
		cloudtest.WriteJSON(w, http.StatusBadGateway, nil)
	})

	created, err := m.Create(cloud.WithSleeper(t.Context(), cloudtest.Instant), testSpec("web"))

	var exists *cloud.ExistsError
	if created.Image != nil || !errors.As(err, &exists) || api.Count("POST /v2/images") != 1 {
		t.Fatalf("got %+v, %v after %v; want the foreign image refused", created, err, api.Calls())
	}
}

// presigned is a pre-signed source URL: its query string is a credential.
const (
	presigned = "https://user:pa55word@objects.example:8443/bucket/ubuntu.raw?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=5ec2e7"
	secrets   = "X-Amz-Signature=5ec2e7"
)

// TestImportNeverShowsTheSourceURLsSecrets: a failing import (Glance's task quoting the source,
// and Glance's refusal to start one quoting it too) leaves no query string, password or
// signature in the error nor in the logs: only the scheme, host and path (issue 26, item 10).
func TestImportNeverShowsTheSourceURLsSecrets(t *testing.T) {
	t.Parallel()

	var logs bytes.Buffer

	ctx := tflogtest.RootLogger(context.Background(), &logs)

	f, m, api := newFakeImages(t)
	f.failReason = "Failed to download " + presigned + ": 403 Forbidden"

	created, err := m.Create(ctx, testSpec("leak"))
	if err != nil {
		t.Fatal(err)
	}

	_, importErr := m.Import(ctx, created.Image, presigned)

	var ie *ImportError
	if !errors.As(importErr, &ie) || !strings.Contains(importErr.Error(), "https://objects.example:8443/bucket/ubuntu.raw") {
		t.Fatalf("import: %v, want an ImportError naming the source by scheme, host and path", importErr)
	}

	// Glance refuses to start the import and quotes the URI (its import filtering does).
	refused := f.add("refused", "queued", nil)
	api.On("POST", "/v2/images/"+refused+"/import", func(w http.ResponseWriter, _ *http.Request) {
		cloudtest.WriteJSON(w, http.StatusForbidden, map[string]any{"message": "URI for web-download does not pass filtering: " + presigned})
	})

	img, _ := m.Get(ctx, refused)
	_, startErr := m.Import(ctx, img, presigned)

	if startErr == nil || !strings.Contains(startErr.Error(), "does not pass filtering") || !errors.As(startErr, new(interface{ Unwrap() error })) {
		t.Fatalf("start: %v, want Glance's refusal", startErr)
	}

	for what, text := range map[string]string{"import error": importErr.Error(), "start error": startErr.Error(), "logs": logs.String()} {
		for _, s := range []string{secrets, "X-Amz-Credential", "AKIAEXAMPLE", "pa55word", "?"} {
			if strings.Contains(text, s) {
				t.Errorf("the %s show %q: %s", what, s, text)
			}
		}
	}

	if !strings.Contains(logs.String(), "https://objects.example:8443/bucket/ubuntu.raw") {
		t.Errorf("the logs do not name the source by scheme, host and path: %s", logs.String())
	}
}

func TestSafeURLAndScrub(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]string{
		presigned:                     "https://objects.example:8443/bucket/ubuntu.raw",
		"http://127.0.0.1:8000/a.raw": "http://127.0.0.1:8000/a.raw",
		"http://h/p#frag":             "http://h/p",
		"not a url":                   redacted,
	} {
		if got := SafeURL(in); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", in, got, want)
		}
	}

	got := Scrub("fetching "+presigned+" (signature 5ec2e7, escaped "+strings.ReplaceAll(secrets, "=", "%3D")+")", presigned)
	if slices.ContainsFunc([]string{"5ec2e7", "pa55word", "AKIAEXAMPLE"}, func(s string) bool { return strings.Contains(got, s) }) {
		t.Errorf("Scrub left a secret: %s", got)
	}
}
