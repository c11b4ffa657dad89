// Package domain is unikorn_domain: a Keystone domain of the region, managed by the service
// user as cloud admin. The core (this file) finds, creates, converges and deletes domains with
// gophercloud; the adapter files map the resource's model onto it.
package domain

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// DefaultDomainID and DefaultDomainName are Keystone's own domain, which holds the service
// users: never managed by this provider.
const (
	DefaultDomainID   = "default"
	DefaultDomainName = "Default"
)

// TypeName is the resource type of a domain's ownership marks. A domain carries them as Keystone
// tags, not as extra attributes: Keystone 2025.1 validates its answers about domains against a
// schema without additional properties, so that a domain with an extra attribute fails every
// answer that holds it (its create's and every listing of the domains of the cloud).
const TypeName = "unikorn_domain"

// Domain is a Keystone domain as the provider reads it.
type Domain struct {
	ID, Name, Description string
	Enabled               bool
	// Mark is what its ownership marks say (naming.Mark), Tags its Keystone tags (the marks'
	// and any other's).
	Mark naming.Mark
	Tags []string
}

// Spec is a domain as configured.
type Spec struct {
	Name, Description string
	Enabled           bool
}

// Object is a project or a domain-specific role held by a domain.
type Object struct {
	Kind, ID, Name string
}

func (o Object) String() string { return fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, o.ID) }

// Service is the domain core on the cloud-admin Keystone client.
type Service struct {
	*Admin
}

// NewService is the domain core of c.
func NewService(c *cloud.Client) (*Service, error) {
	a, err := NewAdmin(c)
	if err != nil {
		return nil, err
	}

	return &Service{a}, nil
}

// keystoneDomain is a Keystone domain with its tags, which carry the ownership marks
// (gophercloud's Domain drops them).
type keystoneDomain struct {
	domains.Domain

	Tags []string `json:"tags"`
}

// extractDomains reads a page of domains with their tags.
func extractDomains(p pagination.Page) ([]keystoneDomain, error) {
	page, ok := p.(domains.DomainPage)
	if !ok {
		return nil, fmt.Errorf("unexpected page %T of domains", p)
	}

	var body struct {
		Domains []keystoneDomain `json:"domains"`
	}

	err := page.ExtractInto(&body)

	return body.Domains, err
}

// domainWrite is a domain's create or update body: opts, and more members (tags).
type domainWrite struct {
	opts  map[string]any
	extra map[string]any
}

func (w domainWrite) body() (map[string]any, error) {
	d := maps.Clone(w.opts)
	if d == nil {
		d = map[string]any{}
	}

	maps.Copy(d, w.extra)

	return map[string]any{"domain": d}, nil
}

// ToDomainCreateMap makes domainWrite a domains.CreateOptsBuilder.
func (w domainWrite) ToDomainCreateMap() (map[string]any, error) { return w.body() }

// ToDomainUpdateMap makes domainWrite a domains.UpdateOptsBuilder.
func (w domainWrite) ToDomainUpdateMap() (map[string]any, error) { return w.body() }

func fromKeystone(d *keystoneDomain) *Domain {
	return &Domain{ID: d.ID, Name: d.Name, Description: d.Description, Enabled: d.Enabled, Mark: naming.MarkOfTags(d.Tags),
		Tags: d.Tags}
}

// Existing describes d for the ownership rule (cloud.Adopt) of a create of unikorn_domain.
func (d *Domain) Existing() cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: "domain", Name: d.Name, ID: d.ID, ImportID: d.ID, Mark: d.Mark}
}

// Get reads the domain id; nil when it does not exist.
func (s *Service) Get(ctx context.Context, id string) (*Domain, error) {
	var body struct {
		Domain keystoneDomain `json:"domain"`
	}

	err := domains.Get(ctx, s.Keystone, id).ExtractInto(&body)

	if found, err := s.Found("reading domain "+id, err); !found {
		return nil, err
	}

	return fromKeystone(&body.Domain), nil
}

// Find finds the domain named exactly name; nil when there is none.
func (s *Service) Find(ctx context.Context, name string) (*Domain, error) {
	d, err := s.findRaw(ctx, name)
	if err != nil || d == nil {
		return nil, s.Refused("listing domains", err)
	}

	return fromKeystone(d), nil
}

