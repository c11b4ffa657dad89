package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// upstream is a fake service on loopback that counts what reached it.
type upstream struct {
	srv  *httptest.Server
	hits atomic.Int64
	last atomic.Value // the last request's path?query
}

func newUpstream(t *testing.T, h http.HandlerFunc) *upstream {
	t.Helper()

	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		u.last.Store(r.URL.RequestURI())
		h(w, r)
	}))
	t.Cleanup(u.srv.Close)

	return u
}

func (u *upstream) hostport() string { return strings.TrimPrefix(u.srv.URL, "http://") }

// startProxy serves a proxy for cfg (Upstream defaults to up) on loopback.
func startProxy(t *testing.T, cfg Config) (*Proxy, string) {
	t.Helper()

	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}

	srv := httptest.NewUnstartedServer(p)
	srv.Start()
	t.Cleanup(srv.Close)
	p.SetSelf(strings.TrimPrefix(srv.URL, "http://"))

	return p, srv.URL
}

// client never reuses a connection, so that Go's transparent retry of idempotent requests on
// a reused connection never hides a fault from the test.
func client() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
}

func do(t *testing.T, method, url, body string) (*http.Response, string, error) {
	t.Helper()

	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}

	if body == "" {
		req.Body = nil
	}

	resp, err := client().Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()

	b, err := io.ReadAll(resp.Body)

	return resp, string(b), err
}

// TestCatalogRewritten: the token answer's catalog points at the proxy, and a request to a
// rewritten endpoint reaches that service with the right path and query.
func TestCatalogRewritten(t *testing.T) {
	neutron := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"networks": []}`)
	})

	var keystone *upstream

	keystone = newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Subject-Token", "tok")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"token": {"catalog": [{"type": "network", "endpoints": [{"url": "`+
			neutron.srv.URL+`"}]}, {"type": "identity", "endpoints": [{"url": "`+keystone.srv.URL+`/v3"}]}]}}`)
	})

	p, proxyURL := startProxy(t, Config{Upstream: keystone.hostport()})

	resp, body, err := do(t, http.MethodPost, proxyURL+"/v3/auth/tokens", `{"auth": {}}`)
	if err != nil {
		t.Fatalf("token POST: %v", err)
	}

	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Subject-Token") != "tok" {
		t.Fatalf("token POST answered %d %v", resp.StatusCode, resp.Header)
	}

	var tok struct {
		Token struct {
			Catalog []struct {
				Endpoints []struct{ URL string } `json:"endpoints"`
			} `json:"catalog"`
		} `json:"token"`
	}

	if err := json.Unmarshal([]byte(body), &tok); err != nil {
		t.Fatalf("token body %q: %v", body, err)
	}

	wantNet := proxyURL + "/_/" + neutron.hostport()
	wantID := proxyURL + "/_/" + keystone.hostport() + "/v3"

	if got := tok.Token.Catalog[0].Endpoints[0].URL; got != wantNet {
		t.Errorf("network endpoint = %q, want %q", got, wantNet)
	}

	if got := tok.Token.Catalog[1].Endpoints[0].URL; got != wantID {
		t.Errorf("identity endpoint = %q, want %q", got, wantID)
	}

	resp, body, err = do(t, http.MethodGet, wantNet+"/v2.0/networks?name=a", "")
	if err != nil || resp.StatusCode != http.StatusOK || body != `{"networks": []}` {
		t.Fatalf("GET through the rewritten endpoint: %v %v %q", err, resp, body)
	}

	if got := neutron.last.Load(); got != "/v2.0/networks?name=a" {
		t.Errorf("neutron was asked %v, want /v2.0/networks?name=a", got)
	}

	if s := p.Stats(); s.RequestsByService[neutron.hostport()] != 1 || s.RequestsByService[keystone.hostport()] != 1 {
		t.Errorf("requests by service = %v, want one each for Keystone and Neutron", s.RequestsByService)
	}
}

