package project

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The managed domain and the service user's own project of the fake cloud.
const (
	managedDomain = "dom-1"
	serviceProj   = "svc-project"
)

// keystone is a stateful fake of the Keystone a project needs (projects and groups listed by
// name and domain, made with whatever extra attributes the POST carries, read and PATCHed by ID;
// the global roles; role assignments, none listed and every grant accepted) behind a cloud whose
// every other service accepts any quota (the quotas are not what these tests look at).
type keystone struct {
	mu       sync.Mutex
	objects  map[string]map[string]map[string]any // "projects" or "groups" → ID → object
	n        int
	onCreate func(k *keystone, kind string, body map[string]any) (status int) // nil: a plain create
}

func newKeystone(t *testing.T, api *cloudtest.API) (*keystone, *cloud.Client) {
	t.Helper()

	k := &keystone{objects: map[string]map[string]map[string]any{"projects": {}, "groups": {}}}

	endpoint := func(typ, path string) map[string]any {
		return map[string]any{"type": typ, "name": typ, "id": typ, "endpoints": []any{map[string]any{
			"id": typ + "-public", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": api.URL() + path,
		}}}
	}

	catalog := []any{endpoint("identity", "/v3"), endpoint("compute", "/compute/v2.1"), endpoint("network", "/network/v2.0"),
		endpoint("load-balancer", "/lb/v2.0"), endpoint("block-storage", "/volume/v3"), endpoint("image", "/image/v2")}

	api.On("POST", "/v3/auth/tokens", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Subject-Token", "tok-"+time.Now().Format(time.RFC3339Nano))
		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"token": map[string]any{
			"methods":    []string{"password"},
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"user":       map[string]any{"id": "svc", "name": "svc", "domain": map[string]any{"id": "default", "name": "Default"}},
			"project":    map[string]any{"id": serviceProj, "name": "service", "domain": map[string]any{"id": "default", "name": "Default"}},
			"catalog":    catalog,
		}})
	})
	api.Reply("GET", "/v3/roles", 200, map[string]any{"roles": []any{
		map[string]any{"id": "r-member", "name": "member"},
		map[string]any{"id": "r-lb", "name": "load-balancer_member"},
		map[string]any{"id": "r-manager", "name": "manager"},
		map[string]any{"id": "r-reader", "name": "reader"},
	}})
	api.Reply("GET", "/v3/role_assignments", 200, map[string]any{"role_assignments": []any{}, "links": map[string]any{}})

	for _, kind := range []string{"projects", "groups"} {
		api.On("GET", "/v3/"+kind, func(w http.ResponseWriter, r *http.Request) { k.list(w, r, kind) })
		api.On("POST", "/v3/"+kind, func(w http.ResponseWriter, r *http.Request) { k.create(w, r, kind) })
	}

	api.Fallback(http.HandlerFunc(k.byID))

	c, err := cloud.New(context.Background(), cloud.Config{
		AuthURL: api.URL() + "/v3", UserName: "svc", UserDomainName: "Default", Password: "pw",
		ProjectName: "service", Region: "RegionOne", MaxRetries: new(0),
	})
	if err != nil {
		t.Fatalf("cloud client against the fake: %v", err)
	}

	return k, c
}

// singular is the JSON key of one object of kind.
func singular(kind string) string { return strings.TrimSuffix(kind, "s") }

func (k *keystone) list(w http.ResponseWriter, r *http.Request, kind string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	q := r.URL.Query()

	out := []any{}

	for _, o := range k.objects[kind] {
		if strings.EqualFold(fmt.Sprint(o["name"]), q.Get("name")) && o["domain_id"] == q.Get("domain_id") {
			out = append(out, o)
		}
	}

	cloudtest.WriteJSON(w, 200, map[string]any{kind: out, "links": map[string]any{}})
}

func (k *keystone) create(w http.ResponseWriter, r *http.Request, kind string) {
	var body map[string]map[string]any

	_ = json.NewDecoder(r.Body).Decode(&body)

	k.mu.Lock()
	defer k.mu.Unlock()

	if k.onCreate != nil {
		if status := k.onCreate(k, kind, body[singular(kind)]); status != 0 {
			cloudtest.WriteJSON(w, status, nil)
			return
		}
	}

	cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{singular(kind): k.add(kind, body[singular(kind)])})
}

// add stores an object of kind made from body; the caller holds the lock.
func (k *keystone) add(kind string, body map[string]any) map[string]any {
	k.n++

	o := map[string]any{"id": fmt.Sprintf("%s-%d", singular(kind), k.n), "description": "", "enabled": true, "tags": []string{}}
	for key, v := range body {
		o[key] = v
	}

	k.objects[kind][o["id"].(string)] = o //nolint:forcetypeassert // set just above

	return o
}

