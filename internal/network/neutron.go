package network

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file is how the package talks to Neutron: typed gophercloud for every call (networks,
// subnets, routers, ports, security groups and rules, the provider extension), plus what
// gophercloud leaves to its callers: one error type that carries Neutron's own error type
// (VlanIdInUse, OverQuota), and list filters its ListOpts cannot spell (below).

// neutronNetwork is a Neutron network with the external and provider extensions (gophercloud
// decodes each embedded part on its own).
type neutronNetwork struct {
	networks.Network
	external.NetworkExternalExt
	provider.NetworkProviderExt
}

// vlanID is the segmentation ID of a VLAN provider network; false for other networks.
func (n neutronNetwork) vlanID() (int, bool) {
	if !strings.EqualFold(n.NetworkType, "vlan") || n.SegmentationID == "" {
		return 0, false
	}

	id, err := strconv.Atoi(n.SegmentationID)

	return id, err == nil
}

// query is a list filter that gophercloud's ListOpts cannot spell: a key repeated for "any of
// these values" (the subnets of several networks in one request), and the provider
// extension's provider:* attributes. It is the ListOptsBuilder of networks and subnets.
type query url.Values

func (q query) encode() (string, error) { return "?" + url.Values(q).Encode(), nil }

// ToNetworkListQuery makes query a networks.ListOptsBuilder.
func (q query) ToNetworkListQuery() (string, error) { return q.encode() }

// ToSubnetListQuery makes query a subnets.ListOptsBuilder.
func (q query) ToSubnetListQuery() (string, error) { return q.encode() }

// listAll reads every page of pager with extract.
func listAll[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error)) ([]T, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, apiError(err)
	}

	return extract(pages)
}

// listNetworks lists the networks matching opts, with their extensions.
func listNetworks(ctx context.Context, sc *gophercloud.ServiceClient, opts networks.ListOptsBuilder) ([]neutronNetwork, error) {
	return listAll(ctx, networks.List(sc, opts), func(p pagination.Page) ([]neutronNetwork, error) {
		var out []neutronNetwork
		err := networks.ExtractNetworksInto(p, &out)

		return out, err
	})
}

// getNetwork reads one network with its extensions.
func getNetwork(ctx context.Context, sc *gophercloud.ServiceClient, id string) (neutronNetwork, error) {
	var out neutronNetwork
	err := networks.Get(ctx, sc, id).ExtractInto(&out)

	return out, apiError(err)
}

// APIError is an error answer of Neutron, with the type and message of its NeutronError body.
// It unwraps to gophercloud's error, so gophercloud.ResponseCodeIs works on it.
type APIError struct {
	Status  int
	Type    string // e.g. "VlanIdInUse", "NetworkInUse"
	Message string
	Err     error
}

func (e *APIError) Error() string {
	switch {
	case e.Type != "" && e.Message != "":
		return fmt.Sprintf("Neutron answered HTTP %d (%s): %s", e.Status, e.Type, e.Message)
	case e.Message != "":
		return fmt.Sprintf("Neutron answered HTTP %d: %s", e.Status, e.Message)
	}

	return e.Err.Error()
}

func (e *APIError) Unwrap() error { return e.Err }

