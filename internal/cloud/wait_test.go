package cloud

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// waitStep is one scripted answer of a refresh function.
type waitStep struct {
	state  string
	detail string
	err    error
}

// waitObject is what the scripted refresh returns: the index of its answer.
type waitObject struct {
	step int
}

// waitNotFound is the error gophercloud returns for a 404.
func waitNotFound() error {
	return gophercloud.ErrUnexpectedResponseCode{
		Method: http.MethodGet, URL: "http://cloud/v2/thing", Expected: []int{200}, Actual: http.StatusNotFound,
	}
}

// waitScript returns a refresh function answering steps in order (the last
// one repeatedly) and a counter of its calls.
func waitScript(steps ...waitStep) (PollFunc[waitObject], func() int) {
	var mu sync.Mutex

	calls := 0

	refresh := func(context.Context) (waitObject, string, string, error) {
		mu.Lock()
		defer mu.Unlock()

		i := min(calls, len(steps)-1)
		calls++

		s := steps[i]

		return waitObject{step: i}, s.state, s.detail, s.err
	}

	count := func() int {
		mu.Lock()
		defer mu.Unlock()

		return calls
	}

	return refresh, count
}

// waitFakeClock is a pollClock whose sleeps return at once and advance a
// fake time, recording each requested wait.
type waitFakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	// deadline, when set, ends a sleep that would pass it the way a context
	// deadline ends sleepContext: the clock stops at the deadline and the
	// sleep returns context.DeadlineExceeded.
	deadline time.Time
}

func (c *waitFakeClock) clock(random float64) pollClock {
	return pollClock{
		now: func() time.Time {
			c.mu.Lock()
			defer c.mu.Unlock()

			return c.now
		},
		sleep: func(ctx context.Context, d time.Duration) error {
			c.mu.Lock()
			defer c.mu.Unlock()

			if err := ctx.Err(); err != nil {
				return err
			}

			c.sleeps = append(c.sleeps, d)

			if !c.deadline.IsZero() && !c.now.Add(d).Before(c.deadline) {
				c.now = c.deadline

				return context.DeadlineExceeded
			}

			c.now = c.now.Add(d)

			return nil
		},
		random: func() float64 { return random },
	}
}

// waitFast is a spec with millisecond intervals.
func waitFast(spec PollSpec) PollSpec {
	spec.MinInterval = time.Millisecond
	spec.MaxInterval = 2 * time.Millisecond

	return spec
}