// put stores o as an existing object of kind.
func (k *keystone) put(kind string, o map[string]any) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.objects[kind][o["id"].(string)] = o //nolint:forcetypeassert // the test's own fixtures
}

// byID answers the reads and PATCHes of one project or group, the role grants (accepted) and
// every quota (an empty one: unlimited).
func (k *keystone) byID(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v3/"), "/")

	switch {
	case !strings.HasPrefix(r.URL.Path, "/v3/"):
		cloudtest.WriteJSON(w, 200, map[string]any{"quota_set": map[string]any{}, "quota": map[string]any{}})
		return
	case len(parts) > 2 && r.Method == http.MethodPut: // a grant
		w.WriteHeader(http.StatusNoContent)
		return
	}

	k.mu.Lock()
	defer k.mu.Unlock()

	o := k.objects[parts[0]][parts[len(parts)-1]]
	if len(parts) != 2 || o == nil {
		cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
		return
	}

	if r.Method == http.MethodPatch {
		var body map[string]map[string]any

		_ = json.NewDecoder(r.Body).Decode(&body)

		for key, v := range body[singular(parts[0])] {
			o[key] = v
		}
	}

	cloudtest.WriteJSON(w, 200, map[string]any{singular(parts[0]): o})
}

// object is a project or group of the managed domain named name, with marks m and tags.
func object(id, name string, m naming.Mark, tags ...string) map[string]any {
	if tags == nil {
		tags = []string{}
	}

	o := map[string]any{"id": id, "name": name, "domain_id": managedDomain, "enabled": true, "description": "", "tags": tags}
	for key, v := range m.Properties() {
		o[key] = v
	}

	return o
}

// spec is a project "tf-team" of the managed domain with its default group.
func spec(name string) Spec {
	return Spec{Name: name, DomainID: managedDomain, Enabled: true, GroupName: naming.ProjectGroup(name), UserDomainID: managedDomain}
}

// keystoneWrites are the writes a run made to Keystone (not the token requests).
func keystoneWrites(api *cloudtest.API) []string {
	return slices.DeleteFunc(api.Writes(), func(c string) bool { return c == "POST /v3/auth/tokens" })
}

func ensure(t *testing.T, api *cloudtest.API, c *cloud.Client, s Spec, prior Prior) (*Project, error) {
	t.Helper()

	svc, err := NewService(c, identity.NewConfig(nil))
	if err != nil {
		t.Fatal(err)
	}

	api.Reset()

	return svc.Ensure(cloud.WithSleeper(context.Background(), cloudtest.Instant), s, prior)
}

// TestEnsureChecksBeforeAnyWrite: an imported project that may not be a unikorn_project (named
// like an identity, in Keystone's Default domain, or the service user's own) is refused before
// anything is written: no tag, no grant (issue 26, item 12).
func TestEnsureChecksBeforeAnyWrite(t *testing.T) {
	t.Parallel()

	for name, p := range map[string]map[string]any{
		"identity": object("p-ident", naming.IdentityProject("x"), naming.Mark{}),
		"default":  {"id": "p-def", "name": "ops", "domain_id": "default", "enabled": true, "description": "", "tags": []string{}},
		"service":  object(serviceProj, "service", naming.Mark{}),
	} {
		api := cloudtest.New(t)
		k, c := newKeystone(t, api)
		k.put("projects", p)

		s := spec(p["name"].(string)) //nolint:forcetypeassert // the test's own fixtures
		if name == "identity" {
			s.Name = "renamed" // the configured name is fine: the recorded project is not
		}

		_, err := ensure(t, api, c, s, Prior{ProjectID: p["id"].(string)}) //nolint:forcetypeassert // ours

		var refused *UnmanageableError
		if !errors.As(err, &refused) {
			t.Errorf("%s: got %v; want an UnmanageableError", name, err)
		}

		if writes := keystoneWrites(api); len(writes) != 0 {
			t.Errorf("%s: a refused apply made %v", name, writes)
		}
	}
}

// TestCreateRefusesAnIdentityName: a project named like an identity's is refused before anything
// is made (a unikorn_identity of that name would adopt it).
func TestCreateRefusesAnIdentityName(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	_, c := newKeystone(t, api)

	out, err := ensure(t, api, c, spec(naming.IdentityProject("x")), Prior{})

	var refused *UnmanageableError
	if out != nil || !errors.As(err, &refused) || refused.Attribute != "name" {
		t.Fatalf("got %+v, %v; want an UnmanageableError at name", out, err)
	}

	if writes := keystoneWrites(api); len(writes) != 0 {
		t.Fatalf("a refused create made %v", writes)
	}
}

