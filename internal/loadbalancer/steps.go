package loadbalancer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds how each change to a load balancer is made: one at a time (stepper), every
// create through cloud.Create (a lost answer is found again by name, a twin made at the same
// time by someone else is removed), and every change whose answer was lost, was a 5xx, or met
// Octavia's lock (409) checked against what Octavia holds once the load balancer is ACTIVE
// again, instead of being retried into the lock. A 409 can be our own: the transport retries
// a PUT or DELETE whose answer was lost, and when the first try did land, Octavia holds the
// load balancer PENDING_UPDATE and refuses the retry.

// stepAttempts bounds the tries of one change that Octavia did not take.
const stepAttempts = 2

// stepper runs the mutations of one load balancer strictly one after the other: before each
// one the load balancer must be ACTIVE (Octavia refuses changes with 409 while it is
// PENDING_*), and after each one it waits for ACTIVE again. A 409 that is not our own is
// never retried.
type stepper struct {
	s     *Service
	id    string
	ready bool // the load balancer was last seen ACTIVE, and nothing changed since
	steps int
	// last is the load balancer as last seen ACTIVE after a change (its updated_at is that of
	// the change); nil before the first change.
	last *loadbalancers.LoadBalancer
	// onChange, when set, is called once: when Octavia has taken the first change, before
	// the wait for it.
	onChange func()
}

// changed calls onChange once.
func (st *stepper) changed() {
	if f := st.onChange; f != nil {
		st.onChange = nil
		f()
	}
}

// change is one mutation and the re-read that tells whether it took effect.
type change struct {
	what   string
	mutate func(ctx context.Context) error
	// landed tells, once the load balancer is ACTIVE again, whether the mutation took effect
	// after all, and records what it finds (the object a create made).
	landed func(ctx context.Context) (bool, error)
	// final marks a create's last write (its completion mark): once Octavia has taken it, the
	// stepper returns at once instead of waiting for ACTIVE again. From the moment the mark is
	// on the cloud until the CLI records the state, a killed apply leaves a finished load
	// balancer that no state holds and no create adopts; that moment is kept to one answer.
	final bool
}

func (st *stepper) do(ctx context.Context, c change) error {
	for attempt := 1; ; attempt++ {
		if !st.ready {
			if _, err := st.s.waitActive(ctx, st.id, "waiting to start "+c.what); err != nil {
				return err
			}
		}

		err := c.mutate(ctx)
		st.steps++
		st.ready = false

		if err != nil {
			if !unsure(err) {
				return fmt.Errorf("%s: %w", c.what, err)
			}

			// Octavia may have acted: let it finish, then look.
			lb, werr := st.s.waitActive(ctx, st.id, c.what)
			if werr != nil {
				return errors.Join(fmt.Errorf("%s: %w", c.what, err), werr)
			}

			st.ready, st.last = true, lb

			took, lerr := c.landed(ctx)

			switch {
			case lerr != nil:
				return errors.Join(fmt.Errorf("%s: %w", c.what, err), fmt.Errorf("checking whether it took effect: %w", lerr))
			case took:
				st.changed()
				tflog.Warn(ctx, "A change to the load balancer failed without a definite answer but took effect", map[string]any{
					"loadbalancer_id": st.id, "change": c.what, "error": err.Error(),
				})

				return nil
			case isConflict(err):
				return &ConflictError{What: c.what, Err: err} // someone else's change holds the lock
			case attempt >= stepAttempts || ctx.Err() != nil:
				return fmt.Errorf("%s (%d attempts): %w", c.what, attempt, err)
			}

			continue // Octavia did not take it, and the load balancer is ACTIVE: once more
		}

		st.changed()

		if c.final {
			return nil
		}

		lb, err := st.s.waitActive(ctx, st.id, c.what)
		if err != nil {
			return err
		}

		st.ready, st.last = true, lb

		// Each settled change is one step of the children phase (tools/bench times them).
		tflog.Debug(ctx, "Load balancer change settled", map[string]any{"loadbalancer_id": st.id, "change": c.what, "step": st.steps})

		return nil
	}
}

