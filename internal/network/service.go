package network

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Service is the Terraform-free core of tenant networking for one identity project in one
// region: networks (network + subnet + router + interface) and security groups. It works in
// the privileged scope (DESIGN.md §4): the service user scoped into the identity's project.
type Service struct {
	neutron   neutron
	projectID string
	region    string
	cfg       *Config
}

// NewService opens the privileged scope of projectID and the Neutron client of region ("" is
// the provider's default region).
func NewService(ctx context.Context, c *cloud.Client, cfg *Config, projectID, region string) (*Service, error) {
	region, err := c.ResolveRegion(region)
	if err != nil {
		return nil, err
	}

	sess, err := c.Privileged(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("privileged scope of project %s: %w", projectID, err)
	}

	sc, err := sess.Network(region)
	if err != nil {
		return nil, err
	}

	return newService(sc, cfg, projectID, region), nil
}

// newService builds a Service on a Neutron client (tests point it at a fake).
func newService(sc *gophercloud.ServiceClient, cfg *Config, projectID, region string) *Service {
	if cfg == nil {
		cfg = NewConfig(ExternalNetworkSelector{}, nil)
	}

	return &Service{neutron: neutron{sc}, projectID: projectID, region: region, cfg: cfg}
}

// ProjectID is the identity project the service works in.
func (s *Service) ProjectID() string { return s.projectID }

// Region is the region the service works in.
func (s *Service) Region() string { return s.region }

// findOne looks up the object of c called name (exactly) among those matching query, and
// fails with a *naming.DuplicateError when more than one carries it.
func findOne[T any](ctx context.Context, n neutron, c collection, kind, name string, query url.Values,
	nameOf, idOf func(T) string,
) (T, bool, error) {
	var zero T

	q := url.Values{"name": {name}}
	for k, v := range query {
		q[k] = v
	}

	all, err := list[T](ctx, n, c, q)
	if err != nil {
		return zero, false, fmt.Errorf("looking up %s %s: %w", kind, name, err)
	}

	return naming.One(kind, name, all, nameOf, idOf)
}

// uuidPattern is the form of Neutron IDs.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// LooksLikeID tells whether s has the form of a Neutron ID (a UUID).
func LooksLikeID(s string) bool {
	return uuidPattern.MatchString(s)
}

// Located is where an imported object lives.
type Located struct {
	ID        string
	Name      string // the user-given name (without the naming prefix)
	ProjectID string
}

// locate finds, for an import, the object of c given by ID or by user-given name, across
// every project the base scope (an admin one) can see.
func locate[T any](ctx context.Context, c *cloud.Client, region string, coll collection, kind, prefix, idOrName string,
	get func(T) (id, name, project string),
) (Located, error) {
	sc, err := c.Base().Network(region)
	if err != nil {
		return Located{}, err
	}

	n := neutron{sc}

	toLocated := func(obj T) (Located, error) {
		id, name, project := get(obj)

		user, ok := strings.CutPrefix(name, prefix)
		if !ok || user == "" {
			return Located{}, fmt.Errorf("%s %s is called %q, which is not of the form %s<name>: it is not managed by this provider",
				kind, id, name, prefix)
		}

		return Located{ID: id, Name: user, ProjectID: project}, nil
	}

	if LooksLikeID(idOrName) {
		var obj T

		err := n.get(ctx, coll, idOrName, &obj)
		if err == nil {
			return toLocated(obj)
		}

		if !isNotFound(err) {
			return Located{}, fmt.Errorf("reading %s %s in region %s: %w", kind, idOrName, region, err)
		}
	}

	name := prefix + idOrName

	all, err := list[T](ctx, n, coll, url.Values{"name": {name}})
	if err != nil {
		return Located{}, fmt.Errorf("looking up %s %s in region %s: %w", kind, name, region, err)
	}

	obj, ok, err := naming.One(kind, name, all,
		func(o T) string { _, nm, _ := get(o); return nm },
		func(o T) string { id, _, project := get(o); return id + " (project " + project + ")" })
	if err != nil {
		return Located{}, fmt.Errorf("%w: import it by ID instead", err)
	}

	if !ok {
		return Located{}, fmt.Errorf("no %s with ID or name %q in region %s", kind, idOrName, region)
	}

	return toLocated(obj)
}
