package cloud

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
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
}

func defaultRetryTuning(maxRetries int) retryTuning {
	return retryTuning{
		maxRetries:     maxRetries,
		initialBackoff: 500 * time.Millisecond,
		maxBackoff:     30 * time.Second,
		maxRetryAfter:  60 * time.Second,
		sleep:          sleepContext,
		now:            time.Now,
	}
}

// sleepContext waits d or until ctx ends.
// Sleep waits for d, or until ctx ends (then it returns ctx's error): the one
// context-aware sleep of the provider, for the cores' short pauses.
func Sleep(ctx context.Context, d time.Duration) error {
	return sleepContext(ctx, d)
}

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
	byMethod map[string]*atomic.Int64 // fixed keys, read-only after construction
}

var countedMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut,
	http.MethodDelete, http.MethodPost, http.MethodPatch, "OTHER",
}

func newRequestCounters() *requestCounters {
	c := &requestCounters{byMethod: make(map[string]*atomic.Int64, len(countedMethods))}
	for _, m := range countedMethods {
		c.byMethod[m] = new(atomic.Int64)
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

	return &retryingTransport{base: base, tuning: tuning, counters: newRequestCounters()}
}

// RoundTrip implements http.RoundTripper.
func (t *retryingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	idempotent := isIdempotent(req.Method)
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
		resp, err := t.base.RoundTrip(r)
		t.record(ctx, r, resp, err, attempt, time.Since(start))

		if !idempotent || !rewindable || attempt > t.tuning.maxRetries || !retryable(ctx, resp, err) {
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
		return ctx.Err() == nil && retryableConnError(err)
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

	status := 0
	if resp != nil {
		status = resp.StatusCode
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
