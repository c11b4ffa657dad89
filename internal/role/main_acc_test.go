package role_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_role", nil, sweepRoles)
}

// sweepRoles deletes the global roles, and the roles of every domain, whose names carry the
// test prefix. Run with `go test ./internal/role/ -sweep=all`.
var sweepRoles = acctest.GlobalSweep("role", role.NewService,
	func(ctx context.Context, svc *role.Service) ([]roles.Role, error) {
		ds, err := cloud.ListAll(ctx, domains.List(svc.Keystone, domains.ListOpts{}), domains.ExtractDomains, "domains")
		if err != nil {
			return nil, err
		}

		var all []roles.Role

		var errs []error

		for _, domainID := range append([]string{""}, ids(ds)...) {
			rs, err := cloud.ListAll(ctx, roles.List(svc.Keystone, roles.ListOpts{DomainID: domainID}), roles.ExtractRoles, "roles")
			all, errs = append(all, rs...), append(errs, err)
		}

		return all, errors.Join(errs...)
	},
	func(r roles.Role) (string, string) { return r.Name, r.ID },
	func(ctx context.Context, svc *role.Service, r roles.Role) error { return svc.Delete(ctx, r.ID) })

func ids(ds []domains.Domain) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}

	return out
}

func service(t *testing.T) *role.Service {
	t.Helper()

	svc, err := role.NewService(acctest.Client(t))
	if err != nil {
		t.Fatal(err)
	}

	return svc
}

// checkRoleDestroy asks Keystone that every unikorn_role and unikorn_domain of the state is
// gone.
func checkRoleDestroy(t *testing.T) func(*terraform.State) error {
	return acctest.CheckGone(map[string]acctest.Getter{
		"unikorn_role": func(ctx context.Context, a map[string]string) error {
			return roles.Get(ctx, acctest.AdminKeystone(t), a["id"]).Err
		},
		"unikorn_domain": func(ctx context.Context, a map[string]string) error {
			return domains.Get(ctx, acctest.AdminKeystone(t), a["id"]).Err
		},
	})
}

// checkKeystoneRole asks Keystone that the role at address is what the state says: name,
// domain, description and the set of implied roles, and the only one of its name.
func checkKeystoneRole(t *testing.T, address string) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {

		r, err := service(t).Get(context.Background(), a["id"])
		if err != nil || r == nil {
			return fmt.Errorf("reading role %s: %+v, %v", a["id"], r, err)
		}

		implies := acctest.SetValues(a, "implies")

		if r.Name != a["name"] || r.DomainID != a["domain_id"] || r.Description != a["description"] || !slices.Equal(r.Implies, implies) {
			return fmt.Errorf("keystone has %+v, the state %v", r, a)
		}

		if found, err := service(t).Find(context.Background(), r.Name, r.DomainID); err != nil || found == nil || found.ID != r.ID {
			return fmt.Errorf("finding %s by name: %+v, %v", r.Name, found, err)
		}

		return nil
	})
}
