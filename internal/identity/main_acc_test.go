package identity_test

import (
	"context"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
)

// TestMain registers the sweeper: `go test ./internal/identity/ -sweep=all` with the
// environment of the local cloud deletes every identity whose name carries the acceptance
// tests' prefix (with its tenant objects, as force_destroy does), then the identity users an
// interrupted deletion left behind.
func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_identity", nil, sweepIdentities.Run, sweepUsers.Run)
}

var (
	sweepIdentities = acctest.Sweep[cloud.Located]{
		What: "identity",
		List: once(func(ctx context.Context, c *cloud.Client) ([]cloud.Located, error) {
			return identity.NewService(c, nil).List(ctx)
		}),
		Name: locatedName,
		ID:   locatedID,
		Delete: func(ctx context.Context, c *cloud.Client, _, id string) error {
			_, err := identity.NewService(c, nil).Delete(ctx, identity.Ref{ProjectID: id, Roles: identity.DefaultRoles, CheckNova: true}, true)

			return err
		},
	}

	sweepUsers = acctest.Sweep[cloud.Located]{
		What:   "identity user",
		List:   once(identity.Users),
		Name:   locatedName,
		ID:     locatedID,
		Delete: func(ctx context.Context, c *cloud.Client, _, id string) error { return identity.DeleteUser(ctx, c, id) },
	}
)

// once lists a global kind (Keystone's) in the default region only: acctest.Sweep visits every
// served region, and the objects of a global kind are the same in each.
func once[T any](list func(context.Context, *cloud.Client) ([]T, error)) func(context.Context, *cloud.Client, string) ([]T, error) {
	return func(ctx context.Context, c *cloud.Client, region string) ([]T, error) {
		if region != c.DefaultRegion() {
			return nil, nil
		}

		return list(ctx, c)
	}
}

func locatedName(l cloud.Located) string { return l.Name }
func locatedID(l cloud.Located) string   { return l.ID }
