package cloud

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Per-run listings (issue 17): a refresh of many objects of one kind in one tenant (servers,
// ports, networks, ...) costs one paginated listing of that kind, taken at the first read and
// shared by every later read of the provider process, instead of one read per object.
//
// A listing never hides what this process did: every write records the objects it touches
// (Tenant.Wrote) before it is sent, and a read of a written object — by any of its keys, even
// one read from the listing — is not answered from the listing: the caller asks the API, as it
// always did. What another process changes is seen as it was when the listing was taken, a
// moment before, exactly as a read one by one would have seen it at that moment.

// Listing is a kind of tenant object that a run lists once per tenant (project and region).
type Listing[T any] struct {
	// Kind names the objects ("server", "port"): the key of the listing, and of the writes
	// (Tenant.Wrote) that keep it from answering.
	Kind string
	// List lists every object of the kind in the tenant's project and region (every page;
	// filtered to the project, whatever the token may see).
	List func(ctx context.Context, t *Tenant) ([]T, error)
	// Keys are what an object is looked up by: its ID, its name, and whatever else lookups
	// use (e.g. the port a floating IP is on).
	Keys func(T) []string
}

// listingKey is one kind in one tenant.
type listingKey struct {
	project, region, kind string
}

// runState is what a Client remembers of its run for the per-run listings and the polling
// rounds: the listings taken, what the process wrote, and the rounds in progress.
type runState struct {
	mu       sync.Mutex
	written  map[listingKey]map[string]bool
	wroteAll map[listingKey]bool
	listings OnceCache[listingKey, any]
	rounds   map[listingKey]any // *roundLoop[T]
	// taken counts the listings taken, by "kind region project" (RunListings).
	taken map[string]int
}

// run is the tenant's client's run state; nil when the listings cannot serve the tenant: a
// tenant without a cloud behind it (tests on fakes), or one bound in a scope whose token is
// not scoped to the tenant's project (the admin scope under the cloud-admin model), where a
// listing would list another project's objects.
func (t *Tenant) run() *runState {
	if t == nil || t.session == nil || t.session.client == nil || t.session.projectID != t.projectID {
		return nil
	}

	return &t.session.client.runs
}

// took counts the listing of k.
func (r *runState) took(k listingKey) {
	r.mu.Lock()
	defer r.mu.Unlock()

	if r.taken == nil {
		r.taken = map[string]int{}
	}

	r.taken[k.kind+" "+k.region+" "+k.project]++
}

// RunListings counts the per-run listings this client took (Listing: each is taken once per
// kind, region and project, however many reads it answers) by "kind region project_id": what
// the tests of the request budgets assert.
func (c *Client) RunListings() map[string]int {
	c.runs.mu.Lock()
	defer c.runs.mu.Unlock()

	return maps.Clone(c.runs.taken)
}

func (t *Tenant) listingKey(kind string) listingKey {
	return listingKey{project: t.projectID, region: t.region, kind: kind}
}

// Wrote records that this process writes the objects of kind carrying these keys (IDs,
// names) in the tenant: from now on no listing answers for them. Call it before the request
// is sent (a create whose answer is lost may still have made its object) and again with the
// ID the answer gave. Empty keys are ignored.
func (t *Tenant) Wrote(kind string, keys ...string) {
	r := t.run()
	if r == nil {
		return
	}

	k := t.listingKey(kind)

	r.mu.Lock()
	defer r.mu.Unlock()

	if r.written == nil {
		r.written = map[listingKey]map[string]bool{}
	}

	if r.written[k] == nil {
		r.written[k] = map[string]bool{}
	}

	for _, key := range keys {
		if key != "" {
			r.written[k][key] = true
		}
	}
}

// WroteAll records a write that may touch any object of kind in the tenant: no listing answers
// for the kind any more in this process.
func (t *Tenant) WroteAll(kind string) {
	r := t.run()
	if r == nil {
		return
	}

	r.mu.Lock()
	defer r.mu.Unlock()

	if r.wroteAll == nil {
		r.wroteAll = map[listingKey]bool{}
	}

	r.wroteAll[t.listingKey(kind)] = true
}

// WroteEverything records a write that may touch any object of any kind in the tenant (a
// force_destroy of what is left in a project): no listing answers for the tenant any more in
// this process.
func (t *Tenant) WroteEverything() { t.WroteAll(everyKind) }

// everyKind is the kind of WroteEverything's record.
const everyKind = ""

// unwritten tells whether none of keys of kind was written by this process.
func (r *runState) unwritten(k listingKey, keys ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()

	if r.wroteAll[k] || r.wroteAll[listingKey{project: k.project, region: k.region, kind: everyKind}] {
		return false
	}

	return !slices.ContainsFunc(keys, func(key string) bool { return r.written[k][key] })
}

// Find answers from the run's listing of the tenant's objects of the kind which carry key
// (listing them first, once, if this is the first read of the kind). ok is false when the
// listing may not answer — the tenant cannot be listed, or this process wrote an object that
// carries key or that the listing names for it — and the caller must ask the API.
func (l Listing[T]) Find(ctx context.Context, t *Tenant, key string) (found []T, ok bool, err error) {
	r := t.run()
	if r == nil || key == "" {
		return nil, false, nil
	}

	k := t.listingKey(l.Kind)
	if !r.unwritten(k, key) {
		return nil, false, nil
	}

	v, err := r.listings.Get(ctx, k, func(ctx context.Context) (any, error) {
		all, err := l.List(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("listing the %ss of %s: %w", l.Kind, t, err)
		}

		tflog.Debug(ctx, "Listed for the run", map[string]any{
			"kind": l.Kind, "region": t.region, "project_id": t.projectID, "count": len(all),
		})
		r.took(k)

		return all, nil
	})
	if err != nil {
		return nil, false, err
	}

	all, typed := v.([]T)
	if !typed {
		// Two listings of one kind with other types: a programming error, never a silent "none".
		return nil, false, fmt.Errorf("the run's listing of %ss holds %T, not []%T", l.Kind, v, *new(T))
	}

	for _, obj := range all {
		keys := l.Keys(obj)
		if !slices.Contains(keys, key) {
			continue
		}

		if !r.unwritten(k, keys...) {
			return nil, false, nil
		}

		found = append(found, obj)
	}

	return found, r.unwritten(k, key), nil
}

// FindOne is Find for a key that names at most one object (an ID): the object, whether there
// is one, and whether the listing could answer.
func (l Listing[T]) FindOne(ctx context.Context, t *Tenant, key string) (obj T, exists, ok bool, err error) {
	found, ok, err := l.Find(ctx, t, key)
	if err != nil || !ok || len(found) == 0 {
		return obj, false, ok, err
	}

	return found[0], true, true, nil
}

// NotFoundError is a 404 for an object that a listing no longer holds, so that [Poll] and the
// cores treat it as Nova or Neutron's own 404.
func NotFoundError(kind, id string) error {
	return gophercloud.ErrUnexpectedResponseCode{
		Method: http.MethodGet, URL: kind + "/" + id, Expected: []int{http.StatusOK}, Actual: http.StatusNotFound,
		Body: []byte(fmt.Sprintf("%s %s not found", kind, id)),
	}
}

// Located lists, for a list resource, the objects of the kind in tenant t through the kind's
// own List, and keeps those named <prefix><name> (prefix "" keeps them all): Located.Name is
// the user-given name, Located.ProjectID the tenant's project.
func (l Listing[T]) Located(ctx context.Context, t *Tenant, prefix string, name, id func(T) string) ([]Located, error) {
	all, err := l.List(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("listing the %ss of %s: %w", l.Kind, t, err)
	}

	var out []Located

	for _, o := range all {
		if user, ok := strings.CutPrefix(name(o), prefix); ok && user != "" {
			out = append(out, Located{ID: id(o), ProjectID: t.ProjectID(), Name: user})
		}
	}

	return out, nil
}

// ListLocated lists, for a list resource, every object of pager (what names them in errors)
// and keeps those that located says are of the kind, as it locates them.
func ListLocated[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error), what string,
	located func(T) (Located, bool),
) ([]Located, error) {
	all, err := ListAll(ctx, pager, extract, what)
	if err != nil {
		return nil, err
	}

	var out []Located

	for _, o := range all {
		if l, ok := located(o); ok {
			out = append(out, l)
		}
	}

	return out, nil
}
