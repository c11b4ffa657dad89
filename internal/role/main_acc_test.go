package role_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
)

func TestMain(m *testing.M) {
	acctest.AddSweeper("unikorn_role", nil, sweepRoles)
	resource.TestMain(m)
}

// sweepRoles deletes the global roles, and the roles of every domain, whose names carry the
// test prefix (Keystone is global: one pass). Run with `go test ./internal/role/ -sweep=all`.
func sweepRoles(ctx context.Context, c *cloud.Client) error {
	svc, err := role.NewService(c)
	if err != nil {
		return err
	}

	ds, err := cloud.ListAll(ctx, domains.List(svc.Keystone, domains.ListOpts{}), domains.ExtractDomains, "domains")
	if err != nil {
		return err
	}

	var errs []error

	for _, domainID := range append([]string{""}, ids(ds)...) {
		all, err := cloud.ListAll(ctx, roles.List(svc.Keystone, roles.ListOpts{DomainID: domainID}), roles.ExtractRoles, "roles")
		if err != nil {
			errs = append(errs, err)
			continue
		}

		for _, r := range all {
			if strings.HasPrefix(r.Name, acctest.NamePrefix) {
				errs = append(errs, svc.Delete(ctx, r.ID))
			}
		}
	}

	return errors.Join(errs...)
}

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
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			var err error

			switch rs.Type {
			case "unikorn_role":
				_, err = roles.Get(context.Background(), acctest.AdminKeystone(t), rs.Primary.ID).Extract()
			case "unikorn_domain":
				_, err = domains.Get(context.Background(), acctest.AdminKeystone(t), rs.Primary.ID).Extract()
			default:
				continue
			}

			switch {
			case err == nil:
				return fmt.Errorf("%s %s (%s) still exists", rs.Type, rs.Primary.Attributes["name"], rs.Primary.ID)
			case !domain.NotFound(err):
				return err
			}
		}

		return nil
	}
}

// checkKeystoneRole asks Keystone that the role at address is what the state says: name,
// domain, description and the set of implied roles, and the only one of its name.
func checkKeystoneRole(t *testing.T, address string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}

		a := rs.Primary.Attributes

		r, err := service(t).Get(context.Background(), a["id"])
		if err != nil || r == nil {
			return fmt.Errorf("reading role %s: %+v, %v", a["id"], r, err)
		}

		var implies []string

		for k, v := range a {
			if strings.HasPrefix(k, "implies.") && k != "implies.#" {
				implies = append(implies, v)
			}
		}

		slices.Sort(implies)

		if r.Name != a["name"] || r.DomainID != a["domain_id"] || r.Description != a["description"] || !slices.Equal(r.Implies, implies) {
			return fmt.Errorf("keystone has %+v, the state %v", r, a)
		}

		if found, err := service(t).Find(context.Background(), r.Name, r.DomainID); err != nil || found == nil || found.ID != r.ID {
			return fmt.Errorf("finding %s by name: %+v, %v", r.Name, found, err)
		}

		return nil
	}
}

// captureID records the ID of the resource at address.
func captureID(address string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}

		*id = rs.Primary.ID

		return nil
	}
}

// roleID is the ID of the global role name.
func roleID(t *testing.T, name string) string {
	t.Helper()

	r, err := service(t).Find(context.Background(), name, "")
	if err != nil || r == nil {
		t.Fatalf("global role %s: %+v, %v", name, r, err)
	}

	return r.ID
}