// Clashing lists the domains whose name equals name ignoring case (Keystone's uniqueness of
// domain names is case-insensitive on most databases): those a domain of that name would
// collide with.
func (s *Service) Clashing(ctx context.Context, name string) ([]Domain, error) {
	all, err := cloud.ListAll(ctx, domains.List(s.Keystone, domains.ListOpts{Name: name}), extractDomains,
		fmt.Sprintf("domains named %q", name))
	if err != nil {
		return nil, s.Refused("listing domains", err)
	}

	var out []Domain

	for _, d := range all {
		if strings.EqualFold(d.Name, name) {
			out = append(out, *fromKeystone(&d))
		}
	}

	return out, nil
}

// Create makes the domain of spec, carrying the creation mark of unikorn_domain (as a tag), and
// ends with its completion mark. The domain of the name is looked for first: an interrupted create of a
// unikorn_domain (creation mark, no completion) is adopted and brought to spec; any other is a
// *cloud.ExistsError, and nothing is written. The POST goes through cloud.Create, whose look
// after a lost answer takes only a domain this create may own. Keystone keeps domain names
// unique, so no twin can appear and none is looked for after a successful create.
func (s *Service) Create(ctx context.Context, spec Spec) (*Domain, error) {
	found, err := s.Find(ctx, spec.Name)
	if err != nil {
		return nil, err
	}

	var d *Domain

	if found != nil {
		if err := cloud.Adopt(found.Existing()); err != nil {
			return nil, err
		}

		tflog.Warn(ctx, "Adopting the domain an interrupted create left unfinished", map[string]any{"domain_id": found.ID})

		if d, err = s.Update(ctx, found, spec); err != nil {
			return nil, err
		}
	} else if d, err = s.post(ctx, spec); err != nil {
		return nil, err
	}

	if d.Mark.Kind == TypeName && !d.Mark.Completed {
		tags := cloud.SortedSet(append(slices.Clone(d.Tags), naming.MarkCompletedTag))
		if _, err := s.write(cloud.Repeatable(ctx), d.ID, domainWrite{extra: map[string]any{"tags": tags}}); err != nil {
			return d, s.Refused("marking domain "+d.ID+" as created", err)
		}

		d.Mark, d.Tags = d.Mark.Done(), tags
	}

	return d, nil
}

// post makes the domain of spec with the creation mark (cloud.Create).
func (s *Service) post(ctx context.Context, spec Spec) (*Domain, error) {
	enabled := spec.Enabled
	opts := map[string]any{"name": spec.Name, "description": spec.Description, "enabled": enabled}

	made, err := cloud.Create(ctx, cloud.CreateSpec[*keystoneDomain]{
		Kind: "domain",
		Name: spec.Name,
		Create: func(ctx context.Context) (*keystoneDomain, error) {
			var body struct {
				Domain keystoneDomain `json:"domain"`
			}

			err := domains.Create(ctx, s.Keystone, domainWrite{opts: opts, extra: map[string]any{"tags": naming.MadeFor(TypeName).Tags()}}).ExtractInto(&body)

			return &body.Domain, err
		},
		Find: func(ctx context.Context) ([]*keystoneDomain, error) { return cloud.Optional(s.findRaw(ctx, spec.Name)) },
		ID:   func(d *keystoneDomain) string { return d.ID },
		Adopt: func(d *keystoneDomain) error {
			return cloud.Adopt(fromKeystone(d).Existing())
		},
	})

	if Conflict(err) {
		if existing, ferr := s.Find(ctx, spec.Name); ferr == nil && existing != nil {
			return nil, Taken(existing.Existing())
		}
	}

	if err != nil {
		return nil, s.Refused("creating domain "+spec.Name, err)
	}

	tflog.Info(ctx, "Created a Keystone domain", map[string]any{"domain_id": made.ID, "name": made.Name})

	return fromKeystone(made), nil
}

