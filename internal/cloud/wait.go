package cloud

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// Backoff defaults of [Poll], used when a [PollSpec] leaves them zero.
const (
	PollDefaultMinInterval = 500 * time.Millisecond
	PollDefaultMaxInterval = 10 * time.Second
)

const (
	// pollGrowth multiplies the interval after every poll.
	pollGrowth = 1.5
	// pollJitter is the largest fraction taken off an interval at random,
	// so that many resources waiting together do not poll in lockstep.
	pollJitter = 0.1
)

// PollSpec says what [Poll] waits for.
type PollSpec struct {
	// Pending are the states that mean "keep waiting".
	Pending []string
	// Target are the states that mean done. Any state in neither list is a
	// failure, returned at once as a *[StateError]. States are compared
	// exactly (OpenStack uses upper case).
	Target []string

	// MinInterval and MaxInterval bound the backoff between polls: the
	// first poll is immediate, the first wait MinInterval, and each wait
	// after that 1.5 times the previous one, up to MaxInterval, with up to
	// 10% taken off at random. Zero means PollDefaultMinInterval (500ms)
	// and PollDefaultMaxInterval (10s, or MinInterval if that is larger).
	MinInterval, MaxInterval time.Duration

	// NotFoundIsTarget, when waiting for deletion, makes a 404 from refresh
	// mean done: Poll returns the zero T and no error.
	NotFoundIsTarget bool
	// NotFoundTolerance is how many consecutive 404s to tolerate, and keep
	// polling through, while waiting for creation (eventual consistency);
	// the next one is returned as an error. Default 0: the first 404 is
	// returned. Ignored when NotFoundIsTarget is set.
	NotFoundTolerance int
}

// PollFunc refreshes the object being waited for: it returns the object, its
// state, a detail that explains a failed state (Nova's fault message,
// Octavia's status reason) and an error. An error for which
// gophercloud.ResponseCodeIs(err, http.StatusNotFound) holds is a 404.
type PollFunc[T any] func(ctx context.Context) (obj T, state string, detail string, err error)

// StateError is a state in neither PollSpec.Pending nor PollSpec.Target,
// such as ERROR, with the detail refresh gave for it.
type StateError struct {
	State  string
	Detail string
}

func (e *StateError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("unexpected state %q", e.State)
	}

	return fmt.Sprintf("unexpected state %q: %s", e.State, e.Detail)
}

// WaitTimeoutError is returned by [Poll] when its context ends (deadline or
// cancellation) before a target state is reached. It unwraps to the
// context's error, so errors.Is(err, context.DeadlineExceeded) holds for a
// timeout.
type WaitTimeoutError struct {
	// Target are the states waited for; NotFoundIsTarget adds deletion.
	Target           []string
	NotFoundIsTarget bool
	// LastState is the last state refresh reported; "" if none was seen.
	LastState string
	// NotFound is set when the last poll answered 404.
	NotFound bool
	// Waited is the time from the start of Poll to the end of the context.
	Waited time.Duration
	// Polls is how many times refresh was called.
	Polls int
	// Err is the context's error.
	Err error
}

func (e *WaitTimeoutError) Error() string {
	verb := "timed out"
	if !errors.Is(e.Err, context.DeadlineExceeded) {
		verb = "cancelled"
	}

	goal := make([]string, 0, len(e.Target)+1)
	for _, state := range e.Target {
		goal = append(goal, fmt.Sprintf("%q", state))
	}

	if e.NotFoundIsTarget {
		goal = append(goal, "deletion")
	}

	var last string

	switch {
	case e.NotFound:
		last = "last poll: not found"
	case e.LastState == "":
		last = "no state seen yet"
	default:
		last = fmt.Sprintf("last state %q", e.LastState)
	}

	return fmt.Sprintf("%s after %s waiting for %s (%s, %d polls): %v",
		verb, e.Waited.Round(time.Millisecond), strings.Join(goal, " or "), last, e.Polls, e.Err)
}

func (e *WaitTimeoutError) Unwrap() error { return e.Err }

// Poll calls refresh until it reports a state in spec.Target (or a 404 with
// spec.NotFoundIsTarget) and returns the object of that last call.
//
// It stops early with:
//   - a *[StateError] for a state in neither spec.Pending nor spec.Target,
//     together with the object that was in it;
//   - refresh's own error, unchanged, for any error that is not a 404, and
//     for a 404 beyond spec.NotFoundTolerance (wrapped then, with the count,
//     when the tolerance is above zero);
//   - a *[WaitTimeoutError] when ctx ends, which is the only deadline: set
//     it from the resource's timeouts. refresh receives ctx too.
//
// On every error the returned object is the last one refresh returned
// without error, or the zero T.
func Poll[T any](ctx context.Context, spec PollSpec, refresh PollFunc[T]) (T, error) {
	return pollLoop(ctx, spec, refresh, pollRealClock)
}

