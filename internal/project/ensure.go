package project

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// Ensure makes the cloud hold the project of spec, given what the prior apply recorded (the
// zero Prior on create), and returns what it holds afterwards. Every check comes before the
// first write: the project may be a unikorn_project at all (CheckManageable: not in Keystone's
// Default domain, not named like an identity, not the service user's own); on create every role
// and every user and group of the bindings is resolved, and the project and group of the names
// are looked for, so that a name that does not exist, or a project or group this create may not
// adopt (a *cloud.ExistsError: import it instead), makes nothing. A project that an interrupted
// create of a unikorn_project left unfinished is adopted, with its group when that carries the
// same creation mark. A create ends with the project's completion mark. A refusal by a check
// returns no Project (nothing was written: an update keeps its prior state); on a later error
// the returned Project holds what exists so far (at least its ID once the project exists), for
// the caller to record.
func (s *Service) Ensure(ctx context.Context, spec Spec, prior Prior) (*Project, error) {
	e := &ensurer{svc: s, spec: spec, prior: prior, resolved: map[entry]Assignment{}}

	err := e.run(ctx)
	if e.out.ID == "" || !e.checked {
		return nil, err // nothing written: an update keeps its prior state
	}

	return e.out, err
}

// ensurer is one run of Ensure.
type ensurer struct {
	svc   *Service
	spec  Spec
	prior Prior
	out   *Project

	roleIDs  map[string]string    // Keystone role name → ID: the bindings' and the service user's
	resolved map[entry]Assignment // the bindings' users and groups resolved so far
	owner    owner

	// project and group are what the looks before the first write found: the recorded project,
	// or on create the one of the name that is adopted, and the group of the name that is
	// adopted with it (nil: none).
	project  *projects.Project
	ownGroup *groups.Group
	mark     naming.Mark // the project's marks
	// checked says that every check passed: what follows writes.
	checked bool
}

func (e *ensurer) run(ctx context.Context) error {
	s, spec := e.svc, e.spec
	e.out = &Project{ID: e.prior.ProjectID, Quotas: e.prior.Quotas.Clone(), Bindings: e.prior.Bindings}
	creating := e.prior.ProjectID == ""

	if err := s.CheckManageable(spec.DomainID, spec.Name, ""); err != nil {
		return err
	}

	roles := slices.Clone(s.roles.ServiceRoles())
	for _, b := range spec.Bindings {
		roles = append(roles, b.Role)
	}

	var err error
	if e.roleIDs, err = s.roles.KeystoneRoleIDs(ctx, s.Keystone, roles); err != nil {
		return fmt.Errorf("role_bindings: %w", err)
	}

	e.owner = owner{userDomainID: spec.UserDomainID, groupName: spec.GroupName, serviceUserID: s.cloud.ServiceUserID()}

	if creating {
		// Everything the bindings name, but the project's own group, before anything is made.
		for _, en := range entries(spec.Bindings) {
			if !en.group || en.ref != spec.GroupName {
				if _, err := e.resolve(ctx, en); err != nil {
					return err
				}
			}
		}

		if err := e.claim(ctx); err != nil {
			return err
		}
	} else if err := e.recorded(ctx); err != nil {
		return err
	}

	e.checked = true

	p, err := e.ensureProject(ctx)
	if err != nil {
		return err
	}

	e.out.ID, e.out.Name, e.out.Description, e.out.DomainID, e.out.Enabled = p.ID, p.Name, p.Description, p.DomainID, p.Enabled
	e.out.Tags, e.out.Marked = userTags(p.Tags)
	ctx = tflog.SetField(ctx, "project_id", p.ID)

	if err := e.ensureGroup(ctx, p.ID); err != nil {
		return err
	}

	if err := e.ensureBindings(ctx, p.ID, creating && e.project == nil); err != nil {
		return err
	}

	// Before the first write in a region (quotas, and the networks later made in it): the
	// project's record of the regions it was applied in (leftovers.Regions).
	if p, err = leftovers.Remember(ctx, s.Keystone, p, s.cloud.Regions()); err != nil {
		return err
	}

	if e.prior.Quotas == nil || !e.prior.Quotas.Equal(spec.Quotas) {
		admin, err := s.tenants(ctx, p.ID, cloud.Admin)
		if err != nil {
			return err
		}

		if e.out.Quotas, err = quota.Apply(ctx, admin, spec.Quotas); err != nil {
			return err
		}
	} else {
		e.out.Quotas = spec.Quotas.Clone()
	}

	if extra := domain.Completion(TypeName, e.mark); creating && extra != nil {
		if _, err := projects.Update(cloud.Repeatable(ctx), s.Keystone, p.ID, projects.UpdateOpts{Extra: extra}).Extract(); err != nil {
			return s.Refused("marking project "+p.ID+" as created", err)
		}

		tflog.Debug(ctx, "Marked the project as created")
	}

	return nil
}

