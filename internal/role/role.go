// Package role is unikorn_role: a Keystone role (global, or specific to a domain) and the roles
// it implies, managed by the service user as cloud admin. The core (this file) finds, creates,
// converges and deletes roles and their inference rules with gophercloud; the adapter files map
// the resource's model onto it.
package role

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// MaxNameLength is Keystone's limit of a role's name.
const MaxNameLength = 255

// ProhibitedImplied is the role Keystone's default configuration forbids implying
// ([assignment] prohibited_implied_role).
const ProhibitedImplied = "admin"

// TypeName is the resource type of a role's ownership marks.
const TypeName = "unikorn_role"

// Role is a Keystone role as the provider reads it, with the names of the roles it implies.
type Role struct {
	ID, Name, DomainID, Description string
	Implies                         []string
	// Mark is what its ownership marks say (naming.Mark).
	Mark naming.Mark
}

// Spec is a role as configured. Implies are names of global roles.
type Spec struct {
	Name, DomainID, Description string
	Implies                     []string
}

// Service is the role core on the cloud-admin Keystone client.
type Service struct {
	*domain.Admin
}

// NewService is the role core of c.
func NewService(c *cloud.Client) (*Service, error) {
	a, err := domain.NewAdmin(c)
	if err != nil {
		return nil, err
	}

	return &Service{a}, nil
}

func fromKeystone(r *roles.Role) *Role {
	desc, _ := r.Extra["description"].(string)
	return &Role{ID: r.ID, Name: r.Name, DomainID: r.DomainID, Description: desc, Mark: naming.MarkOf(r.Extra)}
}

// Existing describes r for the ownership rule (cloud.Adopt) of a create of unikorn_role.
func (r *Role) Existing() cloud.Existing {
	ex := cloud.Existing{Type: TypeName, Kind: "role", Name: r.Name, ID: r.ID, ImportID: r.ID, Mark: r.Mark}
	if r.DomainID != "" {
		ex.Where = "of domain " + r.DomainID
	}

	return ex
}

// where names a role's scope in messages.
func where(domainID string) string {
	if domainID == "" {
		return "global"
	}

	return "of domain " + domainID
}

// Get reads the role id with the roles it implies; nil when it does not exist.
func (s *Service) Get(ctx context.Context, id string) (*Role, error) {
	r, err := roles.Get(ctx, s.Keystone, id).Extract()

	if found, err := s.Found("reading role "+id, err); !found {
		return nil, err
	}

	out := fromKeystone(r)
	if out.Implies, err = s.implied(ctx, id); err != nil {
		return nil, err
	}

	return out, nil
}

// Find finds the role named exactly name, global (domainID "") or of domainID; nil when there
// is none. It does not read what the role implies.
func (s *Service) Find(ctx context.Context, name, domainID string) (*Role, error) {
	r, err := s.findRaw(ctx, name, domainID)
	if err != nil || r == nil {
		return nil, s.Refused("listing roles", err)
	}

	return fromKeystone(r), nil
}

func (s *Service) findRaw(ctx context.Context, name, domainID string) (*roles.Role, error) {
	return cloud.FindOne(ctx, roles.List(s.Keystone, roles.ListOpts{Name: name, DomainID: domainID}), roles.ExtractRoles,
		"role", name, func(r roles.Role) string {
			if r.DomainID != domainID {
				return "" // Keystone lists the global roles only without a domain, but never mix scopes
			}

			return r.Name
		}, func(r roles.Role) string { return r.ID })
}

