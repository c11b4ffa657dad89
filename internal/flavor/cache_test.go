package flavor

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// slowNova is a Nova that answers the flavor list after a delay (so that concurrent
// callers really overlap), failing the first failFirst requests with HTTP 500.
func slowNova(t *testing.T, failFirst int64) (*cloudtest.API, *gophercloud.ServiceClient) {
	t.Helper()

	api := cloudtest.New(t)
	api.On(http.MethodGet, "/flavors/detail", cloudtest.Slow(50*time.Millisecond, failFirst, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, novaFlavors)
	}))

	return api, novaClient(api)
}

func TestCacheListsOncePerRegion(t *testing.T) {
	t.Parallel()

	novaOne, regionOne := slowNova(t, 0)
	novaTwo, regionTwo := slowNova(t, 0)
	requests := func() [2]int { return [2]int{len(novaOne.Calls()), len(novaTwo.Calls())} }

	cache := NewCache([]string{"f-gpu", "f-small"}, Overrides{"f-gpu": {CPU: CPU{Architecture: ArchitectureAarch64}}})

	var wg sync.WaitGroup

	for i := range 20 {
		wg.Add(1)

		go func() {
			defer wg.Done()

			region, compute := "RegionOne", regionOne
			if i%2 == 1 {
				region, compute = "RegionTwo", regionTwo
			}

			got, err := cache.Flavors(t.Context(), region, compute)
			if err != nil {
				t.Errorf("Flavors(%s): %v", region, err)
				return
			}

			if len(got) != 2 || got[0].ID != "f-small" || got[1].ID != "f-gpu" || got[1].Architecture != ArchitectureAarch64 {
				t.Errorf("Flavors(%s) = %+v, want f-small and the aarch64 f-gpu", region, got)
			}
		}()
	}

	wg.Wait()

	if n := requests(); n != [2]int{1, 1} {
		t.Errorf("20 concurrent callers over two regions made %v flavor list requests, want one per region", n)
	}

	// Later callers are served from the cache.
	if _, err := cache.Flavors(t.Context(), "RegionOne", regionOne); err != nil {
		t.Fatal(err)
	}

	if n := requests(); n != [2]int{1, 1} {
		t.Errorf("a later caller listed again: %v requests", n)
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	t.Parallel()

	nova, compute := slowNova(t, 1)
	cache := NewCache(nil, nil)

	if _, err := cache.Flavors(t.Context(), "RegionOne", compute); err == nil {
		t.Fatal("first listing: want the server's error")
	}

	got, err := cache.Flavors(t.Context(), "RegionOne", compute)
	if err != nil || len(got) != 3 {
		t.Fatalf("second listing = %d flavors, %v; want the 3 public flavors", len(got), err)
	}

	if n := len(nova.Calls()); n != 2 {
		t.Errorf("%d requests, want 2 (the failure is retried once, the success kept)", n)
	}
}
