package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Main is a package's TestMain: it registers the package's sweeper (AddSweeper), runs the
// tests and then destroys the shared stacks they applied (SharedStack). Started by the CLI of a
// shared stack, the test binary serves the provider instead.
func Main(m *testing.M, name string, dependencies []string, steps ...SweepFunc) {
	if os.Getenv(serveProviderEnv) == "1" {
		serveProvider()
	}

	AddSweeper(name, dependencies, steps...)
	resource.TestMain(withStacks{m})
}

// GlobalSweep is the sweeper step of one kind of Keystone object (Keystone is global: one
// pass, not one per region): bind makes the package's service of the client, list lists the
// candidates (it may return what it found together with an error), nameID gives the name that
// carries NamePrefix and the ID, and del deletes one. Every failure is kept and joined.
func GlobalSweep[S, T any](what string, bind func(*cloud.Client) (S, error), list func(context.Context, S) ([]T, error),
	nameID func(T) (string, string), del func(context.Context, S, T) error,
) SweepFunc {
	return func(ctx context.Context, c *cloud.Client) error {
		svc, err := bind(c)
		if err != nil {
			return err
		}

		all, err := list(ctx, svc)
		errs := []error{err}

		for _, obj := range all {
			name, id := nameID(obj)
			if !strings.HasPrefix(name, NamePrefix) {
				continue
			}

			if err := del(ctx, svc, obj); err != nil {
				errs = append(errs, fmt.Errorf("%s %s (%s): %w", what, name, id, err))
			}
		}

		return errors.Join(errs...)
	}
}
