package cloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// CreateSpec is one create of an object that is found again by a deterministic key (its exact
// name, or a description or port), for [Create].
type CreateSpec[T any] struct {
	// Kind names the object in messages ("network", "port", ...).
	Kind string
	// Name is the key the object is found by, for messages.
	Name string
	// Create makes the object: one POST, never retried by the transport.
	Create func(ctx context.Context) (T, error)
	// Find lists every object carrying the key; exact matches only.
	Find func(ctx context.Context) ([]T, error)
	// ID is an object's ID.
	ID func(T) string
	// Delete removes an object by ID: the twin a create has just made. nil skips the twin
	// check after a successful create (for objects that cannot have one).
	Delete func(ctx context.Context, id string) error
	// Adopt is the ownership rule (see [Adopt]) for what Find returns after a lost answer: nil
	// when an object may be taken as the one the lost create made (it carries this create's
	// creation mark, unfinished), else why not (an *ExistsError). A found object that is not
	// this create's is never recovered: when only such objects carry the key, that refusal is
	// the result and nothing is posted again. nil takes whatever Find returns (kinds that look
	// before they post, so that only their own object can carry the key).
	Adopt func(T) error
}

// TwinError is a create that found, right after making its object, another object with the same
// key (a concurrent apply, or two resources with one name). The one just made was removed.
type TwinError struct {
	Kind, Name string
	// Kept is the other object's ID, Removed the ID of the one this create made and deleted.
	Kept, Removed string
	// RemoveErr is why the removal failed, if it did (the twin is then still there).
	RemoveErr error
}

func (e *TwinError) Error() string {
	if e.RemoveErr != nil {
		return fmt.Sprintf("another %s named %q (%s) appeared while %s was made, and removing %s failed: %v; "+
			"delete one of them by hand", e.Kind, e.Name, e.Kept, e.Removed, e.Removed, e.RemoveErr)
	}

	return fmt.Sprintf("another %s named %q (%s) appeared while this one (%s) was made, so %s was deleted again: "+
		"two applies or two resources make the same %s", e.Kind, e.Name, e.Kept, e.Removed, e.Removed, e.Kind)
}

// Definite tells whether err is a refusal that proves the service did not act: an HTTP 4xx
// answer other than 408 and 429. Anything else (5xx, a reset or dropped connection, a timeout,
// an answer that could not be read) may come after the service acted.
func Definite(err error) bool {
	var code gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &code) {
		return false
	}

	switch code.Actual {
	case http.StatusRequestTimeout, http.StatusTooManyRequests:
		return false
	}

	return code.Actual >= 400 && code.Actual < 500
}

// createAttempts bounds the POSTs of one [Create]; createSettle are the waits before each look
// for the object of a create whose answer was lost (the first look is immediate).
var (
	createAttempts = 3
	createSettle   = []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
)

// Create makes the object of spec and never leaves a twin or an orphan behind a lost answer:
//
//   - a definite refusal ([Definite]) is returned as it is: nothing was made;
//   - any other failure may have come after the service acted, so the object is looked for by
//     its key (at once, then with a growing pause); a found object is the result (logged as a
//     recovered create), and when none shows up the POST is made again, at most three POSTs in
//     all and only while ctx lives;
//   - after a successful create, with spec.Delete set, the key is listed once more: when another
//     object carries it, the one just made is deleted and a *[TwinError] naming both is returned
//     (with the object itself when deleting it failed, so that the caller records it).
func Create[T any](ctx context.Context, spec CreateSpec[T]) (T, error) {
	var zero T

	for attempt := 1; ; attempt++ {
		made, err := spec.Create(ctx)
		if err == nil {
			return checkTwin(ctx, spec, made)
		}

		if Definite(err) || ctx.Err() != nil {
			return zero, err
		}

		tflog.Warn(ctx, "A create failed without a definite answer; looking for what it may have made", map[string]any{
			"kind": spec.Kind, "name": spec.Name, "attempt": attempt, "error": err.Error(),
		})

		found, ok, ferr := lookForLost(ctx, spec)
		if ferr != nil {
			return zero, errors.Join(err, ferr)
		}

		if ok {
			tflog.Warn(ctx, "Recovered a create whose answer was lost", map[string]any{
				"kind": spec.Kind, "name": spec.Name, "id": spec.ID(found),
			})

			return found, nil
		}

		if attempt >= createAttempts || ctx.Err() != nil {
			return zero, fmt.Errorf("creating %s %q (%d attempts, none of which made it): %w", spec.Kind, spec.Name, attempt, err)
		}
	}
}

// lookForLost looks for the object of a create whose answer was lost, through createSettle.
// More than one object is a twin: that is an error, nothing is deleted. Objects that spec.Adopt
// refuses are not the lost create's: when only such objects carry the key, the refusal is
// returned.
func lookForLost[T any](ctx context.Context, spec CreateSpec[T]) (T, bool, error) {
	var zero T

	for _, d := range createSettle {
		if err := Sleep(ctx, d); err != nil {
			return zero, false, nil //nolint:nilerr // the context ended: the caller reports the create's error
		}

		items, err := spec.Find(ctx)
		if err != nil {
			tflog.Debug(ctx, "Looking for a lost create failed", map[string]any{"kind": spec.Kind, "name": spec.Name, "error": err.Error()})

			continue
		}

		items, refusal := ownedOnly(spec, items)
		if len(items) == 0 && refusal != nil {
			return zero, false, refusal
		}

		switch len(items) {
		case 0:
			continue
		case 1:
			return items[0], true, nil
		default:
			return zero, false, fmt.Errorf("%d objects of kind %s named %q exist after a lost create (%s, %s): delete the extra by hand",
				len(items), spec.Kind, spec.Name, spec.ID(items[0]), spec.ID(items[1]))
		}
	}

	return zero, false, nil
}

// ownedOnly keeps the items that spec.Adopt takes as the create's own, and returns the first
// refusal of the others.
func ownedOnly[T any](spec CreateSpec[T], items []T) ([]T, error) {
	if spec.Adopt == nil {
		return items, nil
	}

	var (
		own     []T
		refusal error
	)

	for _, it := range items {
		if err := spec.Adopt(it); err != nil {
			if refusal == nil {
				refusal = err
			}

			continue
		}

		own = append(own, it)
	}

	return own, refusal
}

// checkTwin lists spec's key after a successful create and removes what it made when another
// object carries the key.
func checkTwin[T any](ctx context.Context, spec CreateSpec[T], made T) (T, error) {
	if spec.Delete == nil {
		return made, nil
	}

	items, err := spec.Find(ctx)
	if err != nil {
		// The create itself succeeded: a failed re-list must not turn it into an orphan.
		tflog.Warn(ctx, "Could not re-list after a create to check for a twin", map[string]any{
			"kind": spec.Kind, "name": spec.Name, "error": err.Error(),
		})

		return made, nil //nolint:nilerr // the create succeeded; only the twin check could not run
	}

	id := spec.ID(made)

	for _, other := range items {
		if otherID := spec.ID(other); otherID != id {
			twin := &TwinError{Kind: spec.Kind, Name: spec.Name, Kept: otherID, Removed: id}
			if derr := spec.Delete(ctx, id); derr != nil && !gophercloud.ResponseCodeIs(derr, http.StatusNotFound) {
				twin.RemoveErr = derr

				return made, twin // still there: the caller records it, so that it is not orphaned
			}

			var zero T

			return zero, twin
		}
	}

	return made, nil
}
