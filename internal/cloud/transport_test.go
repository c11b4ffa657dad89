package cloud

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// scriptedServer answers with the given statuses in turn (the last one repeats) and
// records each request body.
type scriptedServer struct {
	srv      *httptest.Server
	attempts atomic.Int32
	mu       sync.Mutex
	bodies   []string
}

type scriptedAnswer struct {
	status     int
	retryAfter string
}

func newScriptedServer(t *testing.T, answers []scriptedAnswer) *scriptedServer {
	t.Helper()

	s := &scriptedServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.attempts.Add(1))
		body, _ := io.ReadAll(r.Body)

		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()

		a := answers[min(n, len(answers))-1]
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}

		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(`{"error": "body that must be drained"}`))
	}))
	t.Cleanup(s.srv.Close)

	return s
}

func TestRetryRules(t *testing.T) {
	t.Parallel()

	// The transport reads a Retry-After date against this clock.
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	httpDate := now.Add(3 * time.Second).Format(http.TimeFormat)

	tests := []struct {
		name         string
		method       string
		path         string // default /v2.1/servers
		body         string
		maxRetries   int
		answers      []scriptedAnswer
		wantAttempts int
		wantStatus   int
		checkSleeps  func(t *testing.T, sleeps []time.Duration)
	}{
		{
			name: "GET retried on 503 then succeeds", method: http.MethodGet, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503}, {status: 200}},
			wantAttempts: 2, wantStatus: 200,
		},
		{
			name: "POST never retried", method: http.MethodPost, body: `{"server":{}}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503}, {status: 201}},
			wantAttempts: 1, wantStatus: 503,
		},
		{
			name: "PATCH never retried", method: http.MethodPatch, body: `{}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503, retryAfter: "1"}, {status: 200}},
			wantAttempts: 1, wantStatus: 503,
		},
		{
			name: "POST answered 429 retried (it was not processed)", method: http.MethodPost, body: `{"port":{}}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 429, retryAfter: "1"}, {status: 201}},
			wantAttempts: 2, wantStatus: 201,
		},
		{
			name: "PATCH answered 429 retried", method: http.MethodPatch, body: `{}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 429}, {status: 200}},
			wantAttempts: 2, wantStatus: 200,
		},
		{
			name: "POST answered 429 not retried with retries off", method: http.MethodPost, body: `{}`, maxRetries: 0,
			answers:      []scriptedAnswer{{status: 429}, {status: 201}},
			wantAttempts: 1, wantStatus: 429,
		},
		{
			name: "token POST retried on 503", method: http.MethodPost, path: "/v3/auth/tokens", body: `{"auth":{}}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503}, {status: 201}},
			wantAttempts: 2, wantStatus: 201,
		},
		{
			name: "PUT body rewound on retry", method: http.MethodPut, body: `{"members":[1,2,3]}`, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 504}, {status: 502}, {status: 202}},
			wantAttempts: 3, wantStatus: 202,
		},
		{
			name: "DELETE and HEAD and OPTIONS are idempotent", method: http.MethodDelete, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503}, {status: 204}},
			wantAttempts: 2, wantStatus: 204,
		},
		{
			name: "500 is not retried", method: http.MethodGet, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 500}, {status: 200}},
			wantAttempts: 1, wantStatus: 500,
		},
		{
			name: "429 Retry-After in seconds honoured", method: http.MethodGet, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 429, retryAfter: "7"}, {status: 200}},
			wantAttempts: 2, wantStatus: 200,
			checkSleeps: func(t *testing.T, sleeps []time.Duration) {
				if len(sleeps) != 1 || sleeps[0] != 7*time.Second {
					t.Errorf("sleeps %v, want [7s]", sleeps)
				}
			},
		},
		{
			name: "429 Retry-After as HTTP date honoured", method: http.MethodGet, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 429, retryAfter: httpDate}, {status: 200}},
			wantAttempts: 2, wantStatus: 200,
			checkSleeps: func(t *testing.T, sleeps []time.Duration) {
				if len(sleeps) != 1 || sleeps[0] != 3*time.Second {
					t.Errorf("sleeps %v, want [3s]", sleeps)
				}
			},
		},
		{
			name: "absurd Retry-After capped", method: http.MethodGet, maxRetries: 5,
			answers:      []scriptedAnswer{{status: 503, retryAfter: "3600"}, {status: 200}},
			wantAttempts: 2, wantStatus: 200,
			checkSleeps: func(t *testing.T, sleeps []time.Duration) {
				if len(sleeps) != 1 || sleeps[0] != time.Minute {
					t.Errorf("sleeps %v, want [1m0s]", sleeps)
				}
			},
		},
		{
			name: "max retries respected", method: http.MethodGet, maxRetries: 3,
			answers:      []scriptedAnswer{{status: 503}},
			wantAttempts: 4, wantStatus: 503,
			checkSleeps: func(t *testing.T, sleeps []time.Duration) {
				if len(sleeps) != 3 {
					t.Errorf("sleeps %v, want 3", sleeps)
				}
			},
		},
		{
			name: "retries disabled", method: http.MethodGet, maxRetries: 0,
			answers:      []scriptedAnswer{{status: 503}, {status: 200}},
			wantAttempts: 1, wantStatus: 503,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			srv := newScriptedServer(t, tt.answers)

			var (
				mu     sync.Mutex
				sleeps []time.Duration
			)

			tuning := fastRetryTuning(tt.maxRetries, func(d time.Duration) {
				mu.Lock()
				defer mu.Unlock()

				sleeps = append(sleeps, d)
			})
			tuning.now = func() time.Time { return now }

			tr := newRetryingTransport(http.DefaultTransport, tuning)

			var body io.Reader
			if tt.body != "" {
				body = bytes.NewReader([]byte(tt.body))
			}

			path := tt.path
			if path == "" {
				path = "/v2.1/servers?name=x"
			}

			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.srv.URL+path, body)
			if err != nil {
				t.Fatal(err)
			}

			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}

			_ = resp.Body.Close()

			if resp.StatusCode != tt.wantStatus || int(srv.attempts.Load()) != tt.wantAttempts {
				t.Errorf("status %d after %d attempts, want %d after %d", resp.StatusCode, srv.attempts.Load(), tt.wantStatus, tt.wantAttempts)
			}

			if got := tr.counters.total.Load(); got != int64(tt.wantAttempts) {
				t.Errorf("counted %d requests, want %d", got, tt.wantAttempts)
			}

			srv.mu.Lock()
			for i, b := range srv.bodies {
				if b != tt.body {
					t.Errorf("attempt %d sent body %q, want %q", i+1, b, tt.body)
				}
			}
			srv.mu.Unlock()

			if tt.checkSleeps != nil {
				mu.Lock()
				tt.checkSleeps(t, sleeps)
				mu.Unlock()
			}
		})
	}
}

// TestHeaderTimeoutRetriesHungAttempt: an attempt whose answer never begins (a half-open
// connection) is given up when its per-attempt timer fires and retried; the timer is fired by the
// test, not waited for.
func TestHeaderTimeoutRetriesHungAttempt(t *testing.T) {
	t.Parallel()

	var (
		mu    sync.Mutex
		fire  func()
		calls atomic.Int32
	)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			mu.Lock()
			f := fire
			mu.Unlock()
			f() // the per-attempt timer runs out while this answer hangs

			<-r.Context().Done()

			return
		}

		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"servers":[]}`))
	}))
	t.Cleanup(srv.Close)

	tuning := fastRetryTuning(3, nil)
	tuning.afterFunc = func(_ time.Duration, f func()) func() bool {
		mu.Lock()
		defer mu.Unlock()

		fire = f

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

	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()

	if resp.StatusCode != http.StatusOK || calls.Load() != 2 || string(body) != `{"servers":[]}` {
		t.Fatalf("status %d after %d attempts, body %q; want 200 after 2", resp.StatusCode, calls.Load(), body)
	}
}