// TestLinksAndLocationRewritten: pagination links in bodies and Location headers go through
// the proxy; the proxy's own URLs are left alone.
func TestLinksAndLocationRewritten(t *testing.T) {
	var up *upstream

	up = newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Location", up.srv.URL+"/v2/lbs/1")
		_, _ = io.WriteString(w, `{"links": [{"rel": "next", "href": "`+up.srv.URL+`/v2/lbs?marker=1"}]}`)
	})

	p, proxyURL := startProxy(t, Config{Upstream: up.hostport()})

	resp, body, err := do(t, http.MethodGet, proxyURL+"/v2/lbs", "")
	if err != nil {
		t.Fatal(err)
	}

	base := proxyURL + "/_/" + up.hostport()
	if want := `{"links": [{"rel": "next", "href": "` + base + `/v2/lbs?marker=1"}]}`; body != want {
		t.Errorf("body = %s, want %s", body, want)
	}

	if got := resp.Header.Get("Location"); got != base+"/v2/lbs/1" {
		t.Errorf("Location = %q, want %q", got, base+"/v2/lbs/1")
	}

	if got := string(p.rewrite([]byte(proxyURL + "/x"))); got != proxyURL+"/x" {
		t.Errorf("the proxy's own URL was rewritten to %q", got)
	}
}

// TestFailNeverForwards: -fail answers 502/503 and the service never sees the request.
func TestFailNeverForwards(t *testing.T) {
	up := newUpstream(t, func(http.ResponseWriter, *http.Request) {})
	p, proxyURL := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindFail: {Rate: 1}}})

	for range 4 {
		resp, _, err := do(t, http.MethodGet, proxyURL+"/v2.0/ports", "")
		if err != nil {
			t.Fatal(err)
		}

		if resp.StatusCode != http.StatusBadGateway && resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("status %d, want 502 or 503", resp.StatusCode)
		}
	}

	if up.hits.Load() != 0 {
		t.Errorf("the service saw %d requests, want 0", up.hits.Load())
	}

	if s := p.Stats(); s.Faulted[KindFail]["GET"] != 4 || s.Total() != 4 || s.Requests["GET"] != 4 {
		t.Errorf("stats = %+v, want 4 GETs failed", s)
	}
}

// TestResetBeforeForwarding: -reset breaks the connection and the service never sees it.
func TestResetBeforeForwarding(t *testing.T) {
	up := newUpstream(t, func(http.ResponseWriter, *http.Request) {})
	p, proxyURL := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindReset: {Rate: 1}}})

	if _, _, err := do(t, http.MethodPost, proxyURL+"/v2.0/ports", `{}`); err == nil {
		t.Fatal("POST through a reset answered, want a connection error")
	}

	if up.hits.Load() != 0 {
		t.Errorf("the service saw %d requests, want 0", up.hits.Load())
	}

	if s := p.Stats(); s.Faulted[KindReset]["POST"] != 1 {
		t.Errorf("stats = %+v, want 1 POST reset", s)
	}
}

// TestDropAfterServiceActed: -drop-after limited to POST lets the service act on the POST,
// then breaks the client's connection; a GET passes.
func TestDropAfterServiceActed(t *testing.T) {
	var created atomic.Int64

	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			created.Add(1)
		}

		_, _ = io.WriteString(w, `{}`)
	})
	p, proxyURL := startProxy(t, Config{
		Upstream: up.hostport(),
		Rules:    map[Kind]Rule{KindDrop: {Rate: 1, Methods: []string{"POST"}}},
	})

	if _, _, err := do(t, http.MethodPost, proxyURL+"/v2.0/networks", `{"network": {}}`); err == nil {
		t.Fatal("POST answered, want its answer dropped")
	}

	if created.Load() != 1 {
		t.Errorf("the service made %d objects, want 1 (it must act before the answer is dropped)", created.Load())
	}

	resp, _, err := do(t, http.MethodGet, proxyURL+"/v2.0/networks", "")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET with drops on POST only: %v %v", err, resp)
	}

	s := p.Stats()
	if s.Faulted[KindDrop]["POST"] != 1 || s.Faulted[KindDrop]["GET"] != 0 || s.Total() != 1 {
		t.Errorf("stats = %+v, want exactly 1 POST dropped", s)
	}

	if s.FaultedByService[KindDrop]["POST "+up.hostport()] != 1 {
		t.Errorf("by service = %v, want POST %s", s.FaultedByService, up.hostport())
	}
}

