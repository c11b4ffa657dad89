package cloud

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestOnceCache(t *testing.T) {
	t.Parallel()

	t.Run("concurrent callers compute once", func(t *testing.T) {
		t.Parallel()

		var (
			c     OnceCache[string, int]
			calls atomic.Int32
			wg    sync.WaitGroup
		)

		for range 20 {
			wg.Add(1)

			go func() {
				defer wg.Done()

				v, err := c.Get(t.Context(), "k", func(context.Context) (int, error) {
					calls.Add(1)
					time.Sleep(10 * time.Millisecond)

					return 42, nil
				})
				if v != 42 || err != nil {
					t.Errorf("got %d, %v", v, err)
				}
			}()
		}

		wg.Wait()

		if calls.Load() != 1 {
			t.Errorf("%d computations, want 1", calls.Load())
		}
	})

	t.Run("failures are not cached", func(t *testing.T) {
		t.Parallel()

		var c OnceCache[string, int]

		if _, err := c.Get(t.Context(), "k", func(context.Context) (int, error) { return 0, errors.New("boom") }); err == nil {
			t.Fatal("want the error")
		}

		if v, err := c.Get(t.Context(), "k", func(context.Context) (int, error) { return 7, nil }); v != 7 || err != nil {
			t.Errorf("second try: %d, %v", v, err)
		}
	})

	t.Run("a waiter outlives the cancelled leader", func(t *testing.T) {
		t.Parallel()

		var c OnceCache[string, int]

		leaderCtx, cancelLeader := context.WithCancel(t.Context())
		started := make(chan struct{})
		leaderDone := make(chan error, 1)

		go func() {
			_, err := c.Get(leaderCtx, "k", func(ctx context.Context) (int, error) {
				close(started)
				<-ctx.Done()

				return 0, ctx.Err()
			})
			leaderDone <- err
		}()

		<-started

		waiterDone := make(chan int, 1)

		go func() {
			v, err := c.Get(t.Context(), "k", func(context.Context) (int, error) { return 9, nil })
			if err != nil {
				t.Errorf("waiter: %v", err)
			}
			waiterDone <- v
		}()

		time.Sleep(10 * time.Millisecond) // let the waiter block on the leader
		cancelLeader()

		if err := <-leaderDone; !errors.Is(err, context.Canceled) {
			t.Errorf("leader: %v", err)
		}

		if v := <-waiterDone; v != 9 {
			t.Errorf("waiter got %d, want its own computation", v)
		}
	})

	t.Run("a waiter gives up with its own context", func(t *testing.T) {
		t.Parallel()

		var c OnceCache[string, int]

		release := make(chan struct{})
		started := make(chan struct{})

		go func() {
			_, _ = c.Get(t.Context(), "k", func(context.Context) (int, error) {
				close(started)
				<-release

				return 1, nil
			})
		}()

		<-started

		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()

		if _, err := c.Get(ctx, "k", func(context.Context) (int, error) { return 2, nil }); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("want DeadlineExceeded, got %v", err)
		}

		close(release)
	})

	t.Run("a panic releases the waiters and is re-raised", func(t *testing.T) {
		t.Parallel()

		var c OnceCache[string, int]

		func() {
			defer func() {
				if recover() == nil {
					t.Error("panic swallowed")
				}
			}()

			_, _ = c.Get(t.Context(), "k", func(context.Context) (int, error) { panic("bad") })
		}()

		if v, err := c.Get(t.Context(), "k", func(context.Context) (int, error) { return 3, nil }); v != 3 || err != nil {
			t.Errorf("after panic: %d, %v", v, err)
		}
	})
}

func TestByID(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	b := ByID[string]{Kind: "flavor"}
	reads := map[string]int{}
	read := func(id string, err error) func(context.Context) (string, error) {
		return func(context.Context) (string, error) {
			reads[id]++
			if err != nil {
				return "", err
			}

			return "flavor " + id, nil
		}
	}

	// Found, then kept: the second Get does not read.
	for range 2 {
		if v, found, err := b.Get(ctx, "R", "f-1", read("f-1", nil)); err != nil || !found || v != "flavor f-1" {
			t.Fatalf("Get(f-1) = %q, %v, %v", v, found, err)
		}
	}

	// A 404 is "no such flavor", kept too.
	for range 2 {
		if _, found, err := b.Get(ctx, "R", "gone", read("gone", status(http.StatusNotFound))); err != nil || found {
			t.Fatalf("Get(gone) = %v, %v; want not found without an error", found, err)
		}
	}

	// Another failure says what was read, and is not kept.
	boom := errors.New("boom")
	for range 2 {
		if _, found, err := b.Get(ctx, "R", "f-2", read("f-2", boom)); !errors.Is(err, boom) || found || err.Error() != "reading flavor f-2: boom" {
			t.Fatalf("Get(f-2) = %v, %v; want the wrapped failure", found, err)
		}
	}

	// Forget makes the next Get read again; the same ID in another region is another object.
	b.Forget("R", "f-1")
	_, _, _ = b.Get(ctx, "R", "f-1", read("f-1", nil))
	_, _, _ = b.Get(ctx, "S", "f-1", read("f-1", nil))

	if want := map[string]int{"f-1": 3, "gone": 1, "f-2": 2}; !maps.Equal(reads, want) {
		t.Fatalf("reads = %v, want %v", reads, want)
	}
}
