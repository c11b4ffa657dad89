package cloud

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
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

	httpDate := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)

	tests := []struct {
		name         string
		method       string
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
			answers:      []scriptedAnswer{{status: 429, retryAfter: "1"}, {status: 200}},
			wantAttempts: 1, wantStatus: 429,
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
				if len(sleeps) != 1 || sleeps[0] < time.Second || sleeps[0] > 3*time.Second {
					t.Errorf("sleeps %v, want one of about 2-3s", sleeps)
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

			tr := newRetryingTransport(http.DefaultTransport, fastRetryTuning(tt.maxRetries, func(d time.Duration) {
				mu.Lock()
				defer mu.Unlock()

				sleeps = append(sleeps, d)
			}))

			var body io.Reader
			if tt.body != "" {
				body = bytes.NewReader([]byte(tt.body))
			}

			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.srv.URL+"/v2.1/servers?name=x", body)
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

func TestRetryStopsWhenContextEnds(t *testing.T) {
	t.Parallel()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var attempts atomic.Int32

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		attempts.Add(1)
		cancel() // the caller gives up while the server is busy
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)

	tuning := defaultRetryTuning(5) // real sleeps of 0.25-0.5 s: the cancellation must cut them
	tr := newRetryingTransport(http.DefaultTransport, tuning)

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)

	start := time.Now()
	_, err := (&http.Client{Transport: tr}).Do(req)

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}

	if attempts.Load() != 1 || time.Since(start) > 200*time.Millisecond {
		t.Errorf("%d attempts in %s, want 1 and no backoff sleep", attempts.Load(), time.Since(start))
	}
}

func TestRetryOnConnectionError(t *testing.T) {
	t.Parallel()

	tests := []struct {
		method       string
		wantAttempts int32
		wantErr      bool
	}{
		{http.MethodGet, 2, false},
		{http.MethodPost, 1, true},
	}

	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
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

			req, _ := http.NewRequestWithContext(t.Context(), tt.method, srv.URL, strings.NewReader("{}"))

			resp, err := (&http.Client{Transport: tr}).Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}

			if (err != nil) != tt.wantErr || attempts.Load() != tt.wantAttempts {
				t.Errorf("err %v after %d attempts; want error %v after %d", err, attempts.Load(), tt.wantErr, tt.wantAttempts)
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
