package cloud

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOnceSendsAPUTOnce: a PUT that creates under a chosen ID (Once) is not repeated after a
// lost answer, so that the repeat cannot meet its own object as a 409 (issue 26, item 8).
func TestOnceSendsAPUTOnce(t *testing.T) {
	t.Parallel()

	srv := newScriptedServer(t, []scriptedAnswer{{status: http.StatusBadGateway}, {status: http.StatusConflict}})

	req, err := http.NewRequestWithContext(Once(t.Context()), http.MethodPut, srv.srv.URL+"/v3/OS-FEDERATION/identity_providers/idp",
		strings.NewReader(`{"identity_provider":{}}`))
	if err != nil {
		t.Fatal(err)
	}

	resp, err := (&http.Client{Transport: newRetryingTransport(http.DefaultTransport, fastRetryTuning(3, nil))}).Do(req)
	if err != nil {
		t.Fatal(err)
	}

	_ = resp.Body.Close()

	if resp.StatusCode != http.StatusBadGateway || srv.attempts.Load() != 1 {
		t.Fatalf("status %d after %d attempts; want the 502 of the one attempt", resp.StatusCode, srv.attempts.Load())
	}
}

// TestStalledBodyFailsTheRead: an answer whose body stops arriving fails the read when the idle
// timer runs out (fired by the test, not waited for) instead of hanging (issue 26, item 12).
func TestStalledBodyFailsTheRead(t *testing.T) {
	t.Parallel()

	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"servers":[`))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}

		select { // the rest never comes
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })

	var (
		mu    sync.Mutex
		timer []func()
	)

	tuning := fastRetryTuning(3, nil)
	tuning.afterFunc = func(_ time.Duration, f func()) func() bool {
		mu.Lock()
		defer mu.Unlock()

		timer = append(timer, f)

		return func() bool { return true }
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v2.1/servers", nil)
	if err != nil {
		t.Fatal(err)
	}

	resp, err := (&http.Client{Transport: newRetryingTransport(http.DefaultTransport, tuning)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}

	defer resp.Body.Close()

	mu.Lock()
	timer = nil // the header timer was stopped when the answer began
	mu.Unlock()

	got := make(chan error, 1)

	go func() {
		_, err := io.ReadAll(resp.Body)
		got <- err
	}()

	// Fire every body timer armed so far, until the read gives up.
	for {
		select {
		case err := <-got:
			if !errors.Is(err, errBodyStalled) {
				t.Fatalf("read error %v; want errBodyStalled", err)
			}

			return
		case <-time.After(10 * time.Millisecond):
			mu.Lock()
			fired := timer
			timer = nil
			mu.Unlock()

			for _, f := range fired {
				f()
			}
		}
	}
}

// TestRepeatablePATCHIsRetried: a PATCH that sets absolute values (an ownership mark) is
// retried after a 5xx like a PUT, so that a fault in a create's last step does not fail it.
func TestRepeatablePATCHIsRetried(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		repeatable bool
		attempts   int32
	}{{false, 1}, {true, 2}} {
		srv := newScriptedServer(t, []scriptedAnswer{{status: http.StatusBadGateway}, {status: http.StatusOK}})

		ctx := t.Context()
		if tc.repeatable {
			ctx = Repeatable(ctx)
		}

		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, srv.srv.URL+"/v3/projects/p", strings.NewReader(`{"project":{}}`))
		if err != nil {
			t.Fatal(err)
		}

		resp, err := (&http.Client{Transport: newRetryingTransport(http.DefaultTransport, fastRetryTuning(3, nil))}).Do(req)
		if err != nil {
			t.Fatal(err)
		}

		_ = resp.Body.Close()

		if srv.attempts.Load() != tc.attempts {
			t.Errorf("repeatable %v: %d attempts, want %d", tc.repeatable, srv.attempts.Load(), tc.attempts)
		}
	}
}
