package cloud

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// allServices is a region with every required service.
var allServices = []string{"compute", "network", "image", "load-balancer", "block-storage"}

// newTestClient authenticates against f with fast retries.
func newTestClient(t *testing.T, f *fakeCloud, mutate func(*Config)) (*Client, error) {
	t.Helper()

	cfg := f.config()
	if mutate != nil {
		mutate(&cfg)
	}

	s, err := resolveSettings(cfg)
	if err != nil {
		return nil, err
	}

	return newClient(t.Context(), s, fastRetryTuning(s.maxRetries, nil))
}

// fastRetryTuning retries without sleeping; the delays it would have slept are passed to
// record when given.
func fastRetryTuning(maxRetries int, record func(time.Duration)) retryTuning {
	tuning := defaultRetryTuning(maxRetries)
	tuning.initialBackoff = time.Millisecond
	tuning.maxBackoff = 4 * time.Millisecond
	tuning.sleep = func(ctx context.Context, d time.Duration) error {
		if record != nil {
			record(d)
		}

		return ctx.Err()
	}

	return tuning
}

// mustClient is newTestClient that fails the test on an error.
func mustClient(t *testing.T, f *fakeCloud, mutate func(*Config)) *Client {
	t.Helper()

	c, err := newTestClient(t, f, mutate)
	if err != nil {
		t.Fatal(err)
	}

	return c
}

// mustCompute is the Nova client, default region, of the privileged scope of project in a
// new client of f.
func mustCompute(t *testing.T, f *fakeCloud, project string) *gophercloud.ServiceClient {
	t.Helper()

	s, err := mustClient(t, f, nil).Privileged(t.Context(), project)
	if err != nil {
		t.Fatal(err)
	}

	return mustService(t, s.Compute, "")
}

// mustService is the client get returns for region.
func mustService(t *testing.T, get func(string) (*gophercloud.ServiceClient, error), region string) *gophercloud.ServiceClient {
	t.Helper()

	sc, err := get(region)
	if err != nil {
		t.Fatal(err)
	}

	return sc
}

// wantErrorContaining fails the test unless err holds every one of subs.
func wantErrorContaining(t *testing.T, err error, subs ...string) {
	t.Helper()

	if err == nil {
		t.Fatalf("want an error containing %q", subs)
	}

	for _, sub := range subs {
		if !strings.Contains(err.Error(), sub) {
			t.Errorf("error %q lacks %q", err, sub)
		}
	}
}