func TestPoll(t *testing.T) {
	t.Parallel()

	refreshFailure := errors.New("connection refused")

	tests := []struct {
		name  string
		spec  PollSpec
		steps []waitStep
		calls int
		step  int    // step index of the returned object
		err   string // substring of the error; "" means success
		// wantErrIs: the error is this very one; want404: it is (or wraps) the 404;
		// wantState: it is a *StateError equal to this one.
		wantErrIs error
		want404   bool
		wantState *StateError
	}{
		{
			name:  "pending to target",
			spec:  PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			steps: []waitStep{{state: "BUILD"}, {state: "BUILD"}, {state: "ACTIVE"}},
			calls: 3,
			step:  2,
		},
		{
			name:  "already at target",
			spec:  PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			steps: []waitStep{{state: "ACTIVE"}},
			calls: 1,
		},
		{
			name:  "any of several targets",
			spec:  PollSpec{Pending: []string{"PENDING_UPDATE"}, Target: []string{"ACTIVE", "DEGRADED"}},
			steps: []waitStep{{state: "PENDING_UPDATE"}, {state: "DEGRADED"}},
			calls: 2,
			step:  1,
		},
		{
			name:      "error state fails at once with the fault",
			spec:      PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			steps:     []waitStep{{state: "BUILD"}, {state: "ERROR", detail: "No valid host was found."}, {state: "ACTIVE"}},
			calls:     2,
			step:      1,
			err:       `unexpected state "ERROR": No valid host was found.`,
			wantState: &StateError{State: "ERROR", Detail: "No valid host was found."},
		},
		{
			name:  "unknown state fails without detail",
			spec:  PollSpec{Pending: []string{"PENDING_CREATE"}, Target: []string{"ACTIVE"}},
			steps: []waitStep{{state: "SHELVED"}},
			calls: 1,
			err:   `unexpected state "SHELVED"`,
		},
		{
			name:  "states are case-sensitive",
			spec:  PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			steps: []waitStep{{state: "active"}},
			calls: 1,
			err:   `unexpected state "active"`,
		},
		{
			name:  "404 is the target when deleting",
			spec:  PollSpec{Pending: []string{"ACTIVE", "PENDING_DELETE"}, NotFoundIsTarget: true},
			steps: []waitStep{{state: "PENDING_DELETE"}, {state: "PENDING_DELETE"}, {err: waitNotFound()}},
			calls: 3,
		},
		{
			name:  "deletion can also end in a state",
			spec:  PollSpec{Pending: []string{"PENDING_DELETE"}, Target: []string{"DELETED"}, NotFoundIsTarget: true},
			steps: []waitStep{{state: "PENDING_DELETE"}, {state: "DELETED"}},
			calls: 2,
			step:  1,
		},
		{
			name:  "deletion failing is a state error",
			spec:  PollSpec{Pending: []string{"PENDING_DELETE"}, NotFoundIsTarget: true},
			steps: []waitStep{{state: "PENDING_DELETE"}, {state: "ERROR", detail: "amphora gone"}},
			calls: 2,
			step:  1,
			err:   `unexpected state "ERROR": amphora gone`,
		},
		{
			name:    "404 without tolerance is returned at once",
			spec:    PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			steps:   []waitStep{{err: waitNotFound()}, {state: "ACTIVE"}},
			calls:   1,
			err:     "got 404",
			want404: true,
		},
		{
			name:  "transient 404s within tolerance",
			spec:  PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, NotFoundTolerance: 2},
			steps: []waitStep{{err: waitNotFound()}, {err: waitNotFound()}, {state: "BUILD"}, {err: waitNotFound()}, {err: waitNotFound()}, {state: "ACTIVE"}},
			calls: 6,
			step:  5,
		},
		{
			name:    "404s beyond tolerance",
			spec:    PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, NotFoundTolerance: 2},
			steps:   []waitStep{{state: "BUILD"}, {err: waitNotFound()}, {err: waitNotFound()}, {err: waitNotFound()}, {state: "ACTIVE"}},
			calls:   4,
			err:     "still not found after 3 consecutive polls",
			want404: true,
		},
		{
			name:      "refresh error is returned at once, unchanged",
			spec:      PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, NotFoundTolerance: 5},
			steps:     []waitStep{{state: "BUILD"}, {err: refreshFailure}, {state: "ACTIVE"}},
			calls:     2,
			err:       "connection refused",
			wantErrIs: refreshFailure,
		},
		{
			name:  "other HTTP errors are not tolerated",
			spec:  PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, NotFoundTolerance: 5},
			steps: []waitStep{{err: gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusConflict}}},
			calls: 1,
			err:   "got 409",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			refresh, calls := waitScript(tt.steps...)

			obj, err := Poll(context.Background(), waitFast(tt.spec), refresh)

			if tt.err == "" {
				if err != nil {
					t.Fatalf("Poll() error = %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Poll() error = %v, want it to contain %q", err, tt.err)
			}

			if obj.step != tt.step {
				t.Errorf("Poll() returned the object of step %d, want %d", obj.step, tt.step)
			}

			if got := calls(); got != tt.calls {
				t.Errorf("refresh called %d times, want %d", got, tt.calls)
			}

			if tt.wantErrIs != nil && err != tt.wantErrIs { //nolint:errorlint // the very error, unwrapped
				t.Errorf("error %v is not the refresh error itself", err)
			}

			if tt.want404 && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				t.Errorf("error %v is not (and does not wrap) the 404", err)
			}

			var stateErr *StateError
			if tt.wantState != nil && (!errors.As(err, &stateErr) || *stateErr != *tt.wantState) {
				t.Errorf("error %#v is not the StateError %+v", err, tt.wantState)
			}
		})
	}
}

