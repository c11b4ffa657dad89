package project_test

import (
	"context"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/project"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// TestAccProject_requestCount logs, and bounds, the HTTP requests of one create and one refresh
// of a project with 3 role bindings (a user, a group of the domain and the project's own group)
// and quotas, from a cold client serving two regions.
func TestAccProject_requestCount(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	ctx := context.Background()
	domainID := acctest.TestDomain(t)
	acctest.CreateUser(t, domainID, "alice")
	acctest.CreateGroup(t, domainID, "auditors")

	c := acctest.FreshClient(t)

	svc, err := project.NewService(c, identity.NewConfig(nil))
	if err != nil {
		t.Fatal(err)
	}

	name := acctest.RandomName()
	spec := project.Spec{
		Name: name, DomainID: domainID, UserDomainID: domainID, Enabled: true, GroupName: naming.ProjectGroup(name),
		Quotas: quota.AllUnlimited(),
		Bindings: []project.Binding{
			{Role: "member", Groups: []string{naming.ProjectGroup(name)}},
			{Role: "reader", Users: []string{"alice"}},
			{Role: "load-balancer_member", Groups: []string{"auditors"}},
		},
	}

	// As Configure does, once per run: the grant check (which the admin scope follows).
	if _, err := c.CheckGrants(ctx, cloud.FeatureQuotas); err != nil {
		t.Fatal(err)
	}

	before, methods := c.RequestCount(), c.RequestCountByMethod()

	out, err := svc.Ensure(ctx, spec, project.Prior{})
	if out != nil {
		t.Cleanup(func() {
			if err := svc.Delete(context.Background(), project.Ref{ProjectID: out.ID, GroupID: out.GroupID}, true); err != nil {
				t.Error(err)
			}
		})
	}

	if err != nil {
		t.Fatal(err)
	}

	created, createdBy := c.RequestCount()-before, acctest.RequestsSince(methods, c.RequestCountByMethod())
	before, methods = c.RequestCount(), c.RequestCountByMethod()

	got, _, err := svc.Observe(ctx, project.Ref{
		ProjectID: out.ID, Name: name, DomainID: domainID, GroupID: out.GroupID, GroupName: out.GroupName,
		UserDomainID: domainID, Bindings: spec.Bindings,
	}, spec.Quotas)
	if err != nil {
		t.Fatal(err)
	}

	refreshed, refreshedBy := c.RequestCount()-before, acctest.RequestsSince(methods, c.RequestCountByMethod())

	if len(got.Bindings) != 3 || len(got.Foreign) != 0 || !got.Quotas.Equal(spec.Quotas) {
		t.Fatalf("refreshed %+v; want the 3 bindings held, no foreign assignment, the quotas", got)
	}

	t.Logf("unikorn_project with 3 role bindings, %d regions: create %d requests %v, refresh %d requests %v",
		len(c.Regions()), created, createdBy, refreshed, refreshedBy)

	// Create: the listing of Keystone's roles, one lookup each of the user and the group by
	// name, the looks for the project's and the group's names, the project, the group, the
	// service user's 3 grants, the 3 bindings, the project check, a quota PUT per service and
	// region, the discovery of the versions of 2 of the quota services' endpoints per region (a
	// cold client), and the completion mark. Refresh: project, group, role assignments, the
	// project check, a quota GET per service and region.
	regions := int64(len(c.Regions()))

	if budgetCreate, budgetRefresh := 15+6*regions, 4+4*regions; created > budgetCreate || refreshed > budgetRefresh {
		t.Errorf("over budget: create %d (%d), refresh %d (%d)", created, budgetCreate, refreshed, budgetRefresh)
	}
}
