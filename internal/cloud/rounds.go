package cloud

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Rounds poll many objects of one kind in one tenant with one request a round (issue 17): while
// anybody waits for an object of the kind (a server to be ACTIVE, a created object's name to be
// listed once more), a loop lists the objects named as any of the waiters ask, and hands every
// waiter its part. Fifty servers booting at once then cost one listing a round, not fifty
// reads: the request count of waiting grows with the time waited, not with the number of
// objects waited for. Rounds back off like a poll: the time to the next round is half the time
// the youngest waiter has waited, within Interval and MaxInterval, so that a new wait is looked
// at soon and one long wait alone costs a few rounds.
type Rounds[T any] struct {
	// Kind names the objects ("server").
	Kind string
	// Interval and MaxInterval bound the time between rounds; Interval is about the time the
	// service takes to change an object's state, measured (a round sooner would mostly find
	// nothing new). MaxInterval zero: Interval.
	Interval, MaxInterval time.Duration
	// List lists the tenant's objects named any of names (sorted), in one request: it may list
	// more (a name filter is loose, or there is none), the results are compared exactly.
	List func(ctx context.Context, t *Tenant, names []string) ([]T, error)
	// Name and ID are an object's name and ID.
	Name, ID func(T) string
	// Confirm, when set, picks the listed objects a poll reads by their ID before it acts on
	// them: a failed state, whose detail only a read gives (and which a read confirms).
	Confirm func(T) bool
}

// roundLoop is the loop of one kind in one tenant, running while it has waiters.
type roundLoop[T any] struct {
	mu      sync.Mutex
	waiters map[*roundWaiter[T]]struct{}
	running bool
	// sleep waits between rounds (Sleep, or a test's sleeper taken from the first waiter's context).
	sleep func(ctx context.Context, d time.Duration) error
	// served is when the youngest waiter of the last round began to wait: a waiter that round
	// served and that waits on comes back a moment after the next pause is chosen.
	served time.Time
	// interrupt ends the pause the loop is taking (nil when it takes none): a waiter younger
	// than every other one has the pause chosen again, so that it is looked at an Interval after
	// it began to wait, not after what is left of a pause chosen for an old wait.
	interrupt context.CancelFunc
}

// youngest is when the youngest waiter began to wait, of those waiting and of those the last
// round served. The caller holds mu.
func (l *roundLoop[T]) youngest() time.Time {
	youngest := l.served

	for w := range l.waiters {
		if w.since.After(youngest) {
			youngest = w.since
		}
	}

	return youngest
}

// nap takes a pause of d; true when a younger waiter interrupted it (the pause is then chosen
// again).
func (l *roundLoop[T]) nap(ctx context.Context, d time.Duration) bool {
	napCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	l.mu.Lock()
	l.interrupt = cancel
	l.mu.Unlock()

	_ = l.sleep(napCtx, d)

	l.mu.Lock()
	l.interrupt = nil
	l.mu.Unlock()

	return napCtx.Err() != nil && ctx.Err() == nil
}

// roundWaiter waits for the next round's listing of the objects called name; since is when it
// began to wait.
type roundWaiter[T any] struct {
	name  string
	since time.Time
	got   chan roundResult[T]
}

type roundResult[T any] struct {
	objs []T
	err  error
}

// Next waits for the next round of the tenant's kind (one that starts after the call) and
// returns the objects named exactly name in it; since is when the caller began to wait (the
// rounds' pace follows the youngest wait). ok is false for a tenant that the rounds cannot serve
// (see Listing.Find): the caller lists by itself.
func (r Rounds[T]) Next(ctx context.Context, t *Tenant, name string, since time.Time) (objs []T, ok bool, err error) {
	run := t.run()
	if run == nil {
		return nil, false, nil
	}

	loop := r.loop(run, t.listingKey(r.Kind))
	w := &roundWaiter[T]{name: name, since: since, got: make(chan roundResult[T], 1)}

	loop.mu.Lock()

	if loop.interrupt != nil && since.After(loop.youngest()) {
		loop.interrupt()
	}

	loop.waiters[w] = struct{}{}

	if !loop.running {
		loop.running = true
		loop.sleep = sleeperOf(ctx)

		// The loop's requests are logged and counted like the waiter's own (its context's
		// values), but outlive its cancellation: other waiters depend on them.
		go r.run(context.WithoutCancel(ctx), t, loop)
	}
	loop.mu.Unlock()

	select {
	case res := <-w.got:
		return res.objs, true, res.err
	case <-ctx.Done():
		loop.mu.Lock()
		delete(loop.waiters, w)
		loop.mu.Unlock()

		return nil, true, ctx.Err()
	}
}

