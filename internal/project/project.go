// Package project is unikorn_project: a Keystone project for people (in the managed domain or
// an SSO domain), with a user group made with it, quotas in every served region, role
// bindings of users and groups, and the service user's grants that let networks and security
// groups live in it (project_id). The project carries the tag naming.HumanProjectTag, by which
// cloud.ProjectTenant recognises it.
//
// The core holds no Terraform types: [Service.Ensure] (ensure.go) creates or converges a project,
// [Service.Observe] (observe.go) reads it back, [Service.Delete] (delete.go) removes it, refusing
// while it holds tenant objects (internal/leftovers); keystone.go holds the Keystone calls and
// bindings.go the convergence of role assignments. The quotas are internal/quota's, the same as
// unikorn_identity's. resource.go, schema.go, model.go and plan.go adapt the core to
// terraform-plugin-framework. Everything is done as the service user in its own project's scope,
// which holds the cloud-admin grant (like the other region-preparation resources).
package project

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// TypeName is the resource type of a project's ownership marks (on the project and its group).
const TypeName = "unikorn_project"

// UnmanageableError is a project that a unikorn_project may never be: one in Keystone's Default
// domain, one named like an identity's, or the service user's own.
type UnmanageableError struct {
	// Name and ID name the project (no ID: the configured one, before it exists).
	Name, ID string
	// Attribute is the configuration's attribute that makes it so ("name", "domain_id"); "" for
	// an existing project (an import).
	Attribute string
	Reason    string
}

func (e *UnmanageableError) Error() string {
	what := fmt.Sprintf("project %q", e.Name)
	if e.ID != "" {
		what += " (" + e.ID + ")"
	}

	return fmt.Sprintf("%s cannot be a unikorn_project: %s", what, e.Reason)
}

// Summary is the summary of the refusal's diagnostic.
func (e *UnmanageableError) Summary() string {
	if e.Attribute == "domain_id" {
		return "Project in the Default domain"
	}

	return "Not a project for unikorn_project"
}

// CheckManageable refuses a project (domainID, name and, once it exists, id) that a
// unikorn_project may never be (Unmanageable), or the service user's own project. Checked
// before any write, and on import.
func (s *Service) CheckManageable(domainID, name, id string) error {
	if e := Unmanageable(domainID, name); e != nil {
		if id != "" {
			e.ID, e.Attribute = id, "" // an existing project: nothing in the configuration to change
		}

		return e
	}

	if id != "" && id == s.cloud.Base().ProjectID() {
		return &UnmanageableError{Name: name, ID: id, Reason: "it is the service user's own project"}
	}

	return nil
}

// Unmanageable says why a project of domainID ("" when not known yet) and name may never be a
// unikorn_project (nil when it may): in Keystone's Default domain (the service users' and the
// cloud's own projects); named like an identity's project (naming.IdentityPrefix: a
// unikorn_identity of that name would take the project for its own, and the provider binds such
// a project only as an identity, in any domain).
func Unmanageable(domainID, name string) *UnmanageableError {
	switch {
	case domainID == domain.DefaultDomainID:
		return &UnmanageableError{Name: name, Attribute: "domain_id",
			Reason: "its domain is Keystone's Default domain, which holds the service users and the cloud's own projects"}
	case strings.HasPrefix(name, naming.IdentityPrefix):
		return &UnmanageableError{Name: name, Attribute: "name", Reason: fmt.Sprintf("names beginning with %q are the "+
			"identities' (a unikorn_identity of that name would take the project for its own); give the project another name",
			naming.IdentityPrefix)}
	}

	return nil
}

// Spec is what a project should be.
type Spec struct {
	Name, Description string
	// DomainID is the project's domain (resolved: the managed domain when not configured).
	DomainID string
	Enabled  bool
	// Tags are the user's tags (without naming.HumanProjectTag, which is always written).
	Tags []string
	// GroupName is the name of the project's group, in DomainID.
	GroupName string
	// UserDomainID is where the users, and the groups given by name, of Bindings are.
	UserDomainID string
	Quotas       quota.Set
	Bindings     []Binding
}

// Binding grants Role (a global Keystone role, by name) on the project to users (by name in
// the user domain) and groups (by name in the user domain, or by ID).
type Binding struct {
	Role   string
	Users  []string
	Groups []string
}

// Prior is what an earlier apply recorded: what Ensure may keep, and the bindings it made
// (those no longer wanted are removed). The zero Prior is a create.
type Prior struct {
	ProjectID, GroupID string
	UserDomainID       string
	Bindings           []Binding
	// Quotas last applied or read; nil: apply them.
	Quotas quota.Set
}

// Project is a project as found in the cloud.
type Project struct {
	ID, Name, Description, DomainID string
	Enabled                         bool
	// Tags are the project's tags other than naming.HumanProjectTag.
	Tags []string
	// Marked says that the project carries naming.HumanProjectTag.
	Marked bool

	GroupID, GroupName string // "" when the group is missing

	// Quotas as found, merged over the regions (quota.Merge); nil when not read.
	Quotas quota.Set
	// Bindings are the recorded (or wanted) bindings as they hold: each keeps only the users
	// and groups that hold its role. On import (nothing recorded), every assignment that is not
	// the service user's, as a binding per role.
	Bindings []Binding
	// Foreign are the role assignments on the project that are neither the bindings' nor the
	// service user's: made by others, left alone.
	Foreign []Assignment
}

// Notice is something the user should see as a warning.
type Notice struct {
	Summary, Detail string
}

// Notices are the warnings of what was found: assignments made by others.
func (p *Project) Notices() []Notice {
	if len(p.Foreign) == 0 {
		return nil
	}

	names := make([]string, len(p.Foreign))
	for i, a := range p.Foreign {
		names[i] = a.String()
	}

	slices.Sort(names)

	return []Notice{{
		Summary: "Role assignments not made by this project",
		Detail: fmt.Sprintf("Project %s has %d role assignment(s) that neither its role_bindings nor the provider made: %v. "+
			"They are left alone; add them to role_bindings to manage them here.", p.ID, len(names), names),
	}}
}

// Service runs project operations as the service user with its cloud-admin grant.
type Service struct {
	*domain.Admin

	cloud *cloud.Client
	roles *identity.Config
}

// NewService is the project core of c; roles maps the service user's role names and holds the
// run's listing of Keystone's roles.
func NewService(c *cloud.Client, roles *identity.Config) (*Service, error) {
	a, err := domain.NewAdmin(c)
	if err != nil {
		return nil, err
	}

	if roles == nil {
		roles = identity.NewConfig(nil)
	}

	return &Service{Admin: a, cloud: c, roles: roles}, nil
}

// tenants binds the project in every served region with scope (Privileged or Admin).
func (s *Service) tenants(ctx context.Context, projectID string, scope cloud.Scope) ([]*cloud.Tenant, error) {
	out := make([]*cloud.Tenant, 0, len(s.cloud.Regions()))

	for _, region := range s.cloud.Regions() {
		t, err := s.cloud.ProjectTenant(ctx, projectID, region, scope)
		if err != nil {
			return nil, err
		}

		out = append(out, t)
	}

	return out, nil
}

// CheckRoles tells which of the role names are no global role of Keystone (nil when all are),
// from the run's one listing of Keystone's roles: the plan-time check of role_bindings.
func (s *Service) CheckRoles(ctx context.Context, names []string) ([]string, error) {
	_, err := s.roles.KeystoneRoleIDs(ctx, s.Keystone, names)

	var unknown *identity.UnknownRolesError

	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &unknown):
		return unknown.Names, nil
	}

	return nil, s.Refused("listing roles", err)
}