// claim looks for the project and the group of spec's names before a create writes anything:
// a project this create may adopt (an interrupted create of a unikorn_project) is taken, with its
// group when that carries the same creation mark; anything else of the names is a
// *cloud.ExistsError.
func (e *ensurer) claim(ctx context.Context) error {
	s, spec := e.svc, e.spec

	p, err := s.findProject(ctx, spec.DomainID, spec.Name)
	if err != nil {
		return err
	}

	if p != nil {
		if err := cloud.Adopt(existingProject(p)); err != nil {
			return err
		}

		if err := s.CheckManageable(p.DomainID, p.Name, p.ID); err != nil {
			return err
		}

		tflog.Warn(ctx, "Adopting the project an interrupted create left unfinished", map[string]any{"project_id": p.ID})

		e.project, e.mark = p, naming.MarkOf(p.Extra)
	}

	g, err := s.findGroup(ctx, spec.DomainID, spec.GroupName)
	if err != nil || g == nil {
		return err
	}

	// The group of a project this create makes anew may be no one's (another unikorn_project's
	// group of the same name would be deleted with this one); the group of an adopted project is
	// its own when it carries the creation mark.
	ex := existingGroup(g, spec.Name)
	if err := cloud.Adopt(ex); err != nil {
		return err
	}

	if e.project == nil {
		return &cloud.ExistsError{Existing: ex, Claim: cloud.ClaimUnfinished}
	}

	e.ownGroup = g

	return nil
}

// recorded reads the recorded project, and checks that it may be a unikorn_project (an
// imported project may not be) before anything is written.
func (e *ensurer) recorded(ctx context.Context) error {
	p, err := e.svc.getProject(ctx, e.prior.ProjectID)

	switch {
	case err != nil:
		return err
	case p == nil:
		return fmt.Errorf("project %s is gone: refresh, and the next plan makes it again", e.prior.ProjectID)
	}

	if err := e.svc.CheckManageable(p.DomainID, p.Name, p.ID); err != nil {
		return err
	}

	e.project, e.mark = p, naming.MarkOf(p.Extra)

	return nil
}

// existingProject describes p for the ownership rule (cloud.Adopt) of a create of
// unikorn_project.
func existingProject(p *projects.Project) cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: "project", Name: p.Name, ID: p.ID, Where: "in domain " + p.DomainID,
		ImportID: p.ID, Mark: naming.MarkOf(p.Extra)}
}

// existingGroup describes g, the group of the unikorn_project project, for the ownership rule.
func existingGroup(g *groups.Group, project string) cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: "group", Name: g.Name, ID: g.ID, Where: "in domain " + g.DomainID,
		Part: "unikorn_project " + project, Mark: naming.MarkOf(g.Extra)}
}

// wantTags are the project's tags: the user's and the provider's mark.
func (e *ensurer) wantTags() []string {
	return cloud.SortedSet(append(slices.Clone(e.spec.Tags), naming.HumanProjectTag))
}

// ensureProject brings the project found before (the recorded one, or the one adopted) to the
// spec, or creates it with the creation mark of unikorn_project; then its name, description,
// enabled flag and tags are brought to the spec with one request when something differs.
func (e *ensurer) ensureProject(ctx context.Context) (*projects.Project, error) {
	s, spec := e.svc, e.spec

	if e.project != nil {
		return e.updateProject(ctx, e.project)
	}

	enabled, tags, mark := spec.Enabled, e.wantTags(), naming.MadeFor(TypeName)

	// Keystone keeps project names unique in a domain: no twin can be made.
	p, err := cloud.Create(ctx, cloud.CreateSpec[*projects.Project]{
		Kind: "project", Name: spec.Name,
		Create: func(ctx context.Context) (*projects.Project, error) {
			return projects.Create(ctx, s.Keystone, projects.CreateOpts{
				DomainID: spec.DomainID, Name: spec.Name, Description: spec.Description, Enabled: &enabled, Tags: tags,
				// The served regions are recorded from the first moment, so that a destroy after
				// regions was narrowed still looks into every region the project was applied in.
				Extra: withRegions(mark.Extra(), s.cloud.Regions()),
			}).Extract()
		},
		Find: func(ctx context.Context) ([]*projects.Project, error) {
			return cloud.Optional(s.findProject(ctx, spec.DomainID, spec.Name))
		},
		ID:    func(p *projects.Project) string { return p.ID },
		Adopt: func(p *projects.Project) error { return cloud.Adopt(existingProject(p)) },
	})
	if domain.Conflict(err) {
		if existing, ferr := s.findProject(ctx, spec.DomainID, spec.Name); ferr == nil && existing != nil {
			return nil, domain.Taken(existingProject(existing))
		}
	}

	if err != nil {
		return nil, s.Refused(fmt.Sprintf("creating project %s in domain %s", spec.Name, spec.DomainID), err)
	}

	tflog.Info(ctx, "Created the project", map[string]any{"project_id": p.ID})

	e.mark = naming.MarkOf(p.Extra)

	return p, nil
}

