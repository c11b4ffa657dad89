package cloud

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// LogSubsystem is the tflog subsystem of the OpenStack HTTP traffic. Its level can be set
// on its own with TF_LOG_PROVIDER_UNIKORN_OPENSTACK.
const LogSubsystem = "openstack"

const logLevelEnv = "TF_LOG_PROVIDER_UNIKORN_OPENSTACK"

// maskedLogFields are masked in the subsystem should anything ever log them.
var maskedLogFields = []string{
	"password", "token", "x-auth-token", "x-subject-token", "secret", "authorization",
	"application_credential_secret",
}

// retryTuning is the backoff of the retrying transport; tests make it tiny, and replace its
// clock and sleeper to see the delays asked for without waiting them.
type retryTuning struct {
	maxRetries     int
	initialBackoff time.Duration // first delay, doubled per attempt
	maxBackoff     time.Duration // cap of the doubling
	maxRetryAfter  time.Duration // cap of a server's Retry-After
	sleep          func(ctx context.Context, d time.Duration) error
	now            func() time.Time // reads a Retry-After date against it
	// headerTimeout bounds one attempt of an idempotent request until its answer's headers
	// arrive, so that a half-open connection is given up and retried instead of hanging the
	// operation until its timeout. Zero: no bound.
	headerTimeout time.Duration
	// onceHeaderTimeout is the same bound for a request sent once (a POST, a PATCH, [Once]):
	// longer, and the attempt given up is not repeated; its caller treats it as a lost answer
	// ([Create] looks for what it may have made). Zero: no bound.
	onceHeaderTimeout time.Duration
	// bodyIdleTimeout bounds every wait for the next bytes of an answer's body, whatever the
	// method: a body that stalls mid-way fails the read instead of hanging a plan or an apply.
	// Zero: no bound.
	bodyIdleTimeout time.Duration
	// afterFunc runs f after d (time.AfterFunc); tests fire it themselves.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

func defaultRetryTuning(maxRetries int) retryTuning {
	return retryTuning{
		maxRetries:        maxRetries,
		initialBackoff:    500 * time.Millisecond,
		maxBackoff:        30 * time.Second,
		maxRetryAfter:     60 * time.Second,
		sleep:             sleepContext,
		now:               time.Now,
		headerTimeout:     defaultHeaderTimeout,
		onceHeaderTimeout: defaultOnceHeaderTimeout,
		bodyIdleTimeout:   defaultBodyIdleTimeout,
		afterFunc:         realAfterFunc,
	}
}

// defaultHeaderTimeout is how long an idempotent request waits for its answer to begin: far
// above what any OpenStack read takes, far below a resource's timeout.
const defaultHeaderTimeout = 90 * time.Second

// defaultOnceHeaderTimeout is how long a request sent once waits for its answer to begin: above
// the slowest create seen under load (a Neutron router, tens of seconds), and short enough that
// a create whose answer never comes is recovered (looked for by its key) well inside a
// resource's timeout instead of hanging it to the end (seen: a Keystone POST that never got an
// answer held an identity's create for its whole 10 minutes).
const defaultOnceHeaderTimeout = 3 * time.Minute

// defaultBodyIdleTimeout is how long a read of an answer's body may wait for its next bytes.
const defaultBodyIdleTimeout = 60 * time.Second

func realAfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// errHeaderTimeout is an attempt given up after headerTimeout without an answer.
var errHeaderTimeout = errors.New("no answer within the per-attempt timeout")

// errBodyStalled is an answer whose body stopped arriving for bodyIdleTimeout.
var errBodyStalled = errors.New("the answer's body stalled")

// Sleep waits for d, or until ctx ends (then it returns ctx's error): the one context-aware
// sleep of the provider, for the cores' short pauses and [Create]'s settle window. A ctx made by
// [WithSleeper] waits with its sleeper instead.
func Sleep(ctx context.Context, d time.Duration) error {
	if sleep, ok := ctx.Value(sleeperKey{}).(func(context.Context, time.Duration) error); ok {
		return sleep(ctx, d)
	}

	return sleepContext(ctx, d)
}

type sleeperKey struct{}

// WithSleeper makes every [Sleep] under ctx wait with sleep instead of the clock: tests use it to
// run the pauses of a lost create (or any core's) without waiting.
func WithSleeper(ctx context.Context, sleep func(ctx context.Context, d time.Duration) error) context.Context {
	return context.WithValue(ctx, sleeperKey{}, sleep)
}

// sleepContext waits d or until ctx ends.

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}

	timer := time.NewTimer(d)
	defer timer.Stop()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// requestCounters count HTTP attempts, in total and per method.
type requestCounters struct {
	total    atomic.Int64
	tokens   atomic.Int64             // Keystone token requests (isTokenRequest)
	byMethod map[string]*atomic.Int64 // fixed keys, read-only after construction
	refused  map[string]*atomic.Int64 // answers 4xx, by method; same keys as byMethod
}

var countedMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut,
	http.MethodDelete, http.MethodPost, http.MethodPatch, "OTHER",
}

func newRequestCounters() *requestCounters {
	c := &requestCounters{
		byMethod: make(map[string]*atomic.Int64, len(countedMethods)),
		refused:  make(map[string]*atomic.Int64, len(countedMethods)),
	}
	for _, m := range countedMethods {
		c.byMethod[m], c.refused[m] = new(atomic.Int64), new(atomic.Int64)
	}

	return c
}

func (c *requestCounters) add(method string) {
	c.total.Add(1)

	if n, ok := c.byMethod[method]; ok {
		n.Add(1)
	} else {
		c.byMethod["OTHER"].Add(1)
	}
}

// addStatus counts an answer that refused the request (4xx).
func (c *requestCounters) addStatus(method string, status int) {
	if status < 400 || status >= 500 {
		return
	}

	if n, ok := c.refused[method]; ok {
		n.Add(1)
	} else {
		c.refused["OTHER"].Add(1)
	}
}

func (c *requestCounters) snapshot() map[string]int64 {
	out := make(map[string]int64, len(c.byMethod))

	for m, n := range c.byMethod {
		if v := n.Load(); v > 0 {
			out[m] = v
		}
	}

	return out
}

// retryingTransport is the http.RoundTripper under every ProviderClient of a Client. It
// retries idempotent requests on 429/502/503/504 and on connection errors, logs every
// attempt at DEBUG in the "openstack" subsystem and counts attempts.
type retryingTransport struct {
	base     http.RoundTripper
	tuning   retryTuning
	counters *requestCounters
	services atomic.Pointer[serviceMatcher]
}

func newRetryingTransport(base http.RoundTripper, tuning retryTuning) *retryingTransport {
	if tuning.sleep == nil {
		tuning.sleep = sleepContext
	}

	if tuning.now == nil {
		tuning.now = time.Now
	}

	if tuning.afterFunc == nil {
		tuning.afterFunc = realAfterFunc
	}

	return &retryingTransport{base: base, tuning: tuning, counters: newRequestCounters()}
}

// RoundTrip implements http.RoundTripper.
func (t *retryingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	idempotent := (isIdempotent(req.Method) || isTokenRequest(req) || repeatable(ctx)) && !once(ctx)
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil

	for attempt := 1; ; attempt++ {
		r := req

		if attempt > 1 {
			r = req.Clone(ctx)

			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}

				r.Body = body
			}
		}

		start := time.Now()
		resp, err := t.attempt(r, idempotent)
		t.record(ctx, r, resp, err, attempt, time.Since(start))

		// A 429 was not processed, whatever the method: it is retried like an idempotent request.
		repeatable := idempotent || (resp != nil && resp.StatusCode == http.StatusTooManyRequests)

		if !repeatable || !rewindable || attempt > t.tuning.maxRetries || !retryable(ctx, resp, err) {
			return resp, err
		}

		delay := t.delay(attempt, resp)

		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
		}

		if err := t.tuning.sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// attempt is one round trip, bounded until its answer begins by headerTimeout (idempotent) or
// onceHeaderTimeout (sent once); then every read of the body, of any request, by
// bodyIdleTimeout between two reads that bring bytes (a stalled body fails with errBodyStalled
// instead of hanging).
func (t *retryingTransport) attempt(r *http.Request, idempotent bool) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	stop := func() bool { return false }

	bound := t.tuning.headerTimeout
	if !idempotent {
		bound = t.tuning.onceHeaderTimeout
	}

	if bound > 0 {
		stop = t.tuning.afterFunc(bound, func() { cancel(errHeaderTimeout) })
	}

	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	stop()

	if err != nil {
		if errors.Is(context.Cause(ctx), errHeaderTimeout) && r.Context().Err() == nil {
			err = fmt.Errorf("%w (%s)", errHeaderTimeout, bound)
			if !idempotent {
				err = fmt.Errorf("%w: the request may still have been carried out", err)
			}
		}

		cancel(nil)

		return nil, err
	}

	resp.Body = &watchedBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, idle: t.tuning.bodyIdleTimeout, after: t.tuning.afterFunc}

	return resp, nil
}

// watchedBody is an answer's body whose reads are bounded by idle each (cancelling the attempt's
// context, which makes the blocked read return), and which releases the attempt's context once
// closed.
type watchedBody struct {
	io.ReadCloser

	ctx    context.Context //nolint:containedctx // the attempt's own context, cancelled by the watchdog
	cancel context.CancelCauseFunc
	idle   time.Duration
	after  func(d time.Duration, f func()) (stop func() bool)
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.idle <= 0 {
		return b.ReadCloser.Read(p)
	}

	stop := b.after(b.idle, func() { b.cancel(errBodyStalled) })
	n, err := b.ReadCloser.Read(p)
	stop()

	if err != nil && errors.Is(context.Cause(b.ctx), errBodyStalled) {
		err = fmt.Errorf("%w: no bytes for %s", errBodyStalled, b.idle)
	}

	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)

	return err
}

