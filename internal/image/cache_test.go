package image

import (
	"crypto/elliptic"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// fakeGlance answers image lists after a delay (so that concurrent callers really
// overlap). Like a real Glance it returns only public images for visibility=public; it fails
// the first failFirst requests with HTTP 500.
func fakeGlance(t *testing.T, body map[string][]string, failFirst int64) (*gophercloud.ServiceClient, *cloudtest.API) {
	t.Helper()

	api := cloudtest.New(t)
	api.On(http.MethodGet, "/v2/images", cloudtest.Slow(50*time.Millisecond, failFirst, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"images": [%s], "first": "/v2/images", "schema": "/v2/schemas/images"}`,
			strings.Join(body[r.URL.Query().Get("visibility")], ","))
	}))

	return api.ServiceClient("/v2/", "/v2/"), api
}

// count is how many image lists api answered with visibility.
func count(api *cloudtest.API, visibility string) int {
	n := 0

	for _, c := range api.Requests() {
		if c.Path == "/v2/images" && c.Query.Get("visibility") == visibility {
			n++
		}
	}

	return n
}

func TestCacheSharesOneListingPerScope(t *testing.T) {
	t.Parallel()

	key, keyPEM := newKey(t, elliptic.P256())

	pub, err := ParseSigningKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}

	digest := func(id string) string { return fmt.Sprintf(`, "unikorn:digest": %q`, sign(t, key, id)) }

	signed := glanceImage("signed", "public", "active", digest("signed"))
	unsigned := glanceImage("unsigned", "public", "active", ``)
	org1 := glanceImage("org-1-image", "private", "active", `, "unikorn:organization:id": "org-1", "owner": "svc"`)
	org2 := glanceImage("org-2-image", "shared", "active", `, "unikorn:organization:id": "org-2", "owner": "svc"`)

	imageClient, counts := fakeGlance(t, map[string][]string{
		"public": {signed, unsigned},
		"all":    {signed, unsigned, org1, org2},
	}, 0)

	cache := NewCache(pub)

	want := map[string][]string{
		"":      {"signed"},
		"org-1": {"signed", "org-1-image"},
		"org-2": {"signed", "org-2-image"},
	}

	var wg sync.WaitGroup

	for i := range 20 {
		wg.Add(1)

		go func() {
			defer wg.Done()

			org := []string{"", "", "org-1", "org-2"}[i%4]

			listing, err := cache.Images(t.Context(), "RegionOne", Organization{ID: org, ServiceProjectID: "svc"}, imageClient)
			if err != nil {
				t.Errorf("Images(%q): %v", org, err)
				return
			}

			ids := idsOf(listing.Images)
			slices.Sort(ids)

			wantIDs := slices.Sorted(slices.Values(want[org]))
			if !slices.Equal(ids, wantIDs) {
				t.Errorf("Images(%q) = %v, want %v", org, ids, wantIDs)
			}

			if len(listing.Rejected) != 1 || listing.Rejected[0].ID != "unsigned" ||
				!strings.HasPrefix(listing.Rejected[0].Reason, "signature: image is not signed") {
				t.Errorf("Images(%q) rejected %+v, want the unsigned image", org, listing.Rejected)
			}
		}()
	}

	wg.Wait()

	if pub, all := count(counts, "public"), count(counts, "all"); pub != 1 || all != 1 {
		t.Errorf("20 concurrent callers made %d public and %d visibility=all listings, want 1 and 1", pub, all)
	}

	if _, err := cache.Images(t.Context(), "RegionOne", Organization{ID: "org-3"}, imageClient); err != nil {
		t.Fatal(err)
	}

	if all := count(counts, "all"); all != 1 {
		t.Errorf("a new organization listed again: %d visibility=all listings", all)
	}
}

func TestCacheSeparatesRegions(t *testing.T) {
	t.Parallel()

	one, countsOne := fakeGlance(t, map[string][]string{"public": {glanceImage("one", "public", "active", "")}}, 0)
	two, countsTwo := fakeGlance(t, map[string][]string{"public": {glanceImage("two", "public", "active", "")}}, 0)

	cache := NewCache(nil)

	for range 3 {
		for region, c := range map[string]*gophercloud.ServiceClient{"RegionOne": one, "RegionTwo": two} {
			listing, err := cache.Images(t.Context(), region, Organization{}, c)
			if err != nil {
				t.Fatal(err)
			}

			if want := strings.ToLower(strings.TrimPrefix(region, "Region")); len(listing.Images) != 1 || listing.Images[0].ID != want {
				t.Errorf("Images(%s) = %+v, want image %q", region, listing.Images, want)
			}
		}
	}

	if a, b := count(countsOne, "public"), count(countsTwo, "public"); a != 1 || b != 1 {
		t.Errorf("listings per region = %d, %d; want 1, 1", a, b)
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	t.Parallel()

	imageClient, counts := fakeGlance(t, map[string][]string{"public": {glanceImage("one", "public", "active", "")}}, 1)
	cache := NewCache(nil)

	if _, err := cache.Images(t.Context(), "RegionOne", Organization{}, imageClient); err == nil || !strings.Contains(err.Error(), "listing Glance images") {
		t.Fatalf("first listing: err = %v, want the server's error", err)
	}

	listing, err := cache.Images(t.Context(), "RegionOne", Organization{}, imageClient)
	if err != nil || len(listing.Images) != 1 {
		t.Fatalf("second listing = %+v, %v", listing, err)
	}

	if n := count(counts, "public"); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