// apiError turns gophercloud's unexpected-response error into an *APIError; other errors
// are returned as they are.
func apiError(err error) error {
	var code gophercloud.ErrUnexpectedResponseCode
	if err == nil || !errors.As(err, &code) {
		return err
	}

	var body struct {
		NeutronError struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"NeutronError"`
	}

	out := &APIError{Status: code.Actual, Err: err}
	if json.Unmarshal(code.Body, &body) == nil {
		out.Type = body.NeutronError.Type
		out.Message = strings.TrimSpace(body.NeutronError.Message)
	}

	return out
}

// errorType is the NeutronError type of err ("" when it has none).
func errorType(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.Type
	}

	return ""
}

// isNotFound tells whether err is a 404.
func isNotFound(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
}

// isConflict tells whether err is a 409.
func isConflict(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusConflict)
}

// lookup is how one kind of Neutron object is found again (DESIGN.md §5): by its recorded ID
// first, then by its exact name (Neutron's name filter is fuzzy on some clouds; two exact
// matches are a *naming.DuplicateError that names both).
type lookup[T any] struct {
	kind string
	get  func(ctx context.Context, id string) (T, error)
	// list lists the candidates called name (the filter may be fuzzy).
	list     func(ctx context.Context, name string) ([]T, error)
	name, id func(T) string
	// belongs tells whether an object read by ID is still the one wanted (nil: always).
	belongs func(T) bool
	// created is when Neutron made an object (the zero time when it does not say).
	created func(T) time.Time
	// remove deletes an object by ID: the twin that a create has just made (cloud.Create).
	remove func(ctx context.Context, id string) error
	// tags and description are an object's, where its ownership marks are (ownership.go).
	tags        func(T) []string
	description func(T) string
	// adopt is the ownership rule of an object found by its name rather than by its recorded ID
	// (owning: cloud.Adopt for the resource type): nil when it may be taken, else why not. A
	// lookup without one takes whatever carries the name (import, delete).
	adopt func(T) error
	// tenant and listing, when set (inRun), answer reads from the run's listing of the kind
	// and record the lookup's writes (issue 17).
	tenant  *cloud.Tenant
	listing cloud.Listing[T]
}

// Refound is the fact that an object was gone by its recorded ID and another one was found by
// its name: Read takes it for the recorded one and says so (DESIGN.md §5).
type Refound struct {
	Kind, Name   string
	OldID, NewID string
	// Adopted says that nothing was recorded (a create) and an existing object of the name was
	// taken over instead of a new one made (an interrupted apply's, or someone else's).
	Adopted bool
	// CreatedAt is when the object found by name was made; zero when Neutron does not say.
	CreatedAt time.Time
}

// observe is find for a Read: an object found again by name because knownID is gone is noted
// in refound, and taken only under the lookup's ownership rule (adopt): one this resource may
// not own (a finished object of another configuration, one made by hand) is treated as gone.
func (l lookup[T]) observe(ctx context.Context, name, knownID string, refound *[]Refound) (T, bool, error) {
	obj, found, err := l.find(ctx, name, knownID)
	if err != nil || !found || knownID == "" || l.id(obj) == knownID {
		return obj, found, err
	}

	if l.adopt != nil {
		if refusal := l.adopt(obj); refusal != nil {
			tflog.Warn(ctx, "Gone by its recorded ID; the object of its name is not this resource's, so it is taken as gone",
				map[string]any{"kind": l.kind, "name": name, "recorded_id": knownID, "found_id": l.id(obj), "why": refusal.Error()})

			var zero T

			return zero, false, nil //nolint:nilerr // the rule's refusal: the recorded object is gone, not the read
		}
	}

	*refound = append(*refound, l.note(obj, name, knownID))

	return obj, true, nil
}

// ensureFind is find for a create or an update: an object found by name rather than by knownID
// (nothing recorded, or gone) is taken only under the lookup's ownership rule (adopt), whose
// refusal is the error; it is noted in refound (nil: not noted), as adopted when nothing was
// recorded.
func (l lookup[T]) ensureFind(ctx context.Context, name, knownID string, refound *[]Refound) (T, bool, error) {
	obj, found, err := l.find(ctx, name, knownID)
	if err != nil || !found || (knownID != "" && l.id(obj) == knownID) {
		return obj, found, err
	}

	if l.adopt != nil {
		if err := l.adopt(obj); err != nil {
			var zero T

			return zero, false, err
		}
	}

	if refound != nil {
		*refound = append(*refound, l.note(obj, name, knownID))
	}

	return obj, true, nil
}

// note is the Refound of obj, found by name instead of knownID ("": nothing recorded, adopted).
func (l lookup[T]) note(obj T, name, knownID string) Refound {
	r := Refound{Kind: l.kind, Name: name, OldID: knownID, NewID: l.id(obj), Adopted: knownID == ""}
	if l.created != nil {
		r.CreatedAt = l.created(obj)
	}

	return r
}

// mark is the ownership mark obj carries.
func (l lookup[T]) mark(obj T) naming.Mark {
	if l.tags == nil || l.description == nil {
		return naming.Mark{}
	}

	return naming.MarkOfNeutron(l.tags(obj), l.description(obj))
}

// inRun makes l read from the run's listing of t's objects of its kind, which listAll lists,
// and record on t what it writes (cloud.Listing): a refresh then costs one listing per kind,
// not one read per object.
func (l lookup[T]) inRun(t *cloud.Tenant, listAll func(ctx context.Context) ([]T, error)) lookup[T] {
	l.tenant = t
	l.listing = cloud.Listing[T]{
		Kind: l.kind,
		List: func(ctx context.Context, _ *cloud.Tenant) ([]T, error) { return listAll(ctx) },
		Keys: func(obj T) []string { return []string{l.id(obj), l.name(obj)} },
	}

	return l
}

// wrote records a write of the objects with these keys (IDs, names) for the run's listings.
func (l lookup[T]) wrote(keys ...string) { l.tenant.Wrote(l.kind, keys...) }

// exact lists the objects called exactly name (the Neutron name).
func (l lookup[T]) exact(ctx context.Context, name string) ([]T, error) {
	all, err := l.list(ctx, name)
	if err != nil {
		return nil, err
	}

	return naming.Exact(all, name, l.name), nil
}

// create makes the object called name with post (one POST) through cloud.Create: an answer
// lost after Neutron acted is recovered by looking the object up by its exact name, taking only
// one the lookup's ownership rule (adopt) lets this create own (the lost POST carried the
// creation mark as its description), and a twin that a concurrent create made under the same
// name is removed again (a *cloud.TwinError).
func (l lookup[T]) create(ctx context.Context, name string, post func(ctx context.Context) (T, error)) (T, error) {
	l.wrote(name)

	made, err := cloud.Create(ctx, cloud.CreateSpec[T]{
		Kind:   l.kind,
		Name:   name,
		Create: post,
		Find:   func(ctx context.Context) ([]T, error) { return l.exact(ctx, name) },
		ID:     l.id,
		Delete: func(ctx context.Context, id string) error { l.wrote(id); return l.remove(ctx, id) },
		Adopt:  l.adopt,
	})
	l.wrote(l.id(made))

	return made, err
}

// find finds the object called name (the Neutron name), starting from knownID ("" = none).
func (l lookup[T]) find(ctx context.Context, name, knownID string) (T, bool, error) {
	var zero T

	if knownID != "" {
		obj, err := l.byID(ctx, knownID)

		switch {
		case err == nil && (l.belongs == nil || l.belongs(obj)):
			return obj, true, nil
		case err != nil && !isNotFound(err):
			return zero, false, fmt.Errorf("reading %s %s: %w", l.kind, knownID, err)
		}

		tflog.Debug(ctx, "Gone by ID; looking it up by name", map[string]any{"kind": l.kind, "id": knownID, "name": name})
	}

	all, ok, err := l.listing.Find(ctx, l.tenant, name)
	if err == nil && ok && l.belongs != nil {
		all = slices.DeleteFunc(all, func(obj T) bool { return !l.belongs(obj) })
	}

	if err == nil && !ok {
		all, err = l.list(ctx, name)
	}

	if err != nil {
		return zero, false, fmt.Errorf("looking up %s %s: %w", l.kind, name, err)
	}

	return naming.One(l.kind, name, all, l.name, l.id)
}

// byID reads the object id: from the run's listing when it can answer (a 404 when the listing
// does not hold it), else from the API.
func (l lookup[T]) byID(ctx context.Context, id string) (T, error) {
	obj, exists, ok, err := l.listing.FindOne(ctx, l.tenant, id)

	switch {
	case err != nil:
		return obj, err
	case ok && !exists:
		return obj, cloud.NotFoundError(l.kind, id)
	case ok:
		return obj, nil
	}

	return l.get(ctx, id)
}

// findID is the ID of the object called name (the Neutron name); "" when there is none.
func (l lookup[T]) findID(ctx context.Context, name string) (string, error) {
	obj, found, err := l.find(ctx, name, "")
	if err != nil || !found {
		return "", err
	}

	return l.id(obj), nil
}