// implication is Keystone's answer of GET /v3/roles/{id}/implies, which gophercloud does not
// wrap (it wraps the rules one by one and the list of every rule of the cloud).
type implication struct {
	RoleInference struct {
		Implies []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"implies"`
	} `json:"role_inference"`
}

// implied are the names of the roles id implies, sorted: one request.
func (s *Service) implied(ctx context.Context, id string) ([]string, error) {
	ids, err := s.impliedIDs(ctx, id)

	return slices.Sorted(maps.Keys(ids)), err
}

// impliedIDs are the IDs of the roles id implies, by name.
func (s *Service) impliedIDs(ctx context.Context, id string) (map[string]string, error) {
	var body implication

	_, err := s.Keystone.Get(ctx, s.Keystone.ServiceURL("roles", id, "implies"), &body, &gophercloud.RequestOpts{OkCodes: []int{200}})
	if err != nil {
		return nil, s.Refused("listing the roles implied by role "+id, err)
	}

	out := make(map[string]string, len(body.RoleInference.Implies))
	for _, r := range body.RoleInference.Implies {
		out[r.Name] = r.ID
	}

	return out, nil
}

// Create makes the role of spec, carrying the creation mark of unikorn_role, then the inference
// rules of spec.Implies, and ends with the role's completion mark. The roles to imply are
// resolved and the role of the name is looked for before anything is written (a name that is no
// global role, or a role of the name that this create may not adopt, fails with nothing made):
// an interrupted create of a unikorn_role (creation mark, no completion) is adopted and brought
// to spec; any other is a *cloud.ExistsError, its rules untouched. The POST goes through
// cloud.Create, whose look after a lost answer takes only a role this create may own (Keystone
// keeps role names unique per domain, so no twin can appear). A role made whose rules failed is
// returned with the error, so that it is recorded.
func (s *Service) Create(ctx context.Context, spec Spec) (*Role, error) {
	var ids map[string]string

	if len(spec.Implies) > 0 {
		var err error
		if ids, err = s.globalRoleIDs(ctx, spec.Implies); err != nil {
			return nil, err
		}
	}

	found, err := s.Find(ctx, spec.Name, spec.DomainID)
	if err != nil {
		return nil, err
	}

	var out *Role

	if found != nil {
		if err := cloud.Adopt(found.Existing()); err != nil {
			return nil, err
		}

		tflog.Warn(ctx, "Adopting the role an interrupted create left unfinished", map[string]any{"role_id": found.ID})

		if out, err = s.Update(ctx, found, spec); err != nil {
			return out, err
		}
	} else {
		if out, err = s.post(ctx, spec); err != nil {
			return nil, err
		}

		if out.Implies, err = s.converge(ctx, out.ID, nil, spec.Implies, ids); err != nil {
			return out, err
		}
	}

	if extra := domain.Completion(TypeName, out.Mark); extra != nil {
		if _, err := roles.Update(cloud.Repeatable(ctx), s.Keystone, out.ID, roles.UpdateOpts{Extra: extra}).Extract(); err != nil {
			return out, s.Refused("marking role "+out.ID+" as created", err)
		}

		out.Mark = out.Mark.Done()
	}

	return out, nil
}

// post makes the role of spec with the creation mark (cloud.Create).
func (s *Service) post(ctx context.Context, spec Spec) (*Role, error) {
	r, err := cloud.Create(ctx, cloud.CreateSpec[*roles.Role]{
		Kind: "role",
		Name: spec.Name,
		Create: func(ctx context.Context) (*roles.Role, error) {
			return roles.Create(ctx, s.Keystone, roles.CreateOpts{
				Name: spec.Name, DomainID: spec.DomainID, Description: spec.Description, Extra: naming.MadeFor(TypeName).Extra(),
			}).Extract()
		},
		Find: func(ctx context.Context) ([]*roles.Role, error) {
			return cloud.Optional(s.findRaw(ctx, spec.Name, spec.DomainID))
		},
		ID:    func(r *roles.Role) string { return r.ID },
		Adopt: func(r *roles.Role) error { return cloud.Adopt(fromKeystone(r).Existing()) },
	})

	if domain.Conflict(err) {
		if existing, ferr := s.Find(ctx, spec.Name, spec.DomainID); ferr == nil && existing != nil {
			return nil, domain.Taken(existing.Existing())
		}
	}

	if err != nil {
		return nil, s.Refused(fmt.Sprintf("creating the %s role %s", where(spec.DomainID), spec.Name), err)
	}

	tflog.Info(ctx, "Created a Keystone role", map[string]any{"role_id": r.ID, "name": r.Name, "domain_id": r.DomainID})

	return fromKeystone(r), nil
}

// Update brings the role cur (as recorded) to spec in place: name and description with one
// request when they differ, then the inference rules as a set.
func (s *Service) Update(ctx context.Context, cur *Role, spec Spec) (*Role, error) {
	out := *cur

	if u, changed := domain.Changes(domain.Fields{Name: cur.Name, Description: cur.Description},
		domain.Fields{Name: spec.Name, Description: spec.Description}); changed {
		r, err := roles.Update(ctx, s.Keystone, cur.ID, roles.UpdateOpts{Name: u.Name, Description: u.Description}).Extract()
		if err != nil {
			return nil, s.Refused("updating role "+cur.ID, err)
		}

		out = *fromKeystone(r)
	}

	current, err := s.impliedIDs(ctx, cur.ID)
	if err != nil {
		return &out, err
	}

	out.Implies, err = s.converge(ctx, cur.ID, current, spec.Implies, nil)

	return &out, err
}

// converge makes the rules "id implies <name>" exactly want, given the current ones (name to
// ID): the missing ones are added (their roles resolved by name unless ids, name to ID, has
// them), the extra ones removed. It returns the names implied after, sorted, even when a step
// failed.
func (s *Service) converge(ctx context.Context, id string, current map[string]string, want []string, ids map[string]string) ([]string, error) {
	have := slices.Sorted(maps.Keys(current))

	var add []string

	for _, n := range want {
		if _, ok := current[n]; !ok {
			add = append(add, n)
		}
	}

	if len(add) > 0 && ids == nil {
		var err error
		if ids, err = s.globalRoleIDs(ctx, add); err != nil {
			return have, err
		}
	}

	for _, n := range sortUnique(add) {
		_, err := roles.CreateRoleInferenceRule(ctx, s.Keystone, id, ids[n]).Extract()
		if err != nil && !domain.Conflict(err) {
			return sortUnique(have), s.Refused(fmt.Sprintf("adding the rule that role %s implies role %s (%s)", id, n, ids[n]), err)
		}

		have = append(have, n)
	}

	for _, n := range slices.Sorted(maps.Keys(current)) {
		if slices.Contains(want, n) {
			continue
		}

		err := roles.DeleteRoleInferenceRule(ctx, s.Keystone, id, current[n]).ExtractErr()
		if err != nil && !domain.NotFound(err) {
			return sortUnique(have), s.Refused(fmt.Sprintf("removing the rule that role %s implies role %s", id, n), err)
		}

		have = slices.DeleteFunc(have, func(h string) bool { return h == n })
	}

	return sortUnique(have), nil
}

func sortUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// globalRoleIDs are the IDs of the global roles of names (one listing of the global roles):
// only global roles can be implied. A name that matches none is an error naming it.
func (s *Service) globalRoleIDs(ctx context.Context, names []string) (map[string]string, error) {
	all, err := cloud.ListAll(ctx, roles.List(s.Keystone, roles.ListOpts{}), roles.ExtractRoles, "the global roles")
	if err != nil {
		return nil, s.Refused("listing roles", err)
	}

	ids := map[string]string{}

	var missing []string

	for _, n := range names {
		var found []string

		for _, r := range all {
			if r.DomainID == "" && r.Name == n {
				found = append(found, r.ID)
			}
		}

		switch len(found) {
		case 1:
			ids[n] = found[0]
		case 0:
			missing = append(missing, n)
		default:
			return nil, fmt.Errorf("consistency error: %d global roles named %q: %s", len(found), n, strings.Join(found, ", "))
		}
	}

	if len(missing) > 0 {
		return nil, fmt.Errorf("implies names roles that are not global roles of Keystone: %s (only global roles can be implied)",
			strings.Join(missing, ", "))
	}

	return ids, nil
}

// Observe reads the role recorded as id: by ID, and when that is gone by its exact name in its
// scope (refound then tells so, for a warning), taking only a role that a create of unikorn_role
// may adopt (an interrupted create: cloud.Owns); a finished or foreign one is not this
// resource's, and the role counts as gone. nil when neither finds it.
func (s *Service) Observe(ctx context.Context, id, name, domainID string) (r *Role, refound bool, err error) {
	if r, err = s.Get(ctx, id); r != nil || err != nil || name == "" {
		return r, false, err
	}

	found, err := s.Find(ctx, name, domainID)
	if found == nil || err != nil || !cloud.Owns(TypeName, found.Mark) {
		return nil, false, err
	}

	r, err = s.Get(ctx, found.ID)

	return r, r != nil, err
}

// Delete deletes the role id (Keystone removes its inference rules and assignments with it);
// already gone is done.
func (s *Service) Delete(ctx context.Context, id string) error {
	if err := roles.Delete(ctx, s.Keystone, id).ExtractErr(); err != nil && !domain.NotFound(err) {
		return s.Refused("deleting role "+id, err)
	}

	return nil
}

// Locate finds a role to import: by ID, then by exact name among the global roles, or
// `DOMAIN_ID/name` for a role of that domain.
func (s *Service) Locate(ctx context.Context, importID string) (cloud.Located, error) {
	return domain.Locator[Role]{
		Get:     s.Get,
		Find:    func(ctx context.Context, domainID, name string) (*Role, error) { return s.Find(ctx, name, domainID) },
		Scoped:  true,
		Located: func(r *Role) cloud.Located { return cloud.Located{ID: r.ID, Name: r.Name} },
		Missing: func(_, domainID, name string) error {
			return fmt.Errorf("no %s role with the ID or name %q", where(domainID), name)
		},
	}.Locate(ctx, importID)
}