// loop is the kind's loop in the run, made on first use.
func (r Rounds[T]) loop(run *runState, k listingKey) *roundLoop[T] {
	run.mu.Lock()
	defer run.mu.Unlock()

	if run.rounds == nil {
		run.rounds = map[listingKey]any{}
	}

	if l, ok := run.rounds[k].(*roundLoop[T]); ok {
		return l
	}

	l := &roundLoop[T]{waiters: map[*roundWaiter[T]]struct{}{}}
	run.rounds[k] = l

	return l
}

// run makes rounds until no one waits.
func (r Rounds[T]) run(ctx context.Context, t *Tenant, loop *roundLoop[T]) {
	for {
		// A pause that a younger waiter interrupts is chosen again, with it.
		for interrupted := true; interrupted; {
			interrupted = loop.nap(ctx, r.pause(loop))
		}

		loop.mu.Lock()
		if len(loop.waiters) == 0 {
			loop.running = false
			loop.mu.Unlock()

			return
		}

		waiters := loop.waiters
		loop.waiters = map[*roundWaiter[T]]struct{}{}
		loop.served = time.Time{}

		for w := range waiters {
			if w.since.After(loop.served) {
				loop.served = w.since
			}
		}
		loop.mu.Unlock()

		var names []string

		for w := range waiters {
			if !slices.Contains(names, w.name) {
				names = append(names, w.name)
			}
		}

		slices.Sort(names)

		objs, err := r.List(ctx, t, names)
		if err != nil {
			err = fmt.Errorf("listing the %ss of %s: %w", r.Kind, t, err)
		}

		for w := range waiters {
			res := roundResult[T]{err: err}
			if err == nil {
				res.objs = slices.DeleteFunc(slices.Clone(objs), func(o T) bool { return r.Name(o) != w.name })
			}

			w.got <- res
		}
	}
}

// pause is the time to the next round: half the age of the youngest wait (of those waiting, and
// of those the last round served), within Interval and MaxInterval.
func (r Rounds[T]) pause(loop *roundLoop[T]) time.Duration {
	loop.mu.Lock()
	defer loop.mu.Unlock()

	return min(max(time.Since(loop.youngest())/2, r.Interval), max(r.MaxInterval, r.Interval))
}

// Poll is [Poll] for the object id called name, refreshed by the rounds: each poll is the next
// round's listing. When the rounds do not list the object (gone, or renamed out of band), or list
// it in a state to Confirm, get reads it by its ID (a 404 then is the object's 404) and the polls
// go on from what it read. Without a cloud
// behind the tenant (tests on fakes) it is [Poll] on get.
func (r Rounds[T]) Poll(ctx context.Context, t *Tenant, name, id string, spec PollSpec,
	state func(T) (state, detail string), get func(ctx context.Context) (T, error),
) (T, error) {
	if t.run() == nil {
		return Poll(ctx, spec, func(ctx context.Context) (T, string, string, error) {
			obj, err := get(ctx)
			if err != nil {
				return obj, "", "", err
			}

			st, detail := state(obj)

			return obj, st, detail, nil
		})
	}

	since := time.Now()

	refresh := func(ctx context.Context) (T, string, string, error) {
		objs, _, err := r.Next(ctx, t, name, since)
		if err != nil {
			var zero T
			return zero, "", "", err
		}

		if i := slices.IndexFunc(objs, func(o T) bool { return r.ID(o) == id }); i >= 0 && (r.Confirm == nil || !r.Confirm(objs[i])) {
			st, detail := state(objs[i])
			return objs[i], st, detail, nil
		}

		obj, err := get(ctx)
		if err != nil {
			var zero T
			return zero, "", "", err
		}

		st, detail := state(obj)

		return obj, st, detail, nil
	}

	// The rounds pace the polls themselves: no sleep of the poll's own between them.
	return pollLoop(ctx, spec, refresh, pollClock{now: time.Now, sleep: func(ctx context.Context, _ time.Duration) error {
		return ctx.Err()
	}, random: func() float64 { return 0 }})
}

// sleeperOf is the sleep of ctx: WithSleeper's, else the clock's.
func sleeperOf(ctx context.Context) func(ctx context.Context, d time.Duration) error {
	if sleep, ok := ctx.Value(sleeperKey{}).(func(context.Context, time.Duration) error); ok {
		return sleep
	}

	return sleepContext
}