// TestHeaderTimeoutOnPOSTGivesUpOnce: a create whose answer never begins is given up when its
// own, longer per-attempt timer fires (fired by the test, not waited for), and is not sent again:
// its caller treats it as a lost answer and looks for what it may have made.
func TestHeaderTimeoutOnPOSTGivesUpOnce(t *testing.T) {
	t.Parallel()

	var (
		mu     sync.Mutex
		fire   func()
		bounds []time.Duration
		calls  atomic.Int32
	)

	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.ReadAll(r.Body) // read: the server then sees the client go away

		mu.Lock()
		f := fire
		mu.Unlock()
		f() // the per-attempt timer runs out while this answer hangs

		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)

	tuning := fastRetryTuning(3, nil)
	tuning.afterFunc = func(d time.Duration, f func()) func() bool {
		mu.Lock()
		defer mu.Unlock()

		fire, bounds = f, append(bounds, d)

		return func() bool { return true }
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v2.0/ports", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}

	resp, err := (&http.Client{Transport: newRetryingTransport(http.DefaultTransport, tuning)}).Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("a POST without an answer returned %d, want the per-attempt timeout", resp.StatusCode)
	}

	if !errors.Is(err, errHeaderTimeout) || !strings.Contains(err.Error(), "may still have been carried out") {
		t.Errorf("error %q, want the per-attempt timeout saying the POST may have been carried out", err)
	}

	mu.Lock()
	defer mu.Unlock()

	if calls.Load() != 1 || !slices.Equal(bounds, []time.Duration{defaultOnceHeaderTimeout}) {
		t.Errorf("%d attempts with bounds %v, want one bounded by %s", calls.Load(), bounds, defaultOnceHeaderTimeout)
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		// inHandler: the caller gives up while the server is busy; otherwise during the
		// backoff sleep that follows the 503.
		inHandler bool
		// wantSleeps is how many backoff sleeps may be asked for: after a cancellation in
		// the handler the client sees either the 503 (and one sleep, cut at once) or the
		// cancellation itself.
		wantSleeps []int
	}{
		{name: "cancelled while the server is busy", inHandler: true, wantSleeps: []int{0, 1}},
		{name: "cancelled during the backoff", wantSleeps: []int{1}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()

			var attempts atomic.Int32

			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				attempts.Add(1)

				if tt.inHandler {
					cancel()
				}

				w.WriteHeader(http.StatusServiceUnavailable)
			}))
			t.Cleanup(srv.Close)

			var (
				mu     sync.Mutex
				sleeps []time.Duration
			)

			// The default tuning, whose first backoff is 0.25-0.5 s, with a sleeper that
			// records what is asked and then sleeps for real: the cancellation must cut it.
			tuning := defaultRetryTuning(5)
			tuning.sleep = func(sleepCtx context.Context, d time.Duration) error {
				mu.Lock()
				sleeps = append(sleeps, d)
				mu.Unlock()

				if !tt.inHandler {
					cancel()
				}

				if sleepCtx.Err() == nil {
					t.Errorf("backoff sleep of %s on a live context: the cancellation does not reach it", d)

					return nil
				}

				return sleepContext(sleepCtx, d)
			}

			tr := newRetryingTransport(http.DefaultTransport, tuning)

			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)

			resp, err := (&http.Client{Transport: tr}).Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}

			if !errors.Is(err, context.Canceled) {
				t.Fatalf("want context.Canceled, got %v", err)
			}

			mu.Lock()
			defer mu.Unlock()

			if attempts.Load() != 1 || !slices.Contains(tt.wantSleeps, len(sleeps)) {
				t.Errorf("%d attempts, backoff sleeps %v; want 1 attempt and %v sleeps", attempts.Load(), sleeps, tt.wantSleeps)
			}

			for _, d := range sleeps {
				if d < 250*time.Millisecond || d > 500*time.Millisecond {
					t.Errorf("backoff %s outside the default first delay [250ms, 500ms]", d)
				}
			}
		})
	}
}

