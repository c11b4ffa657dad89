package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is a kind of fault.
type Kind string

// The kinds of fault, in the order a request's draw is matched against them.
const (
	// KindFail answers 502 or 503 without forwarding: the service never sees the request.
	KindFail Kind = "fail"
	// KindReset resets the client's connection before forwarding: the service never sees it.
	KindReset Kind = "reset"
	// KindDrop forwards, reads the service's whole answer, then resets the client's
	// connection: the service acted, the client never hears of it.
	KindDrop Kind = "drop"
)

var kinds = []Kind{KindFail, KindReset, KindDrop}

// Rule is the rate of one kind of fault and the methods it applies to (none: all).
type Rule struct {
	Rate    float64
	Methods []string
}

func (r Rule) applies(method string) bool {
	if len(r.Methods) == 0 {
		return true
	}

	for _, m := range r.Methods {
		if strings.EqualFold(m, method) {
			return true
		}
	}

	return false
}

// Config is what a Proxy injects and where it forwards.
type Config struct {
	// Upstream (127.0.0.1:PORT) receives the requests whose path has no /_/HOST:PORT prefix:
	// Keystone, whose URL the client is given as auth_url.
	Upstream string
	Rules    map[Kind]Rule
	// FaultTokens lets faults hit /v3/auth/tokens too (by default the token requests always
	// pass, so that a run fails on the services, not on authentication).
	FaultTokens bool
	Seed        uint64
	// MaxBody bounds the answer bodies read from upstream (bytes).
	MaxBody int64
	// UpstreamTimeout bounds one forwarded request, connection to last byte of the answer.
	UpstreamTimeout time.Duration
}

// Validate checks the rates (each in [0, 1], summing to at most 1) and the upstream.
func (c Config) Validate() error {
	sum := 0.0

	for kind, r := range c.Rules {
		if r.Rate < 0 || r.Rate > 1 {
			return fmt.Errorf("rate of %s is %v: want 0..1", kind, r.Rate)
		}

		sum += r.Rate
	}

	if sum > 1+1e-9 {
		return fmt.Errorf("fault rates sum to %v: at most 1", sum)
	}

	if _, err := loopbackHostPort(c.Upstream); err != nil {
		return fmt.Errorf("upstream: %w", err)
	}

	return nil
}

// loopbackHostPort checks that hostport is 127.0.0.1:PORT and returns it normalized.
func loopbackHostPort(hostport string) (string, error) {
	ap, err := netip.ParseAddrPort(hostport)
	if err != nil {
		return "", fmt.Errorf("%q is not IP:PORT: %w", hostport, err)
	}

	if ap.Addr() != netip.MustParseAddr("127.0.0.1") || ap.Port() == 0 {
		return "", fmt.Errorf("%q is not 127.0.0.1 with a port: the proxy only talks to loopback", hostport)
	}

	return ap.String(), nil
}

// Stats counts the requests a Proxy saw and the ones it faulted.
type Stats struct {
	Seed uint64 `json:"seed"`
	// Rates is the configured rate of each kind, with its methods ("" = all).
	Rates map[Kind]string `json:"rates"`
	// Requests counts every request by method (tokens included, the stats endpoint not).
	Requests map[string]int `json:"requests"`
	// RequestsByService counts every request by upstream (127.0.0.1:PORT): that every
	// service of the catalog shows up here proves they all go through the proxy.
	RequestsByService map[string]int `json:"requests_by_service"`
	// Faulted counts faulted requests by kind, then by method.
	Faulted map[Kind]map[string]int `json:"faulted"`
	// FaultedByService counts faulted requests by kind, then by "METHOD upstream-port".
	FaultedByService map[Kind]map[string]int `json:"faulted_by_service"`
	// UpstreamErrors counts requests the upstream could not answer (answered 502, not a fault).
	UpstreamErrors int `json:"upstream_errors"`
	// Refused counts requests for a non-loopback upstream (answered 403).
	Refused int `json:"refused"`
	// UserAgents counts every request (as Requests) by its User-Agent header: the install
	// tests check that each of the provider's requests names its release.
	UserAgents map[string]int `json:"user_agents"`
}