// write PATCHes domain id with w.
func (s *Service) write(ctx context.Context, id string, w domainWrite) (*Domain, error) {
	var body struct {
		Domain keystoneDomain `json:"domain"`
	}

	if err := domains.Update(ctx, s.Keystone, id, w).ExtractInto(&body); err != nil {
		return nil, err
	}

	return fromKeystone(&body.Domain), nil
}

func (s *Service) findRaw(ctx context.Context, name string) (*keystoneDomain, error) {
	return cloud.FindOne(ctx, domains.List(s.Keystone, domains.ListOpts{Name: name}), extractDomains, "domain", name,
		func(d keystoneDomain) string { return d.Name }, func(d keystoneDomain) string { return d.ID })
}

// Update brings the domain cur to spec in place, with one request when something differs.
func (s *Service) Update(ctx context.Context, cur *Domain, spec Spec) (*Domain, error) {
	u, changed := Changes(Fields{Name: cur.Name, Description: cur.Description, Enabled: &cur.Enabled},
		Fields{Name: spec.Name, Description: spec.Description, Enabled: &spec.Enabled})
	if !changed {
		return cur, nil
	}

	opts := map[string]any{}
	if u.Name != "" {
		opts["name"] = u.Name
	}

	if u.Description != nil {
		opts["description"] = *u.Description
	}

	if u.Enabled != nil {
		opts["enabled"] = *u.Enabled
	}

	d, err := s.write(ctx, cur.ID, domainWrite{opts: opts})
	if err != nil {
		return nil, s.Refused("updating domain "+cur.ID, err)
	}

	return d, nil
}

// Observe reads the domain recorded as id: by ID, and when that is gone by its exact name
// (refound then tells so, for a warning), taking only a domain that a create of unikorn_domain
// may adopt (an interrupted create: cloud.Owns); a finished or foreign one is not this
// resource's, and the domain counts as gone. nil when neither finds it.
func (s *Service) Observe(ctx context.Context, id, name string) (d *Domain, refound bool, err error) {
	if d, err = s.Get(ctx, id); d != nil || err != nil {
		return d, false, err
	}

	if name == "" {
		return nil, false, nil
	}

	if d, err = s.Find(ctx, name); d == nil || err != nil || !cloud.Owns(TypeName, d.Mark) {
		return nil, false, err
	}

	return d, true, nil
}

// Locate finds a domain to import by ID, then by exact name.
func (s *Service) Locate(ctx context.Context, idOrName string) (cloud.Located, error) {
	return Locator[Domain]{
		Get:     s.Get,
		Find:    func(ctx context.Context, _, name string) (*Domain, error) { return s.Find(ctx, name) },
		Located: func(d *Domain) cloud.Located { return cloud.Located{ID: d.ID, Name: d.Name} },
		Missing: func(idOrName, _, _ string) error {
			return fmt.Errorf("no Keystone domain with the ID or name %q", idOrName)
		},
	}.Locate(ctx, idOrName)
}

// Contents lists what the domain id holds that deleting it would take along or leave behind:
// its projects (Keystone deletes them with the domain) and its domain-specific roles (which
// Keystone leaves behind, orphaned), projects leaves first.
func (s *Service) Contents(ctx context.Context, id string) ([]Object, error) {
	ps, err := cloud.ListAll(ctx, projects.List(s.Keystone, projects.ListOpts{DomainID: id}), projects.ExtractProjects,
		"the projects of domain "+id)
	if err != nil {
		return nil, s.Refused("listing the projects of domain "+id, err)
	}

	rs, err := cloud.ListAll(ctx, roles.List(s.Keystone, roles.ListOpts{DomainID: id}), roles.ExtractRoles,
		"the roles of domain "+id)
	if err != nil {
		return nil, s.Refused("listing the roles of domain "+id, err)
	}

	out := make([]Object, 0, len(ps)+len(rs))
	for _, p := range leavesFirst(ps) {
		out = append(out, Object{Kind: "project", ID: p.ID, Name: p.Name})
	}

	for _, r := range rs {
		if r.DomainID == id {
			out = append(out, Object{Kind: "role", ID: r.ID, Name: r.Name})
		}
	}

	return out, nil
}