func TestRetryOnConnectionError(t *testing.T) {
	t.Parallel()

	// A dropped connection is retried for the idempotent GET, never for a POST.
	for method, want := range map[string]struct {
		attempts int32
		err      bool
	}{
		http.MethodGet:  {attempts: 2},
		http.MethodPost: {attempts: 1, err: true},
	} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()

			var attempts atomic.Int32

			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if attempts.Add(1) == 1 {
					// Drop the connection without an answer.
					hijacker, ok := w.(http.Hijacker)
					if !ok {
						t.Error("no hijacker")

						return
					}

					if conn, _, err := hijacker.Hijack(); err == nil {
						_ = conn.Close()
					}

					return
				}

				w.WriteHeader(http.StatusOK)
			}))
			t.Cleanup(srv.Close)

			base := &http.Transport{DisableKeepAlives: true}
			tr := newRetryingTransport(base, fastRetryTuning(3, nil))

			req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL, strings.NewReader("{}"))

			resp, err := (&http.Client{Transport: tr}).Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}

			if (err != nil) != want.err || attempts.Load() != want.attempts {
				t.Errorf("err %v after %d attempts; want error %v after %d", err, attempts.Load(), want.err, want.attempts)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	t.Parallel()

	tr := newRetryingTransport(http.DefaultTransport, defaultRetryTuning(10))

	tests := []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, 250 * time.Millisecond, 500 * time.Millisecond},
		{2, 500 * time.Millisecond, time.Second},
		{3, time.Second, 2 * time.Second},
		{7, 15 * time.Second, 30 * time.Second},
		{20, 15 * time.Second, 30 * time.Second},
	}

	for _, tt := range tests {
		for range 50 {
			if d := tr.delay(tt.attempt, nil); d < tt.min || d > tt.max {
				t.Fatalf("attempt %d: delay %s outside [%s, %s]", tt.attempt, d, tt.min, tt.max)
			}
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()

	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"12", 12 * time.Second, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}

	for _, tt := range tests {
		if got, ok := parseRetryAfter(tt.in, now); got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRequestLogging(t *testing.T) {
	t.Parallel()

	srv := newScriptedServer(t, []scriptedAnswer{{status: 503}, {status: 200}})

	var out bytes.Buffer

	ctx := tflogtest.RootLogger(t.Context(), &out)

	tr := newRetryingTransport(http.DefaultTransport, fastRetryTuning(2, nil))
	tr.services.Store(newServiceMatcher(srv.srv.URL+"/identity/v3", &tokens.ServiceCatalog{Entries: []tokens.CatalogEntry{
		{Type: "compute", Endpoints: []tokens.Endpoint{{URL: srv.srv.URL + "/compute/v2.1", Region: "R", Interface: "public"}}},
	}}))

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.srv.URL+"/compute/v2.1/servers?name=query-secret", nil)
	req.Header.Set("X-Auth-Token", "header-token-secret")

	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}

	_ = resp.Body.Close()

	if strings.Contains(out.String(), "query-secret") || strings.Contains(out.String(), "header-token-secret") ||
		strings.Contains(out.String(), "must be drained") {
		t.Fatalf("log shows the query, a header or a body:\n%s", out.String())
	}

	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}

	if len(entries) != 2 {
		t.Fatalf("want one entry per attempt, got %d: %v", len(entries), entries)
	}

	for i, e := range entries {
		want := map[string]any{
			"@level": "debug", "@module": "provider.openstack", "method": "GET", "service": "compute", "region": "R",
			"path": "/compute/v2.1/servers", "attempt": float64(i + 1), "status": float64([]int{503, 200}[i]),
		}

		for k, v := range want {
			if e[k] != v {
				t.Errorf("entry %d: %s = %v, want %v", i, k, e[k], v)
			}
		}

		if _, ok := e["duration_ms"].(float64); !ok {
			t.Errorf("entry %d: no duration_ms: %v", i, e)
		}
	}

	// Without any logger in the context, logging is a no-op.
	req2, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.srv.URL+"/x", nil)

	resp2, err := (&http.Client{Transport: tr}).Do(req2)
	if err != nil {
		t.Fatal(err)
	}

	_ = resp2.Body.Close()
}