func TestPollTimeout(t *testing.T) {
	t.Parallel()

	start := time.Unix(0, 0)

	tests := []struct {
		name      string
		spec      PollSpec
		steps     []waitStep
		deadline  time.Duration // after the start of Poll
		wantPolls int
		wantStep  int // step of the object returned: the last one seen
		want      string
	}{
		{
			// Waits of 1ms, 1.5ms, then 2ms: polls at 0, 1, 2.5, 4.5, ... 28.5ms; the
			// wait after that one ends at the deadline.
			name:      "deadline while pending",
			spec:      waitFast(PollSpec{Pending: []string{"BUILD", "PENDING_CREATE"}, Target: []string{"ACTIVE"}}),
			steps:     []waitStep{{state: "BUILD"}, {state: "PENDING_CREATE"}},
			deadline:  30 * time.Millisecond,
			wantPolls: 16,
			wantStep:  1,
			want:      `timed out after 30ms waiting for "ACTIVE" (last state "PENDING_CREATE", 16 polls): context deadline exceeded`,
		},
		{
			// Waits of 1s, 1.5s, 2.25s: polls at 0, 1, 2.5, 4.75s; the next wait
			// (3.375s) is cut by the deadline.
			name: "deadline after a 404",
			spec: PollSpec{
				Pending: []string{"PENDING_DELETE"}, Target: []string{"ACTIVE"}, NotFoundTolerance: 5,
				MinInterval: time.Second, MaxInterval: time.Minute,
			},
			steps:     []waitStep{{state: "PENDING_DELETE"}, {state: "PENDING_DELETE"}, {err: waitNotFound()}},
			deadline:  6 * time.Second,
			wantPolls: 4,
			wantStep:  1,
			want:      `timed out after 6s waiting for "ACTIVE" (last poll: not found, 4 polls): context deadline exceeded`,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			fake := &waitFakeClock{now: start, deadline: start.Add(tt.deadline)}
			refresh, calls := waitScript(tt.steps...)

			obj, err := pollLoop(context.Background(), tt.spec, refresh, fake.clock(0))

			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("pollLoop() error = %v, want it to wrap context.DeadlineExceeded", err)
			}

			var timeout *WaitTimeoutError
			if !errors.As(err, &timeout) {
				t.Fatalf("pollLoop() error %T is not a *WaitTimeoutError", err)
			}

			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}

			// Waited runs to the deadline, and nothing happens after it: no refresh and no
			// further wait once the deadline cut one.
			if timeout.Waited != tt.deadline || timeout.Polls != tt.wantPolls || calls() != tt.wantPolls || len(fake.sleeps) != tt.wantPolls {
				t.Errorf("Waited %s after %d polls (%d refreshes, %d waits asked); want %s and %d of each",
					timeout.Waited, timeout.Polls, calls(), len(fake.sleeps), tt.deadline, tt.wantPolls)
			}

			if obj.step != tt.wantStep {
				t.Errorf("pollLoop() returned the object of step %d, want the last one seen (%d)", obj.step, tt.wantStep)
			}
		})
	}
}

func TestPollStopsAtTheContextDeadline(t *testing.T) {
	t.Parallel()

	// The real clock: a wait of an hour, cut by the context's deadline (were it not, Poll
	// would outlast the test).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()

	refresh, calls := waitScript(waitStep{state: "BUILD"})

	_, err := Poll(ctx, PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, MinInterval: time.Hour}, refresh)

	var timeout *WaitTimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) || timeout.LastState != "BUILD" || calls() != 1 {
		t.Fatalf("Poll() error = %v after %d refreshes, want a timeout in BUILD after 1", err, calls())
	}
}

func TestPollTimeoutDuringSlowRefresh(t *testing.T) {
	t.Parallel()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()

	polls := 0
	refresh := func(ctx context.Context) (string, string, string, error) {
		polls++
		if polls == 1 {
			return "lb", "PENDING_CREATE", "", nil
		}

		// A request cut short by the deadline, as an HTTP client reports it.
		<-ctx.Done()

		return "", "", "", &url.Error{Op: "Get", URL: "http://cloud/v2/lb", Err: ctx.Err()}
	}

	obj, err := Poll(ctx, waitFast(PollSpec{Pending: []string{"PENDING_CREATE"}, Target: []string{"ACTIVE"}}), refresh)

	var timeout *WaitTimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) || timeout.LastState != "PENDING_CREATE" {
		t.Fatalf("Poll() error = %v, want a timeout in PENDING_CREATE", err)
	}

	if obj != "lb" {
		t.Errorf("Poll() = %q, want the last object seen", obj)
	}
}

