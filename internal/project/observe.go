package project

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Ref is what the state records of a project: where Observe and Delete start from.
type Ref struct {
	ProjectID, Name, DomainID string
	GroupID, GroupName        string
	UserDomainID              string
	// Bindings are the recorded bindings; nil with Imported, when nothing is recorded.
	Bindings []Binding
	Imported bool
}

// Observe reads the project back: the project by its ID (and, when that is gone, by its name
// in its domain, if a create of unikorn_project may take it: an interrupted create, cloud.Owns;
// a notice then says so), its group by ID (or by name: one that carries the creation mark of
// unikorn_project, or any on import), the role assignments (one listing) and the quotas of
// every served region, merged against want (quota.Merge). It returns nil when the project is
// gone.
func (s *Service) Observe(ctx context.Context, ref Ref, want quota.Set) (*Project, []Notice, error) {
	var notices []Notice

	p, err := s.getProject(ctx, ref.ProjectID)
	if err != nil {
		return nil, nil, err
	}

	if p == nil && ref.Name != "" && ref.DomainID != "" {
		if p, err = s.findProject(ctx, ref.DomainID, ref.Name); err != nil {
			return nil, nil, err
		}

		if p != nil && !cloud.Owns(TypeName, naming.MarkOf(p.Extra)) {
			p = nil
		}

		if p != nil {
			notices = append(notices, refound("project", p.Name, ref.ProjectID, p.ID))
		}
	}

	if p == nil {
		return nil, nil, nil
	}

	out := &Project{ID: p.ID, Name: p.Name, Description: p.Description, DomainID: p.DomainID, Enabled: p.Enabled}
	out.Tags, out.Marked = userTags(p.Tags)

	groupName := ref.GroupName
	if groupName == "" {
		groupName = naming.ProjectGroup(p.Name)
	}

	g, gn, err := s.observeGroup(ctx, ref.GroupID, p.DomainID, groupName, ref.Imported)
	if err != nil {
		return nil, nil, err
	}

	notices = append(notices, gn...)

	userDomainID := ref.UserDomainID
	if userDomainID == "" {
		userDomainID = p.DomainID
	}

	o := owner{userDomainID: userDomainID, groupName: groupName, serviceUserID: s.cloud.ServiceUserID()}

	if g != nil {
		out.GroupID, out.GroupName, o.groupID = g.ID, g.Name, g.ID
	}

	current, err := s.listAssignments(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}

	if ref.Imported {
		out.Bindings, out.Foreign = adopt(current, o)
	} else {
		c := converge(current, ref.Bindings, o, nil, o)
		out.Bindings, out.Foreign = c.held, c.foreign
	}

	if out.Marked {
		// Only a project of unikorn_project can be bound (an imported one gets the mark on the
		// next apply, which then sets its quotas).
		admin, err := s.tenants(ctx, p.ID, cloud.Admin)
		if err != nil {
			return nil, nil, err
		}

		if out.Quotas, err = quota.Read(ctx, admin, want); err != nil {
			return nil, nil, err
		}
	}

	return out, notices, nil
}

// observeGroup reads the project's group by its recorded ID, or when that is gone (or none is
// recorded) by its name in the project's domain: on import any group of the name (the import
// takes the project with its group), otherwise only one that carries the creation mark of
// unikorn_project (a part is re-found by name only when it is this type's); nil when there is
// none.
func (s *Service) observeGroup(ctx context.Context, id, domainID, name string, imported bool) (*groups.Group, []Notice, error) {
	if id != "" {
		g, err := s.getGroup(ctx, id)
		if err != nil || g != nil {
			return g, nil, err
		}
	}

	g, err := s.findGroup(ctx, domainID, name)
	if err != nil || g == nil {
		return nil, nil, err
	}

	if !imported && naming.MarkOf(g.Extra).Kind != TypeName {
		return nil, nil, nil
	}

	if id == "" {
		return g, nil, nil
	}

	return g, []Notice{refound("group", g.Name, id, g.ID)}, nil
}

// refound announces that the object recorded as oldID is gone and the one of its name, newID,
// is taken for it: before a plan acts on it.
func refound(kind, name, oldID, newID string) Notice {
	return Notice{
		Summary: "Project found again by name",
		Detail: fmt.Sprintf("The %s %s recorded in the state is gone; the %s of the same name %q (%s) is recorded instead. "+
			"If that is not this project's, remove the project from the state (terraform state rm) before applying.",
			kind, oldID, kind, name, newID),
	}
}

// Locate finds a project to import: by ID, else by exact name in the managed domain, or
// `DOMAIN_ID/name` for a project of another domain. A project that may not be a
// unikorn_project (CheckManageable) is refused.
func (s *Service) Locate(ctx context.Context, importID string) (cloud.Located, error) {
	var found *projects.Project

	loc, err := domain.Locator[projects.Project]{
		Get: s.getProject,
		Find: func(ctx context.Context, domainID, name string) (*projects.Project, error) {
			return s.findProject(ctx, domainID, name)
		},
		Scoped:        true,
		DefaultDomain: s.cloud.ManagedDomainID,
		Located: func(p *projects.Project) cloud.Located {
			found = p
			return cloud.Located{ID: p.ID, Name: p.Name}
		},
		Missing: func(importID, domainID, name string) error {
			return fmt.Errorf("no project with the ID %q, nor named %q in domain %s", importID, name, domainID)
		},
	}.Locate(ctx, importID)
	if err != nil {
		return loc, err
	}

	return loc, s.CheckManageable(found.DomainID, found.Name, found.ID)
}