func TestServiceMatcher(t *testing.T) {
	t.Parallel()

	cat := &tokens.ServiceCatalog{Entries: []tokens.CatalogEntry{
		{Type: "compute", Endpoints: []tokens.Endpoint{{URL: "https://cloud.example.com/compute/v2.1/"}}},
		{Type: "image", Endpoints: []tokens.Endpoint{{URL: "https://cloud.example.com:9292"}}},
		{Type: "volumev3", Endpoints: []tokens.Endpoint{{URL: "https://cloud.example.com/volume/v3/abc123"}}},
	}}
	m := newServiceMatcher("https://cloud.example.com/identity/v3", cat)

	tests := map[string]string{
		"https://cloud.example.com/compute/v2.1/servers/detail": "compute",
		"https://cloud.example.com/compute/":                    "compute", // version discovery
		"https://CLOUD.example.com:9292/v2/images":              "image",
		"https://cloud.example.com/volume/v3/abc123/volumes":    "volumev3",
		"https://cloud.example.com/identity/v3/auth/tokens":     "identity",
		"https://cloud.example.com/computer/x":                  "unknown",
		"https://elsewhere.example.com/compute/v2.1":            "unknown",
	}

	for raw, want := range tests {
		u, _ := url.Parse(raw)
		if got := m.match(u); got != want {
			t.Errorf("match(%s) = %q, want %q", raw, got, want)
		}
	}

	var nilMatcher *serviceMatcher
	if got := nilMatcher.match(&url.URL{}); got != "unknown" {
		t.Errorf("nil matcher: %q", got)
	}
}