// TestTokensNotFaultedByDefault: the token requests pass unless -fault-tokens.
func TestTokensNotFaultedByDefault(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })

	_, proxyURL := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindFail: {Rate: 1}}})

	resp, _, err := do(t, http.MethodPost, proxyURL+"/v3/auth/tokens", `{}`)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("token POST with faults on everything else: %v %v", err, resp)
	}

	_, faulty := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindFail: {Rate: 1}}, FaultTokens: true})

	resp, _, err = do(t, http.MethodPost, faulty+"/_/"+up.hostport()+"/v3/auth/tokens", `{}`)
	if err != nil || resp.StatusCode < 500 {
		t.Fatalf("token POST with -fault-tokens: %v %v, want 502/503", err, resp)
	}
}

// TestLoopbackOnly: an upstream other than 127.0.0.1 is refused, never dialled, and a
// configuration naming one is rejected.
func TestLoopbackOnly(t *testing.T) {
	up := newUpstream(t, func(http.ResponseWriter, *http.Request) {})
	p, proxyURL := startProxy(t, Config{Upstream: up.hostport()})

	for _, target := range []string{"10.0.0.1:80", "localhost:80", "[::1]:80", "127.0.0.2:80", "127.0.0.1:0"} {
		resp, _, err := do(t, http.MethodGet, proxyURL+"/_/"+target+"/x", "")
		if err != nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("upstream %s: %v %v, want 403", target, err, resp)
		}
	}

	if s := p.Stats(); s.Refused != 5 || up.hits.Load() != 0 {
		t.Errorf("refused = %d, hits = %d, want 5 and 0", s.Refused, up.hits.Load())
	}

	if _, err := New(Config{Upstream: "192.168.1.1:5000"}); err == nil {
		t.Error("New accepted a non-loopback upstream")
	}
}

// TestRatesValidated: rates out of range or summing over 1 are rejected.
func TestRatesValidated(t *testing.T) {
	for _, rules := range []map[Kind]Rule{
		{KindFail: {Rate: -0.1}},
		{KindDrop: {Rate: 1.5}},
		{KindFail: {Rate: 0.6}, KindReset: {Rate: 0.6}},
	} {
		if _, err := New(Config{Upstream: "127.0.0.1:5000", Rules: rules}); err == nil {
			t.Errorf("rules %v accepted", rules)
		}
	}
}

// TestSeeded: two proxies with one seed draw the same faults for the same requests; the rate
// is respected roughly; methods not named are never faulted.
func TestSeeded(t *testing.T) {
	cfg := Config{Upstream: "127.0.0.1:5000", Seed: 42, Rules: map[Kind]Rule{
		KindFail:  {Rate: 0.1},
		KindReset: {Rate: 0.1},
		KindDrop:  {Rate: 0.3, Methods: []string{"POST"}},
	}}

	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}

	b, _ := New(cfg)
	counts := map[Kind]int{}

	for i := range 2000 {
		method := http.MethodGet
		if i%2 == 0 {
			method = http.MethodPost
		}

		ka, kb := a.decide(method, "/v2.0/ports"), b.decide(method, "/v2.0/ports")
		if ka != kb {
			t.Fatalf("request %d: seed 42 drew %q and %q", i, ka, kb)
		}

		if ka == KindDrop && method != http.MethodPost {
			t.Fatalf("request %d: %s dropped, drops are for POST only", i, method)
		}

		counts[ka]++
	}

	// 1000 GETs at 20 %, 1000 POSTs at 50 %: about 700 faults, 300 of them drops.
	if n := counts[KindDrop]; n < 220 || n > 380 {
		t.Errorf("%d drops of 1000 POSTs at 30 %%", n)
	}

	if n := 2000 - counts[""]; n < 600 || n > 800 {
		t.Errorf("%d faults, want about 700", n)
	}

	c, _ := New(Config{Upstream: "127.0.0.1:5000", Seed: 43, Rules: cfg.Rules})
	same := 0

	for range 200 {
		if a.decide(http.MethodPost, "/x") == c.decide(http.MethodPost, "/x") {
			same++
		}
	}

	if same == 200 {
		t.Error("seeds 42 and 43 drew the same 200 faults")
	}
}

