package cloud

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// OnceCache computes a value once per key (a service client, a token, a listing), however many goroutines ask at the same time,
// and keeps it. A failure is not kept: the next caller tries again. Waiters give up when
// their own context ends; when the computing caller's context ended, a waiter whose
// context is still alive computes again instead of inheriting that cancellation.
type OnceCache[K comparable, V any] struct {
	mu      sync.Mutex
	entries map[K]*onceEntry[V]
}

type onceEntry[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// Get returns the cached value for key or computes it with fill.
func (c *OnceCache[K, V]) Get(ctx context.Context, key K, fill func(context.Context) (V, error)) (V, error) {
	var zero V

	for {
		c.mu.Lock()

		if c.entries == nil {
			c.entries = make(map[K]*onceEntry[V])
		}

		if e, ok := c.entries[key]; ok {
			c.mu.Unlock()

			select {
			case <-e.done:
			case <-ctx.Done():
				return zero, ctx.Err()
			}

			if e.err == nil {
				return e.val, nil
			}

			if isContextError(e.err) && ctx.Err() == nil {
				continue
			}

			return zero, e.err
		}

		e := &onceEntry[V]{done: make(chan struct{})}
		c.entries[key] = e
		c.mu.Unlock()

		c.fill(ctx, key, e, fill)

		return e.val, e.err
	}
}

// fill runs fn for e; a failure removes the entry so that it is not cached. A panic does
// too, releases the waiters with an error and is then re-raised.
func (c *OnceCache[K, V]) fill(ctx context.Context, key K, e *onceEntry[V], fn func(context.Context) (V, error)) {
	completed := false

	defer func() {
		var recovered any
		if !completed {
			recovered = recover()
			e.err = fmt.Errorf("computing a cached value panicked: %v", recovered)
		}

		if e.err != nil {
			c.mu.Lock()
			delete(c.entries, key)
			c.mu.Unlock()
		}

		close(e.done)

		if !completed {
			panic(recovered)
		}
	}()

	e.val, e.err = fn(ctx)
	completed = true
}

// Put stores a value computed elsewhere.
func (c *OnceCache[K, V]) Put(key K, val V) {
	e := &onceEntry[V]{done: make(chan struct{}), val: val}
	close(e.done)

	c.mu.Lock()
	defer c.mu.Unlock()

	if c.entries == nil {
		c.entries = make(map[K]*onceEntry[V])
	}

	c.entries[key] = e
}

// Forget drops key; a computation in flight still finishes for its current waiters.
func (c *OnceCache[K, V]) Forget(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()

	delete(c.entries, key)
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// ListOnce is the listing of key in c, made by list on the first call (concurrent callers wait
// for it, a failure is not kept) and logged with its size and duration: what names the
// listing ("Nova flavors": "Listing Nova flavors", then "Listed Nova flavors"), count the log
// field of its size, fields what else the log says of it. The result is shared: callers must
// not modify it.
func ListOnce[K comparable, E any](ctx context.Context, c *OnceCache[K, []E], key K, what, count string, fields map[string]any,
	list func(context.Context) ([]E, error),
) ([]E, error) {
	return c.Get(ctx, key, func(ctx context.Context) ([]E, error) {
		start := time.Now()

		tflog.Debug(ctx, "Listing "+what+" (once per provider process)", fields)

		out, err := list(ctx)
		if err != nil {
			return nil, err
		}

		done := map[string]any{count: len(out), "duration_ms": time.Since(start).Milliseconds()}
		maps.Copy(done, fields)
		tflog.Debug(ctx, "Listed "+what, done)

		return out, nil
	})
}

// ByID is the objects of one kind read one by one by region and ID, each once per run however
// many callers name it (the plan checks of many servers naming one flavor or image that the
// run's listing does not hold). A 404 is kept too, as "no such object"; a failure is not.
type ByID[V any] struct {
	// Kind names the object in the log and in errors ("flavor").
	Kind string

	once OnceCache[regionID, *V]
}

type regionID struct {
	region, id string
}

// Get is the object id of region (a resolved region name), read with get the first time;
// found is false when the service answered 404.
func (b *ByID[V]) Get(ctx context.Context, region, id string, get func(ctx context.Context) (V, error)) (v V, found bool, err error) {
	p, err := b.once.Get(ctx, regionID{region: region, id: id}, func(ctx context.Context) (*V, error) {
		v, err := get(ctx)

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			tflog.Debug(ctx, "No such "+b.Kind, map[string]any{"id": id, "region": region})
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("reading %s %s: %w", b.Kind, id, err)
		}

		return &v, nil
	})
	if p == nil {
		return v, false, err
	}

	return *p, true, nil
}

// Forget drops what was read of id in region, so that the next Get reads it again.
func (b *ByID[V]) Forget(region, id string) {
	b.once.Forget(regionID{region: region, id: id})
}
