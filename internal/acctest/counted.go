package acctest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Budget is one step of a request-count test: what it is, the most requests it may make, and
// the step itself.
type Budget struct {
	What string
	Most int64
	Do   func() error
}

// FreshCore is the core that bind makes on a FreshClient, and that client, for a request-count
// test.
func FreshCore[C any](t *testing.T, bind func(*cloud.Client) (C, error)) (C, *cloud.Client) {
	t.Helper()

	c := FreshClient(t)

	core, err := bind(c)
	if err != nil {
		t.Fatal(err)
	}

	return core, c
}

// WithinBudget runs the steps in order on the client c, counting the requests of each
// (Requests: a failing step ends the test), logs the counts under typeName, and fails the
// test for every step over its budget.
func WithinBudget(t *testing.T, c *cloud.Client, typeName string, steps ...Budget) {
	t.Helper()

	count := Requests(t, c)

	var counts, over []string

	for _, s := range steps {
		n := count(s.What, s.Do)
		counts = append(counts, fmt.Sprintf("%s %d", s.What, n))

		if n > s.Most {
			over = append(over, fmt.Sprintf("%s %d (%d)", s.What, n, s.Most))
		}
	}

	t.Logf("%s requests: %s", typeName, strings.Join(counts, ", "))

	if len(over) > 0 {
		t.Errorf("over budget: %s", strings.Join(over, ", "))
	}
}

// Made is the create step of a request-count test: create makes the object, which *out then
// holds, and del deletes it when the test ends.
func Made[O any](t *testing.T, out **O, create func() (*O, error), del func(context.Context, *O) error) func() error {
	return func() error {
		o, err := create()
		if *out = o; o != nil {
			t.Cleanup(func() {
				if err := del(context.Background(), o); err != nil {
					t.Errorf("deleting what the request-count test made: %v", err)
				}
			})
		}

		return err
	}
}
