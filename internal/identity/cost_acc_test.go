package identity_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
)

// TestAccIdentity_requestCount measures the HTTP requests of one create and one refresh of an
// identity, each from a cold client (as a new Terraform run starts: the provider's own
// authentication at configure time is not counted), and fails when they grow past a budget.
// Keystone's role lag (see ensurer.asUser) costs two requests per retry (the refused POST and a
// new token) and comes and goes with the machine's load: the retries are counted (each is a
// refused POST; a create that succeeds has no other) and added to the budget, so the budget measures the algorithm. The identity
// scope costs two reads once per project and run when it authenticates through the trust (a create
// acts with the user's own token instead, taken for the trust): the check that the project is an identity
// (cloud.CheckIdentityProject) and its user's ID, the one trustor its trust may have. The refresh
// reads the project (the run's one read, which every tenant of the identity shares), the user, its
// roles (one listing), the credential, the trust and each served region's quotas; the manager
// scope's token names the managed domain, which costs no lookup.
func TestAccIdentity_requestCount(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	cases := []struct {
		name                        string
		spec                        func(name string) identity.Spec
		createBudget, refreshBudget int64
	}{
		{"minimal", func(name string) identity.Spec {
			return identity.Spec{Name: name, Roles: identity.DefaultRoles, Quotas: identity.UnlimitedQuotas()}
		}, 31, 17},
		{"server group and keypair", func(name string) identity.Spec {
			return identity.Spec{
				Name: name, Roles: identity.DefaultRoles, Quotas: identity.UnlimitedQuotas(),
				ServerGroupPolicy: identity.DefaultServerGroupPolicy, SSHPublicKey: acctest.SSHPublicKey(t),
			}
		}, 45, 25},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			name := acctest.IdentityName()
			spec := tc.spec(name)

			// Configured as the provider is: the grant check belongs to Configure, not counted.
			c := acctest.FreshClient(t)
			if _, err := c.CheckGrants(ctx, cloud.FeatureQuotas); err != nil {
				t.Fatal(err)
			}

			svc := identity.NewService(c, identity.NewConfig(nil))

			before, methods, lags := c.RequestCount(), c.RequestCountByMethod(), refusals(c)

			out, err := svc.Ensure(ctx, spec, identity.Prior{})

			t.Cleanup(func() {
				if out != nil && out.ProjectID != "" {
					ref := identity.Ref{ProjectID: out.ProjectID, Name: name, UserID: out.UserID, Roles: spec.Roles}
					if _, err := identity.NewService(acctest.Client(t), identity.NewConfig(nil)).Delete(ctx, ref, false); err != nil {
						t.Errorf("deleting %s: %v", name, err)
					}
				}
			})

			if err != nil {
				t.Fatal(err)
			}

			create, lags := c.RequestCount()-before, refusals(c)-lags
			t.Logf("create: %d requests %v, %d role-lag retries; %d tokens in the run, configure's included",
				create, acctest.RequestsSince(methods, c.RequestCountByMethod()), lags, c.TokenCount())

			// The run's tokens: the configured scope, the manager scope, the user's own (for the
			// trust and the credential, then the identity scope) and, for the quotas of the
			// inherited model, the privileged one. A role-lag retry asks for one more user token.
			if tokens := c.TokenCount() - lags; tokens > acctest.TokenBudget {
				t.Errorf("the create's run asked for %d tokens besides %d role-lag retries (budget %d)", tokens, lags, acctest.TokenBudget)
			}

			// A refresh, as the next run's plan does it: a new client.
			c2 := acctest.FreshClient(t)
			svc2 := identity.NewService(c2, identity.NewConfig(nil))
			before, methods = c2.RequestCount(), c2.RequestCountByMethod()

			got, err := svc2.Observe(ctx, identity.Ref{
				ProjectID: out.ProjectID, Name: name, UserID: out.UserID,
				ApplicationCredentialID: out.ApplicationCredentialID, ApplicationCredentialSecret: out.ApplicationCredentialSecret,
				CheckNova: spec.ServerGroupPolicy != "" || spec.SSHPublicKey != "",
			}, spec.Quotas)
			if err != nil {
				t.Fatal(err)
			}

			refresh := c2.RequestCount() - before
			t.Logf("refresh: %d requests %v", refresh, acctest.RequestsSince(methods, c2.RequestCountByMethod()))

			if got == nil || got.TrustID != out.TrustID || got.ApplicationCredentialID != out.ApplicationCredentialID || !got.Quotas.Equal(spec.Quotas) {
				t.Fatalf("refresh found %+v after create %+v", got, out)
			}

			if create-2*lags > tc.createBudget || refresh > tc.refreshBudget {
				t.Fatalf("create %d with %d role-lag retries (budget %d + 2 per retry), refresh %d (budget %d) requests",
					create, lags, tc.createBudget, refresh, tc.refreshBudget)
			}
		})
	}
}

// refusals counts the answers asUser may take for Keystone's role lag: refused POSTs.
func refusals(c *cloud.Client) int64 {
	return c.RefusedCount(http.MethodPost)
}