// TestStatsEndpoint: the stats endpoint answers the counts and is neither counted nor faulted.
func TestStatsEndpoint(t *testing.T) {
	up := newUpstream(t, func(http.ResponseWriter, *http.Request) {})
	_, proxyURL := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindReset: {Rate: 1}}})

	_, _, _ = do(t, http.MethodDelete, proxyURL+"/v2.0/ports/1", "")

	resp, body, err := do(t, http.MethodGet, proxyURL+StatsPath, "")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stats: %v %v", err, resp)
	}

	var s Stats
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("stats %q: %v", body, err)
	}

	if s.Faulted[KindReset]["DELETE"] != 1 || s.Requests["GET"] != 0 || s.Requests["DELETE"] != 1 {
		t.Errorf("stats = %+v, want one DELETE reset and no GET counted", s)
	}
}

// TestDropOnUnreachableUpstream: a drop drawn for a request the upstream cannot answer is a
// 502 upstream error, not counted as a drop (the service never acted).
func TestDropOnUnreachableUpstream(t *testing.T) {
	dead := newUpstream(t, func(http.ResponseWriter, *http.Request) {})
	hostport := dead.hostport()
	dead.srv.Close()

	p, proxyURL := startProxy(t, Config{Upstream: hostport, Rules: map[Kind]Rule{KindDrop: {Rate: 1}}})

	resp, _, err := do(t, http.MethodPost, proxyURL+"/v2.0/ports", `{}`)
	if err != nil || resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("POST to a dead upstream: %v %v, want 502", err, resp)
	}

	if s := p.Stats(); s.Total() != 0 || s.UpstreamErrors != 1 || s.Requests["POST"] != 1 {
		t.Errorf("stats = %+v, want no fault and one upstream error", s)
	}
}

// TestHeadKeepsLength: a HEAD answer keeps the upstream's Content-Length.
func TestHeadKeepsLength(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1234")
		w.WriteHeader(http.StatusOK)
	})
	_, proxyURL := startProxy(t, Config{Upstream: up.hostport()})

	resp, _, err := do(t, http.MethodHead, proxyURL+"/v2/images/1/file", "")
	if err != nil || resp.ContentLength != 1234 {
		t.Fatalf("HEAD: %v, length %v, want 1234", err, resp)
	}
}

// TestUserAgentsCounted: every request is counted by its User-Agent, faulted or not; the
// stats endpoint's own requests are not.
func TestUserAgentsCounted(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	_, proxyURL := startProxy(t, Config{Upstream: up.hostport(), Rules: map[Kind]Rule{KindFail: {Rate: 1, Methods: []string{"POST"}}}})

	for _, c := range []struct{ method, ua string }{
		{http.MethodGet, "terraform-provider-unikorn/1.2.3 gophercloud/v2.16.0"},
		{http.MethodPost, "terraform-provider-unikorn/1.2.3 gophercloud/v2.16.0"},
		{http.MethodGet, "curl/8"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), c.method, proxyURL+"/v3/projects", nil)
		if err != nil {
			t.Fatal(err)
		}

		req.Header.Set("User-Agent", c.ua)

		resp, err := client().Do(req)
		if err != nil {
			t.Fatal(err)
		}

		_ = resp.Body.Close()
	}

	_, body, err := do(t, http.MethodGet, proxyURL+StatsPath, "")
	if err != nil {
		t.Fatal(err)
	}

	var s Stats
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("stats %q: %v", body, err)
	}

	want := map[string]int{"terraform-provider-unikorn/1.2.3 gophercloud/v2.16.0": 2, "curl/8": 1}
	if len(s.UserAgents) != len(want) {
		t.Errorf("user_agents %v, want %v", s.UserAgents, want)
	}

	for ua, n := range want {
		if s.UserAgents[ua] != n {
			t.Errorf("user_agents %v, want %v", s.UserAgents, want)
		}
	}
}