// TestCreateMarksTheProjectAndItsGroup: the project and its group carry the creation mark of
// unikorn_project from their POSTs, and the project's completion mark is the create's last write.
func TestCreateMarksTheProjectAndItsGroup(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	k, c := newKeystone(t, api)

	out, err := ensure(t, api, c, spec("tf-team"), Prior{})
	if err != nil {
		t.Fatal(err)
	}

	writes := keystoneWrites(api)
	if len(writes) < 3 || writes[0] != "POST /v3/projects" || writes[1] != "POST /v3/groups" || writes[len(writes)-1] != "PATCH /v3/projects/"+out.ID {
		t.Fatalf("made %v; want the project, its group, ..., the completion mark last", writes)
	}

	if m := naming.MarkOf(k.objects["projects"][out.ID]); m != naming.MadeFor(TypeName).Done() {
		t.Errorf("the project carries %+v", m)
	}

	if m := naming.MarkOf(k.objects["groups"][out.GroupID]); m != naming.MadeFor(TypeName) {
		t.Errorf("the group carries %+v", m)
	}
}

// TestCreateRefusesAnExistingProjectBehindALostAnswer: a project of the name that this provider
// did not make exists; the POST would be answered by a proxy's 502 in front of Keystone's 409.
// The create looks first and refuses it with nothing written: it is neither recorded, nor tagged,
// nor granted (issue 26, item 2).
func TestCreateRefusesAnExistingProjectBehindALostAnswer(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	k, c := newKeystone(t, api)
	k.put("projects", object("p-old", "tf-team", naming.Mark{}))
	k.onCreate = func(*keystone, string, map[string]any) int { return http.StatusBadGateway }

	out, err := ensure(t, api, c, spec("tf-team"), Prior{})

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "p-old" || exists.Kind != "project" {
		t.Fatalf("got %+v, %v; want an ExistsError naming p-old", out, err)
	}

	if writes := keystoneWrites(api); len(writes) != 0 {
		t.Fatalf("a refused create made %v", writes)
	}
}

// TestCreateAdoptsAnInterruptedCreate: the project and group an interrupted create left (creation
// marks, no completion) are adopted (no POST) and the create ends with the completion mark; a
// finished project of the name, or a project made for another type (an identity's), is refused.
func TestCreateAdoptsAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	k, c := newKeystone(t, api)
	k.put("projects", object("p-7", "tf-team", naming.MadeFor(TypeName), naming.HumanProjectTag))
	k.put("groups", object("g-7", naming.ProjectGroup("tf-team"), naming.MadeFor(TypeName)))

	out, err := ensure(t, api, c, spec("tf-team"), Prior{})
	if err != nil {
		t.Fatal(err)
	}

	if out.ID != "p-7" || out.GroupID != "g-7" || api.Count("POST /v3/projects")+api.Count("POST /v3/groups") != 0 ||
		naming.MarkOf(k.objects["projects"]["p-7"]) != naming.MadeFor(TypeName).Done() {
		t.Fatalf("got %+v after %v; want p-7 and g-7 adopted and completed", out, keystoneWrites(api))
	}

	for _, m := range []naming.Mark{naming.MadeFor(TypeName).Done(), naming.MadeFor("unikorn_identity")} {
		api := cloudtest.New(t)
		k, c := newKeystone(t, api)
		k.put("projects", object("p-8", "tf-team", m))

		_, err := ensure(t, api, c, spec("tf-team"), Prior{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "p-8" || len(keystoneWrites(api)) != 0 {
			t.Errorf("%+v: got %v after %v; want an ExistsError and no write", m, err, keystoneWrites(api))
		}
	}
}

// TestCreateRefusesAGroupOfTheName: a new project never takes a group of its group's name that
// exists already (another project's, or someone's): refused with nothing made.
func TestCreateRefusesAGroupOfTheName(t *testing.T) {
	t.Parallel()

	for _, m := range []naming.Mark{{}, naming.MadeFor(TypeName)} {
		api := cloudtest.New(t)
		k, c := newKeystone(t, api)
		k.put("groups", object("g-old", naming.ProjectGroup("tf-team"), m))

		_, err := ensure(t, api, c, spec("tf-team"), Prior{})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.Kind != "group" || exists.ID != "g-old" || len(keystoneWrites(api)) != 0 {
			t.Errorf("%+v: got %v after %v; want an ExistsError naming g-old and no write", m, err, keystoneWrites(api))
		}
	}
}