// isTokenRequest is Keystone's token POST: it creates nothing that outlives the answer, so it is
// retried like an idempotent request.
func isTokenRequest(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/auth/tokens")
}

// onceKey marks a context whose requests are never repeated by the transport (Once).
type onceKey struct{}

// Once is ctx for requests the transport must send once only, whatever their method: a PUT
// that creates an object under an ID the caller chose (a Keystone identity provider) is a
// create, and a repeat after a lost answer would meet the object that the first one made as a
// 409. Its lost answer is recovered by the caller (Create), like a POST's.
func Once(ctx context.Context) context.Context { return context.WithValue(ctx, onceKey{}, true) }

func once(ctx context.Context) bool { v, _ := ctx.Value(onceKey{}).(bool); return v }

// repeatableKey marks a context whose requests the transport may repeat whatever their method.
type repeatableKey struct{}

// Repeatable is ctx for a PATCH that sets absolute values (an ownership mark, a record of
// regions): repeating it after a lost answer or a 5xx changes nothing more, so the transport
// retries it as it retries a PUT, and a fault in the last step of a create does not fail the
// create.
func Repeatable(ctx context.Context) context.Context {
	return context.WithValue(ctx, repeatableKey{}, true)
}

func repeatable(ctx context.Context) bool { v, _ := ctx.Value(repeatableKey{}).(bool); return v }

// isIdempotent: POST and PATCH are never retried (a lost POST is recovered by looking the
// object up by name).
func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}

	return false
}

func retryable(ctx context.Context, resp *http.Response, err error) bool {
	if err != nil {
		return ctx.Err() == nil && (errors.Is(err, errHeaderTimeout) || retryableConnError(err))
	}

	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}

	return false
}

// retryableConnError: transient network failures yes; TLS trust failures and cancellations no.
func retryableConnError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}

	var (
		verifyErr    *tls.CertificateVerificationError
		recordErr    tls.RecordHeaderError
		authorityErr x509.UnknownAuthorityError
		hostnameErr  x509.HostnameError
		invalidErr   x509.CertificateInvalidError
	)

	if errors.As(err, &verifyErr) || errors.As(err, &recordErr) || errors.As(err, &authorityErr) ||
		errors.As(err, &hostnameErr) || errors.As(err, &invalidErr) {
		return false
	}

	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}

	var netErr net.Error

	return errors.As(err, &netErr)
}

// delay is the wait before the next attempt: the server's Retry-After when it sent one
// (capped), otherwise exponential backoff with jitter.
func (t *retryingTransport) delay(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.tuning.now()); ok {
			return min(d, t.tuning.maxRetryAfter)
		}
	}

	d := t.tuning.initialBackoff
	for i := 1; i < attempt && d < t.tuning.maxBackoff; i++ {
		d *= 2
	}

	d = min(d, t.tuning.maxBackoff)
	if d <= 0 {
		return 0
	}

	// Equal jitter: half fixed, half random, so that parallel resources spread out.
	half := d / 2

	return half + rand.N(d-half+1) //nolint:gosec // jitter, not cryptography
}

// parseRetryAfter reads Retry-After as delta seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}

	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}

		return time.Duration(secs) * time.Second, true
	}

	if when, err := http.ParseTime(v); err == nil {
		return max(when.Sub(now), 0), true
	}

	return 0, false
}

// record counts the attempt and logs it without body, headers or query string.
func (t *retryingTransport) record(ctx context.Context, req *http.Request, resp *http.Response, err error, attempt int, d time.Duration) {
	t.counters.add(req.Method)

	if isTokenRequest(req) {
		t.counters.tokens.Add(1)
	}

	status := 0
	if resp != nil {
		status = resp.StatusCode
		t.counters.addStatus(req.Method, status)
	}

	service, region := t.services.Load().matchRegion(req.URL)

	fields := map[string]any{
		"method":      req.Method,
		"service":     service,
		"region":      region,
		"path":        req.URL.Path,
		"status":      status,
		"duration_ms": d.Milliseconds(),
		"attempt":     attempt,
	}

	if err != nil {
		fields["error"] = transportErrorText(err)
	}

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "OpenStack API request", fields)
}

// logContext sets up the "openstack" subsystem with its masks. Without a logger in ctx
// (unit tests) it is a no-op.
func logContext(ctx context.Context) context.Context {
	ctx = tflog.NewSubsystem(ctx, LogSubsystem, tflog.WithLevelFromEnv(logLevelEnv))

	return tflog.SubsystemMaskFieldValuesWithFieldKeys(ctx, LogSubsystem, maskedLogFields...)
}

// transportErrorText is the error without the request URL (which carries the query string).
func transportErrorText(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error()
	}

	return err.Error()
}