// Total is the number of requests faulted, all kinds together.
func (s Stats) Total() int {
	n := 0

	for _, byMethod := range s.Faulted {
		for _, c := range byMethod {
			n += c
		}
	}

	return n
}

// Proxy forwards HTTP requests to loopback OpenStack services, rewriting every absolute
// upstream URL in answers to go through itself, and injects seeded faults.
type Proxy struct {
	cfg       Config
	self      string // 127.0.0.1:PORT of the proxy, set by SetSelf
	transport http.RoundTripper

	mu    sync.Mutex
	rnd   *rand.Rand
	stats Stats
}

// New makes a proxy from a validated configuration.
func New(cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}

	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 20
	}

	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 10 * time.Minute
	}

	upstream, _ := loopbackHostPort(cfg.Upstream)
	cfg.Upstream = upstream

	p := &Proxy{
		cfg: cfg,
		transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: cfg.UpstreamTimeout,
		},
		rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		stats: Stats{
			Seed:              cfg.Seed,
			Rates:             map[Kind]string{},
			Requests:          map[string]int{},
			RequestsByService: map[string]int{},
			Faulted:           map[Kind]map[string]int{},
			FaultedByService:  map[Kind]map[string]int{},
			UserAgents:        map[string]int{},
		},
	}

	for _, k := range kinds {
		r := cfg.Rules[k]
		p.stats.Rates[k] = fmt.Sprintf("%g %s", r.Rate, strings.Join(r.Methods, ","))
		p.stats.Faulted[k] = map[string]int{}
		p.stats.FaultedByService[k] = map[string]int{}
	}

	return p, nil
}

// SetSelf tells the proxy its own address (127.0.0.1:PORT), used in rewritten URLs.
func (p *Proxy) SetSelf(hostport string) { p.self = hostport }

// Stats returns a copy of the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()

	b, _ := json.Marshal(p.stats)

	var s Stats

	_ = json.Unmarshal(b, &s)

	return s
}

// StatsPath is the proxy's own endpoint that answers its Stats as JSON (never faulted).
const StatsPath = "/_faultproxy/stats"

// routePrefix starts the path of a request for a named upstream: /_/127.0.0.1:9696/v2.0/...
const routePrefix = "/_/"

// route splits a request path into its upstream and the path to ask it for.
func (p *Proxy) route(path string) (upstream, rest string, err error) {
	after, ok := strings.CutPrefix(path, routePrefix)
	if !ok {
		return p.cfg.Upstream, path, nil
	}

	hostport, rest, _ := strings.Cut(after, "/")

	upstream, err = loopbackHostPort(hostport)

	return upstream, "/" + rest, err
}

// isToken tells a Keystone token request (issue, validate, revoke).
func isToken(path string) bool {
	return strings.HasSuffix(strings.TrimSuffix(path, "/"), "/v3/auth/tokens")
}

// decide draws the fault (or none, "") for one request. One draw per request, matched
// against the kinds in order, each counting only when it applies to the method.
func (p *Proxy) decide(method, path string) Kind {
	if isToken(path) && !p.cfg.FaultTokens {
		return ""
	}

	p.mu.Lock()
	r := p.rnd.Float64()
	p.mu.Unlock()

	acc := 0.0

	for _, k := range kinds {
		rule := p.cfg.Rules[k]
		if rule.Rate <= 0 || !rule.applies(method) {
			continue
		}

		acc += rule.Rate
		if r < acc {
			return k
		}
	}

	return ""
}

// count counts a request, and its fault when kind is not "".
func (p *Proxy) count(method, upstream string, kind Kind) {
	p.mu.Lock()
	defer p.mu.Unlock()

	p.stats.Requests[method]++
	p.stats.RequestsByService[upstream]++

	if kind != "" {
		p.stats.Faulted[kind][method]++
		p.stats.FaultedByService[kind][method+" "+upstream]++
	}
}

// countFault counts the fault of a request already counted.
func (p *Proxy) countFault(method, upstream string, kind Kind) {
	p.mu.Lock()
	defer p.mu.Unlock()

	p.stats.Faulted[kind][method]++
	p.stats.FaultedByService[kind][method+" "+upstream]++
}