func (e *ensurer) updateProject(ctx context.Context, p *projects.Project) (*projects.Project, error) {
	spec := e.spec
	tags := e.wantTags()

	u, changed := domain.Changes(domain.Fields{Name: p.Name, Description: p.Description, Enabled: &p.Enabled},
		domain.Fields{Name: spec.Name, Description: spec.Description, Enabled: &spec.Enabled})
	opts := projects.UpdateOpts{Name: u.Name, Description: u.Description, Enabled: u.Enabled}

	if !slices.Equal(cloud.SortedSet(p.Tags), tags) {
		opts.Tags, changed = &tags, true
	}

	if !changed {
		return p, nil
	}

	updated, err := projects.Update(ctx, e.svc.Keystone, p.ID, opts).Extract()
	if err != nil {
		return p, e.svc.Refused("updating project "+p.ID, err)
	}

	return updated, nil
}

// ensureGroup keeps the recorded or adopted group (renamed to the spec's name when it
// differs), or makes it in the project's domain with the creation mark of unikorn_project.
func (e *ensurer) ensureGroup(ctx context.Context, projectID string) error {
	s, spec := e.svc, e.spec

	if e.prior.GroupID != "" || e.ownGroup != nil {
		g := e.ownGroup

		if g == nil {
			var err error
			if g, err = s.getGroup(ctx, e.prior.GroupID); err != nil {
				return err
			}
		}

		if g != nil && g.Name != spec.GroupName {
			renamed, err := groups.Update(ctx, s.Keystone, g.ID, groups.UpdateOpts{Name: spec.GroupName}).Extract()
			if err != nil {
				return s.Refused("renaming group "+g.ID, err)
			}

			g = renamed
		}

		if g != nil {
			e.found(g)
			return nil
		}
	}

	g, err := cloud.Create(ctx, cloud.CreateSpec[*groups.Group]{
		Kind: "group", Name: spec.GroupName,
		Create: func(ctx context.Context) (*groups.Group, error) {
			return groups.Create(ctx, s.Keystone, groups.CreateOpts{
				Name: spec.GroupName, DomainID: spec.DomainID, Description: "Members of project " + spec.Name,
				Extra: naming.MadeFor(TypeName).Extra(),
			}).Extract()
		},
		Find: func(ctx context.Context) ([]*groups.Group, error) {
			return cloud.Optional(s.findGroup(ctx, spec.DomainID, spec.GroupName))
		},
		ID:    func(g *groups.Group) string { return g.ID },
		Adopt: func(g *groups.Group) error { return cloud.Adopt(existingGroup(g, spec.Name)) },
	})
	if domain.Conflict(err) {
		if existing, ferr := s.findGroup(ctx, spec.DomainID, spec.GroupName); ferr == nil && existing != nil {
			return domain.Taken(existingGroup(existing, spec.Name))
		}
	}

	if err != nil {
		return s.Refused(fmt.Sprintf("creating group %s in domain %s", spec.GroupName, spec.DomainID), err)
	}

	tflog.Info(ctx, "Created the project's group", map[string]any{"project_id": projectID, "group_id": g.ID})
	e.found(g)

	return nil
}

func (e *ensurer) found(g *groups.Group) {
	e.out.GroupID, e.out.GroupName = g.ID, g.Name
	e.owner.groupID = g.ID
}

