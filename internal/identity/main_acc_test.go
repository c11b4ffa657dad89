package identity_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	resource.AddTestSweepers("unikorn_identity", &resource.Sweeper{
		Name: "unikorn_identity",
		F:    sweepIdentities,
	})

	resource.TestMain(m)
}

// sweepIdentities deletes every identity (with its tenant objects) and identity user whose
// name carries the acceptance tests' prefix. Run with
// `go test ./internal/identity/ -sweep=all` and the environment of the local cloud.
func sweepIdentities(_ string) error {
	ctx := context.Background()

	c, err := cloud.New(ctx, cloud.Config{
		Cloud:      os.Getenv("OS_CLOUD"),
		CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
		Regions:    acctest.Regions(),
		Domain:     os.Getenv("UNIKORN_DOMAIN"),
	})
	if err != nil {
		return err
	}

	domainID, err := c.ManagedDomainID(ctx)
	if err != nil {
		return err
	}

	mgr, err := c.Manager(ctx)
	if err != nil {
		return err
	}

	sc, err := mgr.Keystone()
	if err != nil {
		return err
	}

	prefix := naming.IdentityPrefix + acctest.NamePrefix
	svc := identity.NewService(c, identity.NewConfig(nil))

	var errs []error

	pages, err := projects.List(sc, projects.ListOpts{DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return err
	}

	ps, err := projects.ExtractProjects(pages)
	if err != nil {
		return err
	}

	for _, p := range ps {
		if strings.HasPrefix(p.Name, prefix) {
			name := strings.TrimPrefix(p.Name, naming.IdentityPrefix)
			errs = append(errs, svc.Delete(ctx, identity.Ref{ProjectID: p.ID, Name: name, Roles: identity.DefaultRoles}, true))
		}
	}

	upages, err := users.List(sc, users.ListOpts{DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return err
	}

	us, err := users.ExtractUsers(upages)
	if err != nil {
		return err
	}

	for _, u := range us {
		if strings.HasPrefix(u.Name, prefix) {
			if err := users.Delete(ctx, sc, u.ID).ExtractErr(); err != nil {
				errs = append(errs, fmt.Errorf("user %s: %w", u.ID, err))
			}
		}
	}

	return errors.Join(errs...)
}