// leavesFirst orders projects so that every project comes before its parent: Keystone deletes
// only leaves of the hierarchy.
func leavesFirst(ps []projects.Project) []projects.Project {
	depth := map[string]int{}

	var depthOf func(id string, seen int) int

	byID := map[string]projects.Project{}
	for _, p := range ps {
		byID[p.ID] = p
	}

	depthOf = func(id string, seen int) int {
		if d, ok := depth[id]; ok {
			return d
		}

		p, ok := byID[id]
		if !ok || seen > len(ps) {
			return 0
		}

		d := depthOf(p.ParentID, seen+1) + 1
		depth[id] = d

		return d
	}

	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b projects.Project) int { return depthOf(b.ID, 0) - depthOf(a.ID, 0) })

	return out
}

// NotEmptyError is a delete refused because the domain still holds projects or roles.
type NotEmptyError struct {
	Domain   string
	Contents []Object
}

func (e *NotEmptyError) Error() string {
	names := make([]string, len(e.Contents))
	for i, o := range e.Contents {
		names[i] = o.String()
	}

	return fmt.Sprintf("domain %s still holds %d objects: %s. Delete them first, or set force_destroy = true (and apply) "+
		"to delete them with the domain", e.Domain, len(e.Contents), strings.Join(names, ", "))
}

// ProtectedError is a domain this provider never manages: Keystone's Default domain or the
// provider's own managed domain.
type ProtectedError struct {
	ID, Name, Why string
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("domain %s (%s) is %s: the provider never manages, changes or deletes it", e.Name, e.ID, e.Why)
}

// Protected says why the domain (id, name) must not be managed: nil when it may be. managedID
// is the provider's managed domain ("" when none is configured).
func Protected(id, name, managedID string) error {
	switch {
	case id == DefaultDomainID || strings.EqualFold(name, DefaultDomainName):
		return &ProtectedError{ID: DefaultDomainID, Name: DefaultDomainName, Why: "Keystone's Default domain"}
	case managedID != "" && id == managedID:
		return &ProtectedError{ID: id, Name: name, Why: "the provider's managed domain (the provider's domain setting)"}
	}

	return nil
}

// Delete deletes the domain id: refused for a protected one, and for one that still holds
// projects or roles unless force, which deletes them first (projects leaves first) and returns
// them. The domain is disabled first (Keystone deletes disabled domains only). A domain already
// gone is done.
func (s *Service) Delete(ctx context.Context, id, managedID string, force bool) ([]Object, error) {
	d, err := s.Get(ctx, id)
	if err != nil || d == nil {
		return nil, err
	}

	if err := Protected(d.ID, d.Name, managedID); err != nil {
		return nil, err
	}

	contents, err := s.Contents(ctx, id)
	if err != nil {
		return nil, err
	}

	if len(contents) > 0 && !force {
		return nil, &NotEmptyError{Domain: fmt.Sprintf("%s (%s)", d.Name, d.ID), Contents: contents}
	}

	var deleted []Object

	for _, o := range contents {
		if err := s.deleteObject(ctx, o); err != nil {
			return deleted, err
		}

		tflog.Info(ctx, "Deleted an object of the domain (force_destroy)", map[string]any{"kind": o.Kind, "id": o.ID, "name": o.Name})
		deleted = append(deleted, o)
	}

	if d.Enabled {
		disabled := false
		if _, err := domains.Update(ctx, s.Keystone, id, domains.UpdateOpts{Enabled: &disabled}).Extract(); err != nil && !NotFound(err) {
			return deleted, s.Refused("disabling domain "+id, err)
		}
	}

	if err := domains.Delete(ctx, s.Keystone, id).ExtractErr(); err != nil && !NotFound(err) {
		return deleted, s.Refused("deleting domain "+id, err)
	}

	return deleted, nil
}

func (s *Service) deleteObject(ctx context.Context, o Object) error {
	var err error

	switch o.Kind {
	case "project":
		err = projects.Delete(ctx, s.Keystone, o.ID).ExtractErr()
	case "role":
		err = roles.Delete(ctx, s.Keystone, o.ID).ExtractErr()
	default:
		err = errors.New("unknown kind " + o.Kind)
	}

	if err != nil && !NotFound(err) {
		return s.Refused("deleting "+o.String(), err)
	}

	return nil
}