func TestRetriesThroughGophercloud(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	var (
		mu    sync.Mutex
		calls = map[string]int{}
	)

	f.setService(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.Method]++
		first := calls[r.Method] == 1
		mu.Unlock()

		if first {
			cloudtest.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{})

			return
		}

		cloudtest.WriteJSON(w, http.StatusAccepted, map[string]any{"server": map[string]any{"id": "s1"}})
	})

	compute := mustCompute(t, f, "p1")

	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers", "s1"), nil, &gophercloud.RequestOpts{OkCodes: []int{202}}); err != nil {
		t.Errorf("GET after one 503: %v", err)
	}

	_, err := compute.Post(t.Context(), compute.ServiceURL("servers"), map[string]any{"server": map[string]any{}}, nil, nil)
	if !gophercloud.ResponseCodeIs(err, http.StatusServiceUnavailable) {
		t.Errorf("POST: want the 503 unretried, got %v", err)
	}

	mu.Lock()
	defer mu.Unlock()

	for method, want := range map[string]int{"GET": 2, "POST": 1} {
		if got := calls[method]; got != want {
			t.Errorf("%s reached the service %d times, want %d", method, got, want)
		}
	}
}

func TestSleepContext(t *testing.T) {
	t.Parallel()

	if err := sleepContext(t.Context(), time.Millisecond); err != nil {
		t.Errorf("sleep: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	if err := sleepContext(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sleep: %v", err)
	}

	if err := sleepContext(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("zero sleep on a cancelled context: %v", err)
	}

	// A cancellation during the sleep ends it (were it not to, the sleep would outlast the test).
	during, cancelDuring := context.WithCancel(t.Context())
	go cancelDuring()

	if err := sleepContext(during, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep cancelled midway: %v", err)
	}
}
