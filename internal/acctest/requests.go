package acctest

import (
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Requests counts the requests of client c step by step, for the request-count tests: the
// function it returns runs do and says how many requests it made; a failure of do ends the
// test, naming what.
func Requests(t *testing.T, c *cloud.Client) func(what string, do func() error) int64 {
	t.Helper()

	return func(what string, do func() error) int64 {
		t.Helper()

		before := c.RequestCount()

		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}

		return c.RequestCount() - before
	}
}
