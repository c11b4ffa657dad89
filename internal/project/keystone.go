package project

import (
	"context"
	"fmt"
	"regexp"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

// The Keystone calls of a project, all on the service user's cloud-admin client (s.Keystone).

// getProject reads project id; nil when it does not exist.
func (s *Service) getProject(ctx context.Context, id string) (*projects.Project, error) {
	p, err := projects.Get(ctx, s.Keystone, id).Extract()

	if found, err := s.Found("reading project "+id, err); !found {
		return nil, err
	}

	return p, nil
}

// findProject finds the project named exactly name in domainID; nil when there is none.
func (s *Service) findProject(ctx context.Context, domainID, name string) (*projects.Project, error) {
	p, err := cloud.FindOne(ctx, projects.List(s.Keystone, projects.ListOpts{DomainID: domainID, Name: name}), projects.ExtractProjects,
		"project", name, func(p projects.Project) string { return p.Name }, func(p projects.Project) string { return p.ID })

	return p, s.Refused("listing the projects of domain "+domainID, err)
}

// getGroup reads group id; nil when it does not exist.
func (s *Service) getGroup(ctx context.Context, id string) (*groups.Group, error) {
	g, err := groups.Get(ctx, s.Keystone, id).Extract()

	if found, err := s.Found("reading group "+id, err); !found {
		return nil, err
	}

	return g, nil
}

// findGroup finds the group named exactly name in domainID; nil when there is none.
func (s *Service) findGroup(ctx context.Context, domainID, name string) (*groups.Group, error) {
	g, err := cloud.FindOne(ctx, groups.List(s.Keystone, groups.ListOpts{DomainID: domainID, Name: name}), groups.ExtractGroups,
		"group", name, func(g groups.Group) string { return g.Name }, func(g groups.Group) string { return g.ID })

	return g, s.Refused("listing the groups of domain "+domainID, err)
}

// findUser finds the user named exactly name in domainID; nil when there is none.
func (s *Service) findUser(ctx context.Context, domainID, name string) (*users.User, error) {
	u, err := cloud.FindOne(ctx, users.List(s.Keystone, users.ListOpts{DomainID: domainID, Name: name}), users.ExtractUsers,
		"user", name, func(u users.User) string { return u.Name }, func(u users.User) string { return u.ID })

	return u, s.Refused("listing the users of domain "+domainID, err)
}

// keystoneIDPattern is the form of the IDs Keystone gives groups it stores (uuid4 hex).
var keystoneIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Assignment is a role assignment on the project, with the names Keystone includes.
type Assignment struct {
	RoleID, RoleName string
	// A user's assignment has UserID set, a group's GroupID; the domain is the user's or group's.
	UserID, GroupID, Name, DomainID string
}

func (a Assignment) String() string {
	kind, id := "user", a.UserID
	if a.GroupID != "" {
		kind, id = "group", a.GroupID
	}

	return fmt.Sprintf("role %s of %s %s (%s, domain %s)", a.RoleName, kind, a.Name, id, a.DomainID)
}

// assignmentPage is Keystone's answer of GET /v3/role_assignments with names, with what
// gophercloud's RoleAssignment drops: whether the assignment is inherited to subprojects.
type assignmentPage struct {
	RoleAssignments []struct {
		Role struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"role"`
		User  actor `json:"user"`
		Group actor `json:"group"`
		Scope struct {
			Project struct {
				ID string `json:"id"`
			} `json:"project"`
			InheritedTo string `json:"OS-INHERIT:inherited_to"`
		} `json:"scope"`
	} `json:"role_assignments"`
}

type actor struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Domain struct {
		ID string `json:"id"`
	} `json:"domain"`
}

// listAssignments lists the direct role assignments on projectID (not those inherited to its
// subprojects), with names: one request.
func (s *Service) listAssignments(ctx context.Context, projectID string) ([]Assignment, error) {
	includeNames := true

	var out []Assignment

	pager := roles.ListAssignments(s.Keystone, roles.ListAssignmentsOpts{ScopeProjectID: projectID, IncludeNames: &includeNames})

	err := pager.EachPage(ctx, func(_ context.Context, page pagination.Page) (bool, error) {
		rp, ok := page.(roles.RoleAssignmentPage)
		if !ok {
			return false, fmt.Errorf("unexpected page %T of role assignments", page)
		}

		var body assignmentPage
		if err := rp.ExtractInto(&body); err != nil {
			return false, err
		}

		for _, a := range body.RoleAssignments {
			if a.Scope.Project.ID != projectID || a.Scope.InheritedTo != "" {
				continue
			}

			got := Assignment{RoleID: a.Role.ID, RoleName: a.Role.Name, UserID: a.User.ID, GroupID: a.Group.ID,
				Name: a.User.Name, DomainID: a.User.Domain.ID}
			if a.Group.ID != "" {
				got.Name, got.DomainID = a.Group.Name, a.Group.Domain.ID
			}

			out = append(out, got)
		}

		return true, nil
	})
	if err != nil {
		return nil, s.Refused("listing the role assignments of project "+projectID, err)
	}

	return out, nil
}

// assign grants the role of a on projectID to its user or group; granting is idempotent.
func (s *Service) assign(ctx context.Context, projectID string, a Assignment) error {
	err := roles.Assign(ctx, s.Keystone, a.RoleID, roles.AssignOpts{UserID: a.UserID, GroupID: a.GroupID, ProjectID: projectID}).ExtractErr()

	return s.Refused(fmt.Sprintf("granting %s on project %s", a, projectID), err)
}

// unassign revokes the role of a on projectID; one that is not there is fine.
func (s *Service) unassign(ctx context.Context, projectID string, a Assignment) error {
	err := roles.Unassign(ctx, s.Keystone, a.RoleID, roles.UnassignOpts{UserID: a.UserID, GroupID: a.GroupID, ProjectID: projectID}).ExtractErr()
	if domain.NotFound(err) {
		return nil
	}

	return s.Refused(fmt.Sprintf("revoking %s on project %s", a, projectID), err)
}
