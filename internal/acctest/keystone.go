package acctest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file holds the Keystone helpers of the tests of human projects and federation
// (unikorn_project, unikorn_federation): a domain of the test's own with users and groups in
// it, made and removed out of band as the service user (cloud admin on the local cloud), and
// direct reads of role assignments.

// TestDomain makes a Keystone domain called after RandomName, as an operator's SSO domain
// would be, and returns its ID. When the test ends the domain is disabled and deleted, which
// deletes the projects, users and groups still in it.
func TestDomain(t *testing.T) string {
	t.Helper()

	sc := AdminKeystone(t)
	enabled := true

	d, err := domains.Create(context.Background(), sc, domains.CreateOpts{Name: RandomName(), Enabled: &enabled}).Extract()
	if err != nil {
		t.Fatalf("creating the test domain: %v", err)
	}

	t.Cleanup(func() {
		ctx, disabled := context.Background(), false

		if _, err := domains.Update(ctx, sc, d.ID, domains.UpdateOpts{Enabled: &disabled}).Extract(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("disabling domain %s: %v", d.ID, err)
		}

		if err := domains.Delete(ctx, sc, d.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting domain %s: %v", d.ID, err)
		}
	})

	return d.ID
}

// CreateUser makes a user called name in domainID and returns its ID.
func CreateUser(t *testing.T, domainID, name string) string {
	t.Helper()

	u, err := users.Create(context.Background(), AdminKeystone(t), users.CreateOpts{Name: name, DomainID: domainID}).Extract()
	if err != nil {
		t.Fatalf("creating user %s in domain %s: %v", name, domainID, err)
	}

	return u.ID
}

// CreateGroup makes a group called name in domainID and returns its ID.
func CreateGroup(t *testing.T, domainID, name string) string {
	t.Helper()

	g, err := groups.Create(context.Background(), AdminKeystone(t), groups.CreateOpts{Name: name, DomainID: domainID}).Extract()
	if err != nil {
		t.Fatalf("creating group %s in domain %s: %v", name, domainID, err)
	}

	return g.ID
}

// RoleID is the ID of the global role name.
func RoleID(t *testing.T, name string) string {
	t.Helper()

	all, err := cloud.ListAll(context.Background(), roles.List(AdminKeystone(t), roles.ListOpts{Name: name}), roles.ExtractRoles, "roles")
	if err != nil {
		t.Fatalf("listing role %s: %v", name, err)
	}

	for _, r := range all {
		if r.Name == name && r.DomainID == "" {
			return r.ID
		}
	}

	t.Fatalf("no global role %s", name)

	return ""
}

// Assign grants role on projectID to the user (or, with group, the group) id, out of band.
func Assign(t *testing.T, projectID, role, id string, group bool) {
	t.Helper()

	opts := roles.AssignOpts{ProjectID: projectID, UserID: id}
	if group {
		opts = roles.AssignOpts{ProjectID: projectID, GroupID: id}
	}

	if err := roles.Assign(context.Background(), AdminKeystone(t), RoleID(t, role), opts).ExtractErr(); err != nil {
		t.Fatalf("granting %s on project %s to %s: %v", role, projectID, id, err)
	}
}

// Unassign revokes role on projectID from the user id, out of band.
func Unassign(t *testing.T, projectID, role, userID string) {
	t.Helper()

	err := roles.Unassign(context.Background(), AdminKeystone(t), RoleID(t, role), roles.UnassignOpts{ProjectID: projectID, UserID: userID}).ExtractErr()
	if err != nil {
		t.Fatalf("revoking %s on project %s from %s: %v", role, projectID, userID, err)
	}
}

// Assignments are the direct role assignments on projectID, each as "role user:<id>" or
// "role group:<id>", sorted.
func Assignments(ctx context.Context, t *testing.T, projectID string) ([]string, error) {
	t.Helper()

	names := true

	all, err := cloud.ListAll(ctx, roles.ListAssignments(AdminKeystone(t), roles.ListAssignmentsOpts{ScopeProjectID: projectID, IncludeNames: &names}),
		roles.ExtractRoleAssignments, "role assignments")
	if err != nil {
		return nil, err
	}

	out := make([]string, 0, len(all))

	for _, a := range all {
		if a.Group.ID != "" {
			out = append(out, fmt.Sprintf("%s group:%s", a.Role.Name, a.Group.ID))
		} else {
			out = append(out, fmt.Sprintf("%s user:%s", a.Role.Name, a.User.ID))
		}
	}

	slices.Sort(out)

	return out, nil
}