func TestPollCancelled(t *testing.T) {
	t.Parallel()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	refresh, calls := waitScript(waitStep{state: "ACTIVE"})

	_, err := Poll(ctx, waitFast(PollSpec{Target: []string{"ACTIVE"}, NotFoundIsTarget: true}), refresh)

	if !errors.Is(err, context.Canceled) || calls() != 0 {
		t.Fatalf("Poll() error = %v after %d calls, want context.Canceled and no call", err, calls())
	}

	if want := `cancelled after 0s waiting for "ACTIVE" or deletion (no state seen yet, 0 polls): context canceled`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestPollBackoff(t *testing.T) {
	t.Parallel()

	steps := make([]waitStep, 0, 13)
	for range 12 {
		steps = append(steps, waitStep{state: "BUILD"})
	}

	steps = append(steps, waitStep{state: "ACTIVE"})

	tests := []struct {
		name   string
		spec   PollSpec
		random float64
		want   []time.Duration
	}{
		{
			name:   "defaults grow by 1.5 and cap at 10s",
			spec:   PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
			random: 0,
			want: []time.Duration{
				500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond,
				1687500 * time.Microsecond, 2531250 * time.Microsecond, 3796875 * time.Microsecond,
				5695312500, 8542968750, 10 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second,
			},
		},
		{
			name:   "jitter shortens, and never lengthens past the maximum",
			spec:   PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, MinInterval: time.Second, MaxInterval: 2 * time.Second},
			random: 0.5,
			want: []time.Duration{
				950 * time.Millisecond, 1425 * time.Millisecond, 1900 * time.Millisecond, 1900 * time.Millisecond,
				1900 * time.Millisecond, 1900 * time.Millisecond, 1900 * time.Millisecond, 1900 * time.Millisecond,
				1900 * time.Millisecond, 1900 * time.Millisecond, 1900 * time.Millisecond, 1900 * time.Millisecond,
			},
		},
		{
			name:   "minimum above the default maximum",
			spec:   PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}, MinInterval: 30 * time.Second},
			random: 0,
			want: []time.Duration{
				30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second,
				30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second,
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			fake := &waitFakeClock{now: time.Unix(0, 0)}
			refresh, calls := waitScript(steps...)

			if _, err := pollLoop(context.Background(), tt.spec, refresh, fake.clock(tt.random)); err != nil {
				t.Fatalf("pollLoop() error = %v", err)
			}

			if !slices.Equal(fake.sleeps, tt.want) {
				t.Errorf("waits = %v, want %v", fake.sleeps, tt.want)
			}

			if calls() != len(steps) {
				t.Errorf("refresh called %d times, want %d", calls(), len(steps))
			}
		})
	}
}

func TestPollNextInterval(t *testing.T) {
	t.Parallel()

	const minimum, maximum = 100 * time.Millisecond, time.Second

	tests := []struct {
		prev, want time.Duration
	}{
		{0, minimum},
		{-1, minimum},
		{minimum, 150 * time.Millisecond},
		{150 * time.Millisecond, 225 * time.Millisecond},
		{time.Nanosecond, minimum},
		{700 * time.Millisecond, maximum},
		{maximum, maximum},
		{time.Duration(1<<63 - 1), maximum},
	}

	for _, tt := range tests {
		if got := pollNextInterval(tt.prev, minimum, maximum); got != tt.want {
			t.Errorf("pollNextInterval(%s) = %s, want %s", tt.prev, got, tt.want)
		}
	}

	for _, r := range []float64{0, 0.5, 0.999999} {
		got := pollJittered(time.Second, r)
		if got > time.Second || got < 900*time.Millisecond {
			t.Errorf("pollJittered(1s, %v) = %s, want within [0.9s, 1s]", r, got)
		}
	}
}

func TestPollInvalidSpec(t *testing.T) {
	t.Parallel()

	refresh, calls := waitScript(waitStep{state: "ACTIVE"})

	tests := []struct {
		name string
		spec PollSpec
		want string
	}{
		{"nothing to wait for", PollSpec{Pending: []string{"BUILD"}}, "no target state"},
		{"pending and target", PollSpec{Pending: []string{"ACTIVE"}, Target: []string{"ACTIVE"}}, `"ACTIVE" is both pending and target`},
		{"minimum above maximum", PollSpec{Target: []string{"ACTIVE"}, MinInterval: 2 * time.Second, MaxInterval: time.Second}, "minimum interval 2s above maximum 1s"},
		{"negative interval", PollSpec{Target: []string{"ACTIVE"}, MinInterval: -1}, "negative interval"},
		{"negative tolerance", PollSpec{Target: []string{"ACTIVE"}, NotFoundTolerance: -1}, "negative not-found tolerance"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if _, err := Poll(context.Background(), tt.spec, refresh); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Poll() error = %v, want %q", err, tt.want)
			}
		})
	}

	if _, err := Poll[int](context.Background(), PollSpec{Target: []string{"ACTIVE"}}, nil); err == nil {
		t.Error("Poll() accepted a nil refresh")
	}

	t.Cleanup(func() {
		if calls() != 0 {
			t.Errorf("refresh called %d times for invalid specs", calls())
		}
	})
}

func TestStateError(t *testing.T) {
	t.Parallel()

	if got := (&StateError{State: "ERROR"}).Error(); got != `unexpected state "ERROR"` {
		t.Errorf("Error() = %q", got)
	}

	if got := (&StateError{State: "ERROR", Detail: "boom"}).Error(); got != `unexpected state "ERROR": boom` {
		t.Errorf("Error() = %q", got)
	}
}