// ensureBindings grants the service user its roles and converges the bindings: the missing
// assignments are made, the prior's that are no longer wanted removed, the others' reported.
// A new project has no assignments yet: nothing is listed.
func (e *ensurer) ensureBindings(ctx context.Context, projectID string, creating bool) error {
	s := e.svc

	var current []Assignment

	if !creating {
		var err error
		if current, err = s.listAssignments(ctx, projectID); err != nil {
			return err
		}
	}

	priorOwner := e.owner
	priorOwner.userDomainID = e.prior.UserDomainID

	c := converge(current, e.spec.Bindings, e.owner, e.prior.Bindings, priorOwner)

	// Until it is done, whatever was recorded or is wanted may exist: the next run sorts it out.
	e.out.Bindings = union(e.prior.Bindings, e.spec.Bindings)
	e.out.Foreign = c.foreign

	todo, err := s.missingServiceGrants(ctx, current)
	if err != nil {
		return err
	}

	regranted := len(todo) > 0 && !creating

	for _, en := range c.missing {
		a, err := e.resolve(ctx, en)
		if err != nil {
			return err
		}

		todo = append(todo, a)
	}

	for _, a := range todo {
		if err := s.assign(ctx, projectID, a); err != nil {
			return err
		}
	}

	if regranted {
		// Tokens keep the roles they were issued with.
		s.cloud.ForgetProject(projectID)
	}

	for _, a := range c.extra {
		if err := s.unassign(ctx, projectID, a); err != nil {
			return err
		}
	}

	if len(todo) > 0 || len(c.extra) > 0 {
		tflog.Debug(ctx, "Converged the project's role assignments", map[string]any{"granted": len(todo), "revoked": len(c.extra)})
	}

	e.out.Bindings = e.spec.Bindings

	return nil
}

// UnknownUserError is a binding's user or group that does not exist.
type UnknownUserError struct {
	Kind, Name, DomainID string
}

func (e *UnknownUserError) Error() string {
	msg := fmt.Sprintf("role_bindings: there is no %s %q in domain %s", e.Kind, e.Name, e.DomainID)
	if e.Kind == "user" {
		msg += " (users of a federated domain exist only once they have logged in: bind their groups instead)"
	}

	return msg
}

// resolve is the assignment that binding entry en asks for, with the IDs of its role and of its
// user or group (looked up once per run of Ensure).
func (e *ensurer) resolve(ctx context.Context, en entry) (Assignment, error) {
	if a, ok := e.resolved[en]; ok {
		return a, nil
	}

	s, domainID := e.svc, e.owner.userDomainID
	a := Assignment{RoleID: e.roleIDs[en.role], RoleName: en.role, Name: en.ref, DomainID: domainID}

	switch {
	case !en.group:
		u, err := s.findUser(ctx, domainID, en.ref)
		if err != nil {
			return a, err
		}

		if u == nil {
			return a, &UnknownUserError{Kind: "user", Name: en.ref, DomainID: domainID}
		}

		a.UserID = u.ID
	case en.ref == e.spec.GroupName && e.owner.groupID != "":
		a.GroupID, a.DomainID = e.owner.groupID, e.spec.DomainID
	default:
		g, err := e.group(ctx, en.ref)
		if err != nil {
			return a, err
		}

		a.GroupID, a.DomainID = g.ID, g.DomainID
	}

	e.resolved[en] = a

	return a, nil
}

// group finds a binding's group: by ID when ref has the form of a Keystone ID and such a group
// exists, else by name in the user domain.
func (e *ensurer) group(ctx context.Context, ref string) (*groups.Group, error) {
	s, domainID := e.svc, e.owner.userDomainID

	if keystoneIDPattern.MatchString(ref) {
		if g, err := s.getGroup(ctx, ref); err != nil || g != nil {
			return g, err
		}
	}

	g, err := s.findGroup(ctx, domainID, ref)
	if err == nil && g == nil {
		err = &UnknownUserError{Kind: "group", Name: ref, DomainID: domainID}
	}

	return g, err
}

// union are the bindings of both, per role.
func union(a, b []Binding) []Binding {
	out := slices.Clone(a)

	for _, nb := range b {
		i := slices.IndexFunc(out, func(x Binding) bool { return x.Role == nb.Role })
		if i < 0 {
			out = append(out, nb)
			continue
		}

		out[i] = Binding{Role: nb.Role, Users: cloud.SortedSet(append(slices.Clone(out[i].Users), nb.Users...)),
			Groups: cloud.SortedSet(append(slices.Clone(out[i].Groups), nb.Groups...))}
	}

	return out
}

// userTags are tags without the provider's mark, sorted, and whether the mark was among them.
func userTags(tags []string) ([]string, bool) {
	marked := slices.Contains(tags, naming.HumanProjectTag)

	return cloud.SortedSet(slices.DeleteFunc(slices.Clone(tags), func(t string) bool { return t == naming.HumanProjectTag })), marked
}

// withRegions is extra with the record of the served regions added (leftovers.RecordExtra).
func withRegions(extra map[string]any, served []string) map[string]any {
	maps.Copy(extra, leftovers.RecordExtra(served, nil))

	return extra
}
