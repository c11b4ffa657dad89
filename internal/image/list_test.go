package image

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// glanceImage renders one image as Glance does: properties are top-level fields.
func glanceImage(id, visibility, status string, extra string) string {
	return fmt.Sprintf(`{
	  "id": %q, "name": "img-%s", "status": %q, "visibility": %q,
	  "created_at": "2025-03-01T12:00:00Z", "updated_at": "2025-03-01T12:00:00Z",
	  "min_disk": 0, "virtual_size": 3221225472, "size": 1024, "os_hidden": false,
	  "self": "/v2/images/%s", "file": "/v2/images/%s/file", "schema": "/v2/schemas/image",
	  "tags": [], "stores": "file", "os_hash_algo": "sha512",
	  "unikorn:os:kernel": "linux", "unikorn:os:family": "debian", "unikorn:os:distro": "ubuntu",
	  "unikorn:os:version": "24.04", "unikorn:virtualization": "any"%s
	}`, id, id, status, visibility, id, id, extra)
}

func TestList(t *testing.T) {
	t.Parallel()

	page1 := []string{
		glanceImage("public", "public", "active", `, "architecture": "aarch64", "unikorn:package:kubernetes": "v1.31.0"`),
		glanceImage("public-other-org", "public", "active", `, "unikorn:organization:id": "org-2"`),
		glanceImage("private-mine", "private", "active", `, "unikorn:organization:id": "org-1"`),
	}
	page2 := []string{
		glanceImage("shared-mine", "shared", "queued", `, "unikorn:organization:id": "org-1"`),
		glanceImage("community-unowned", "community", "active", ``),
		glanceImage("private-unowned", "private", "active", ``),
	}

	tests := []struct {
		name           string
		organizationID string
		wantVisibility string
		want           []string
	}{
		{name: "public only", wantVisibility: "public", want: []string{"public"}},
		{name: "organization", organizationID: "org-1", wantVisibility: "all", want: []string{"public", "private-mine", "shared-mine"}},
		{name: "organization without images", organizationID: "org-3", wantVisibility: "all", want: []string{"public"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			glance := cloudtest.New(t)

			// A real Glance filters by visibility; this fake returns every
			// image to prove that List filters client-side as well.
			glance.On(http.MethodGet, "/v2/images", func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				if got := q.Get("visibility"); got != tt.wantVisibility {
					t.Errorf("visibility = %q, want %q", got, tt.wantVisibility)
				}

				if got := q.Get("limit"); got != "1000" {
					t.Errorf("limit = %q, want 1000", got)
				}

				w.Header().Set("Content-Type", "application/json")

				if q.Get("marker") == "" {
					_, _ = fmt.Fprintf(w, `{"images": [%s], "next": "/v2/images?marker=private-mine&limit=1000&visibility=%s", "first": "/v2/images", "schema": "/v2/schemas/images"}`,
						strings.Join(page1, ","), tt.wantVisibility)

					return
				}

				_, _ = fmt.Fprintf(w, `{"images": [%s], "first": "/v2/images", "schema": "/v2/schemas/images"}`, strings.Join(page2, ","))
			})

			c := glance.ServiceClient("/v2/", "/v2/")

			got, err := List(t.Context(), c, tt.organizationID)
			if err != nil {
				t.Fatalf("List: %v", err)
			}

			var ids []string
			for _, img := range got {
				ids = append(ids, img.ID)
			}

			if !slices.Equal(ids, tt.want) {
				t.Errorf("List = %v, want %v", ids, tt.want)
			}

			if calls := glance.Calls(); len(calls) != 2 {
				t.Errorf("List made the requests %v, want 2 (two pages)", calls)
			}

			// The listing feeds Classify directly.
			accepted, rejected := Classify(got, nil)
			if len(rejected) != 0 || len(accepted) != len(tt.want) {
				t.Fatalf("Classify: accepted %d, rejected %v", len(accepted), rejected)
			}

			if a := accepted[slices.IndexFunc(accepted, func(i Image) bool { return i.ID == "public" })]; a.Architecture != "aarch64" ||
				a.SizeGiB != 3 || a.Packages["kubernetes"] != "v1.31.0" || a.Status != StatusReady || a.CreatedAt.IsZero() {
				t.Errorf("translated public image = %+v", a)
			}
		})
	}
}

func TestListError(t *testing.T) {
	t.Parallel()

	glance := cloudtest.New(t)
	glance.Reply(http.MethodGet, "/v2/images", http.StatusServiceUnavailable, nil)

	_, err := List(t.Context(), glance.ServiceClient("/v2/", "/v2/"), "")
	if err == nil || !strings.Contains(err.Error(), "listing Glance images") {
		t.Fatalf("List error = %v", err)
	}
}

func TestInScope(t *testing.T) {
	t.Parallel()

	img := func(visibility images.ImageVisibility, org any) images.Image {
		props := map[string]any{}
		if org != nil {
			props[PropertyOrganizationID] = org
		}

		return images.Image{Visibility: visibility, Properties: props}
	}

	tests := []struct {
		name string
		img  images.Image
		org  string
		want bool
	}{
		{name: "public unowned, no org", img: img("public", nil), want: true},
		{name: "public unowned, org", img: img("public", nil), org: "o", want: true},
		{name: "private unowned", img: img("private", nil), org: "o", want: false},
		{name: "community unowned", img: img("community", nil), want: false},
		{name: "owned, no org asked", img: img("public", "o"), want: false},
		{name: "owned by asked org, private", img: img("private", "o"), org: "o", want: true},
		{name: "owned by asked org, shared", img: img("shared", "o"), org: "o", want: true},
		{name: "owned by another org, public", img: img("public", "p"), org: "o", want: false},
		{name: "org id is a prefix", img: img("private", "o-1"), org: "o", want: false},
		{name: "non-string org id is unowned", img: img("public", 3.0), want: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := InScope(tt.img, tt.org); got != tt.want {
				t.Errorf("InScope = %v, want %v", got, tt.want)
			}
		})
	}
}