// ServeHTTP forwards one request, or faults it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == StatsPath {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.Stats())

		return
	}

	upstream, path, err := p.route(r.URL.Path)
	if err != nil {
		p.mu.Lock()
		p.stats.Refused++
		p.mu.Unlock()
		http.Error(w, "faultproxy: "+err.Error(), http.StatusForbidden)

		return
	}

	kind := p.decide(r.Method, path)

	p.mu.Lock()
	p.stats.UserAgents[r.UserAgent()]++
	p.mu.Unlock()

	if kind == KindDrop {
		p.count(r.Method, upstream, "") // counted as dropped once the service has answered
	} else {
		p.count(r.Method, upstream, kind)
	}

	switch kind {
	case KindFail:
		status := http.StatusBadGateway
		if p.coin() {
			status = http.StatusServiceUnavailable
		}

		http.Error(w, "faultproxy: injected "+strconv.Itoa(status), status)

		return
	case KindReset:
		reset(w)

		return
	}

	status, header, body, err := p.forward(r, upstream, path)
	if err != nil {
		p.mu.Lock()
		p.stats.UpstreamErrors++
		p.mu.Unlock()
		http.Error(w, "faultproxy: upstream "+upstream+": "+err.Error(), http.StatusBadGateway)

		return
	}

	if kind == KindDrop {
		p.countFault(r.Method, upstream, kind)
		reset(w)

		return
	}

	for k, vs := range header {
		w.Header()[k] = vs
	}

	if r.Method != http.MethodHead {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (p *Proxy) coin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()

	return p.rnd.IntN(2) == 0
}

// hopHeaders are not forwarded in either direction.
var hopHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade", "Content-Length",
}

// forward asks upstream and returns its whole answer with every upstream URL rewritten.
func (p *Proxy) forward(r *http.Request, upstream, path string) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(r.Context(), p.cfg.UpstreamTimeout)
	defer cancel()

	out, err := http.NewRequestWithContext(ctx, r.Method, "http://"+upstream+path, r.Body)
	if err != nil {
		return 0, nil, nil, err
	}

	out.URL.RawQuery = r.URL.RawQuery
	out.ContentLength = r.ContentLength
	out.Header = r.Header.Clone()

	for _, h := range hopHeaders {
		out.Header.Del(h)
	}

	// Plain bodies only, so that they can be rewritten.
	out.Header.Del("Accept-Encoding")

	if r.ContentLength == 0 {
		out.Body = nil
	}

	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()

	body, err := io.ReadAll(io.LimitReader(resp.Body, p.cfg.MaxBody+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the answer: %w", err)
	}

	if int64(len(body)) > p.cfg.MaxBody {
		return 0, nil, nil, errors.New("answer larger than the proxy's -max-body")
	}

	header := resp.Header.Clone()
	for _, h := range hopHeaders {
		if h == "Content-Length" && r.Method == http.MethodHead {
			continue // a HEAD answer's length is the one of the GET it stands for
		}

		header.Del(h)
	}

	for k, vs := range header {
		for i, v := range vs {
			vs[i] = string(p.rewrite([]byte(v)))
		}

		header[k] = vs
	}

	if rewritable(header.Get("Content-Type")) {
		body = p.rewrite(body)
	}

	return resp.StatusCode, header, body, nil
}

// rewritable tells the content types whose bodies carry URLs: JSON, text, XML.
func rewritable(contentType string) bool {
	ct := strings.ToLower(contentType)

	return ct == "" || strings.Contains(ct, "json") || strings.HasPrefix(ct, "text/") || strings.Contains(ct, "xml")
}

var upstreamURL = regexp.MustCompile(`http://127\.0\.0\.1:([0-9]{1,5})`)

// rewrite points every absolute http://127.0.0.1:PORT URL (catalog endpoints, links,
// Location) at the proxy: http://SELF/_/127.0.0.1:PORT. URLs of the proxy itself stay.
func (p *Proxy) rewrite(b []byte) []byte {
	selfURL := []byte("http://" + p.self)

	return upstreamURL.ReplaceAllFunc(b, func(m []byte) []byte {
		if bytes.Equal(m, selfURL) {
			return m
		}

		return []byte("http://" + p.self + routePrefix + string(m[len("http://"):]))
	})
}

// reset closes the client's connection abruptly (RST), without any answer.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}

	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}

	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}

	_ = conn.Close()
}