// unsure tells whether Octavia may have made the change that failed with err: no definite
// answer (a 5xx, a reset, a lost answer), or a 409, which our own retry of a change that did
// land meets. A twin removed by cloud.Create, and an object refused by the ownership rule, are
// definite.
func unsure(err error) bool {
	var (
		twin   *cloud.TwinError
		exists *cloud.ExistsError
	)

	if errors.As(err, &twin) || errors.As(err, &exists) {
		return false
	}

	return isConflict(err) || !cloud.Definite(err)
}

// deleteChild is the delete of one child (what names it): a 404 means done, and after a lost
// answer the child is gone once its GET (get) answers 404.
func deleteChild(what string, del, get func(ctx context.Context) error) change {
	return change{
		what:   "deleting " + what,
		mutate: func(ctx context.Context) error { return ignoreNotFound(del(ctx)) },
		landed: func(ctx context.Context) (bool, error) {
			err := get(ctx)
			if isNotFound(err) {
				return true, nil
			}

			return false, err
		},
	}
}

// childCreate is the create of one child of the load balancer (listener, pool, monitor).
type childCreate[T any] struct {
	kind, name string
	// owner is the user-given name of the load balancer.
	owner string
	post  func(ctx context.Context) (T, error)
	// find lists the children of this load balancer (or pool) named exactly name.
	find func(ctx context.Context) ([]T, error)
	id   func(T) string
	// tags are a child's Octavia tags, which carry its marks.
	tags   func(T) []string
	delete func(ctx context.Context, id string) error
	// record puts what the create made (or the listing found) into the observed listener.
	record func(T)
}

// adopt is the ownership rule of a child that carries c's name after a lost answer: it is the
// one this create made only when it carries the creation mark (ownership.go).
func (c childCreate[T]) adopt(s *Service, v T) error {
	return s.part(c.owner, c.kind, c.name, c.id(v), naming.MarkOfTags(c.tags(v)))
}

// createChild makes the child through cloud.Create as one step of st: a lost answer is found
// again by name (only a child carrying the creation mark is taken), and a twin (another child
// with the name, made at the same time) is removed again.
func createChild[T any](ctx context.Context, st *stepper, c childCreate[T]) error {
	spec := cloud.CreateSpec[T]{
		Kind: c.kind, Name: c.name, Create: c.post, Find: c.find, ID: c.id,
		Adopt: func(v T) error { return c.adopt(st.s, v) },
		Delete: func(ctx context.Context, id string) error {
			// The create that made the twin holds the load balancer's lock.
			if _, err := st.s.waitActive(ctx, st.id, "removing the twin "+c.kind+" "+id); err != nil {
				return err
			}

			return c.delete(ctx, id)
		},
	}

	return st.do(ctx, change{
		what: "creating " + c.kind + " " + c.name,
		mutate: func(ctx context.Context) error {
			made, err := cloud.Create(ctx, spec)
			if err == nil {
				c.record(made)
			}

			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			found, err := c.find(ctx)
			if err != nil {
				return false, err
			}

			var refusal error

			found = slices.DeleteFunc(found, func(v T) bool {
				err := c.adopt(st.s, v)
				refusal = cmp.Or(refusal, err)

				return err != nil
			})

			switch {
			case len(found) == 0:
				return false, refusal
			case len(found) > 1:
				ids := make([]string, len(found))
				for i, f := range found {
					ids[i] = c.id(f)
				}

				return false, &naming.DuplicateError{Kind: c.kind, Name: c.name, IDs: cloud.SortedSet(ids)}
			}

			c.record(found[0])

			return true, nil
		},
	})
}

// named lists with pager the objects named exactly name, without those drop leaves out.
func named[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error), name string,
	nameOf func(T) string, drop func(T) bool,
) ([]T, error) {
	all, err := cloud.ListAll(ctx, pager, extract, "the objects named "+name)
	if err != nil {
		return nil, err
	}

	return slices.DeleteFunc(naming.Exact(all, name, nameOf), drop), nil
}

// removed tells whether a child's provisioning status says it is gone or going.
func removed(status string) bool {
	return status == StatusDeleted || status == StatusPendingDelete
}