// pollClock is the time source of pollLoop, replaced in tests.
type pollClock struct {
	now func() time.Time
	// sleep waits for d or until ctx ends, returning ctx's error then.
	sleep func(ctx context.Context, d time.Duration) error
	// random returns a number in [0, 1) for the jitter.
	random func() float64
}

// pollRealClock sleeps with [Sleep] (every wait of pollLoop is positive): a ctx made by
// [WithSleeper] makes Poll's waits instant in a unit test too.
var pollRealClock = pollClock{now: time.Now, sleep: Sleep, random: rand.Float64}

// pollNormalize checks spec and fills in its defaults.
func pollNormalize(spec PollSpec) (PollSpec, error) {
	invalid := func(format string, args ...any) (PollSpec, error) {
		return spec, fmt.Errorf("cloud: invalid poll spec: "+format, args...)
	}

	switch {
	case spec.MinInterval < 0 || spec.MaxInterval < 0:
		return invalid("negative interval (%s, %s)", spec.MinInterval, spec.MaxInterval)
	case spec.NotFoundTolerance < 0:
		return invalid("negative not-found tolerance %d", spec.NotFoundTolerance)
	case len(spec.Target) == 0 && !spec.NotFoundIsTarget:
		return invalid("no target state and not-found is not a target")
	}

	for _, state := range spec.Pending {
		if slices.Contains(spec.Target, state) {
			return invalid("state %q is both pending and target", state)
		}
	}

	if spec.MinInterval == 0 {
		spec.MinInterval = PollDefaultMinInterval
	}

	if spec.MaxInterval == 0 {
		spec.MaxInterval = max(PollDefaultMaxInterval, spec.MinInterval)
	}

	if spec.MinInterval > spec.MaxInterval {
		return invalid("minimum interval %s above maximum %s", spec.MinInterval, spec.MaxInterval)
	}

	return spec, nil
}

// pollNextInterval is the wait that follows a wait of prev: minimum first,
// then 1.5 times longer each time, capped at maximum.
func pollNextInterval(prev, minimum, maximum time.Duration) time.Duration {
	if prev <= 0 {
		return minimum
	}

	next := time.Duration(float64(prev) * pollGrowth)
	if next > maximum || next < prev { // next < prev: overflow
		return maximum
	}

	return max(next, minimum)
}

// pollJittered takes up to pollJitter of d off, for r in [0, 1). It never
// lengthens d, so the maximum interval holds.
func pollJittered(d time.Duration, r float64) time.Duration {
	return d - time.Duration(float64(d)*pollJitter*r)
}

func pollLoop[T any](ctx context.Context, spec PollSpec, refresh PollFunc[T], clock pollClock) (T, error) {
	var zero, last T

	spec, err := pollNormalize(spec)
	if err != nil {
		return zero, err
	}

	if refresh == nil {
		return zero, errors.New("cloud: invalid poll: nil refresh function")
	}

	start := clock.now()
	timeout := &WaitTimeoutError{Target: slices.Clone(spec.Target), NotFoundIsTarget: spec.NotFoundIsTarget}

	timedOut := func(cause error) (T, error) {
		timeout.Waited = clock.now().Sub(start)
		timeout.Err = cause

		return last, timeout
	}

	var interval time.Duration

	notFound := 0

	for {
		if err := ctx.Err(); err != nil {
			return timedOut(err)
		}

		obj, state, detail, err := refresh(ctx)
		timeout.Polls++

		switch {
		case err != nil && gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			if spec.NotFoundIsTarget {
				return zero, nil
			}

			notFound++
			timeout.NotFound = true

			if notFound > spec.NotFoundTolerance {
				if spec.NotFoundTolerance == 0 {
					return last, err
				}

				return last, fmt.Errorf("still not found after %d consecutive polls: %w", notFound, err)
			}

		case err != nil:
			// A refresh cut short by the end of ctx is a timeout, not a
			// failure of the cloud.
			if ctxErr := ctx.Err(); ctxErr != nil {
				return timedOut(ctxErr)
			}

			return last, err

		default:
			last = obj
			notFound = 0
			timeout.NotFound = false
			timeout.LastState = state

			if slices.Contains(spec.Target, state) {
				return obj, nil
			}

			if !slices.Contains(spec.Pending, state) {
				return obj, &StateError{State: state, Detail: detail}
			}
		}

		interval = pollNextInterval(interval, spec.MinInterval, spec.MaxInterval)

		if err := clock.sleep(ctx, pollJittered(interval, clock.random())); err != nil {
			return timedOut(err)
		}
	}
}
