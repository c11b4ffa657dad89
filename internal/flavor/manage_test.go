package flavor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// novaFlavor is one flavor of fakeAdminNova.
type novaFlavor struct {
	ID, Name                          string
	VCPUs, RAM, Disk, Ephemeral, Swap int
	Public                            bool
	Specs                             map[string]string
	Access                            []string
}

func (f *novaFlavor) json() map[string]any {
	return map[string]any{
		"id": f.ID, "name": f.Name, "vcpus": f.VCPUs, "ram": f.RAM, "disk": f.Disk, "swap": f.Swap,
		"OS-FLV-EXT-DATA:ephemeral": f.Ephemeral, "os-flavor-access:is_public": f.Public,
		"extra_specs": maps.Clone(f.Specs),
	}
}

// fakeAdminNova is a stateful Nova of flavors, as the admin sees it: names and IDs unique on
// create (409), access lists for private flavors only.
type fakeAdminNova struct {
	t   *testing.T
	api *cloudtest.API

	mu      sync.Mutex
	flavors []*novaFlavor
	next    int
	// loseCreates answers that many successful POST /flavors with 502 (the flavor is made).
	loseCreates int
	// proxied answers a refused POST /flavors (409) with 502, as a proxy in front of Nova may.
	proxied bool
	// forbid answers 403 to every request.
	forbid bool
}

func newFakeAdminNova(t *testing.T) (*fakeAdminNova, *Admin) {
	t.Helper()

	n := &fakeAdminNova{t: t, api: cloudtest.New(t)}
	n.api.Fallback(http.HandlerFunc(n.serve))

	refused := func(service, call string, err error) error {
		if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return fmt.Errorf("%s refused %s: %w; needs cloud admin", service, call, err)
		}

		return err
	}

	return n, NewAdmin(novaClient(n.api), "RegionOne", refused)
}

func (n *fakeAdminNova) add(f novaFlavor) *novaFlavor {
	n.mu.Lock()
	defer n.mu.Unlock()

	if f.Specs == nil {
		f.Specs = map[string]string{}
	}

	n.flavors = append(n.flavors, &f)

	return &f
}

func (n *fakeAdminNova) byID(id string) *novaFlavor {
	for _, f := range n.flavors {
		if f.ID == id {
			return f
		}
	}

	return nil
}

func (n *fakeAdminNova) get(id string) *novaFlavor {
	n.mu.Lock()
	defer n.mu.Unlock()

	return n.byID(id)
}

func (n *fakeAdminNova) serve(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	defer n.mu.Unlock()

	if n.forbid {
		cloudtest.WriteJSON(w, http.StatusForbidden, map[string]any{"forbidden": map[string]any{"message": "Policy doesn't allow it"}})
		return
	}

	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	notFound := func() {
		cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404}})
	}

	var body map[string]map[string]any
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			n.t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
		}
	}

	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/flavors/detail":
		if got := r.URL.Query().Get("is_public"); got != "None" {
			n.t.Errorf("flavor list with is_public=%q, want None (public and private)", got)
		}

		all := []any{}
		for _, f := range n.flavors {
			all = append(all, f.json())
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"flavors": all})
	case r.Method == http.MethodPost && r.URL.Path == "/flavors":
		n.create(w, body["flavor"])
	case len(parts) < 2 || parts[0] != "flavors" || n.byID(parts[1]) == nil:
		notFound()
	case len(parts) == 2 && r.Method == http.MethodGet:
		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"flavor": n.byID(parts[1]).json()})
	case len(parts) == 2 && r.Method == http.MethodDelete:
		n.flavors = slices.DeleteFunc(n.flavors, func(f *novaFlavor) bool { return f.ID == parts[1] })
		w.WriteHeader(http.StatusAccepted)
	default:
		n.child(w, r, n.byID(parts[1]), parts[2:], body)
	}
}

func (n *fakeAdminNova) create(w http.ResponseWriter, req map[string]any) {
	num := func(k string) int { v, _ := req[k].(float64); return int(v) }
	name, _ := req["name"].(string)
	f := &novaFlavor{
		Name: name, VCPUs: num("vcpus"), RAM: num("ram"), Disk: num("disk"), Swap: num("swap"),
		Ephemeral: num("OS-FLV-EXT-DATA:ephemeral"), Public: true, Specs: map[string]string{},
	}

	if p, ok := req["os-flavor-access:is_public"].(bool); ok {
		f.Public = p
	}

	f.ID, _ = req["id"].(string)
	if f.ID == "" {
		n.next++
		f.ID = fmt.Sprintf("00000000-0000-4000-8000-%012d", n.next)
	}

	for _, o := range n.flavors {
		if o.Name == f.Name || o.ID == f.ID {
			if n.proxied {
				cloudtest.WriteJSON(w, http.StatusBadGateway, nil)
				return
			}

			cloudtest.WriteJSON(w, http.StatusConflict, map[string]any{"conflictingRequest": map[string]any{"message": "exists"}})

			return
		}
	}

	n.flavors = append(n.flavors, f)

	if n.loseCreates > 0 {
		n.loseCreates--
		cloudtest.WriteJSON(w, http.StatusBadGateway, nil)

		return
	}

	cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"flavor": f.json()})
}

func (n *fakeAdminNova) accessList(f *novaFlavor) map[string]any {
	list := []any{}
	for _, p := range f.Access {
		list = append(list, map[string]any{"flavor_id": f.ID, "tenant_id": p})
	}

	return map[string]any{"flavor_access": list}
}

func (n *fakeAdminNova) child(w http.ResponseWriter, r *http.Request, f *novaFlavor, rest []string, body map[string]map[string]any) {
	call := r.Method + " " + strings.Join(rest, "/")

	switch {
	case call == "GET os-flavor-access" && f.Public:
		cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"message": "public"}})
	case call == "GET os-flavor-access":
		cloudtest.WriteJSON(w, http.StatusOK, n.accessList(f))
	case call == "POST action" && body["addTenantAccess"] != nil:
		p, _ := body["addTenantAccess"]["tenant"].(string)
		if slices.Contains(f.Access, p) {
			cloudtest.WriteJSON(w, http.StatusConflict, nil)
			return
		}

		f.Access = append(f.Access, p)
		cloudtest.WriteJSON(w, http.StatusOK, n.accessList(f))
	case call == "POST action" && body["removeTenantAccess"] != nil:
		p, _ := body["removeTenantAccess"]["tenant"].(string)
		if !slices.Contains(f.Access, p) {
			cloudtest.WriteJSON(w, http.StatusNotFound, nil)
			return
		}

		f.Access = slices.DeleteFunc(f.Access, func(s string) bool { return s == p })
		cloudtest.WriteJSON(w, http.StatusOK, n.accessList(f))
	case call == "POST os-extra_specs":
		for k, v := range body["extra_specs"] {
			f.Specs[k], _ = v.(string)
		}

		cloudtest.WriteJSON(w, http.StatusOK, map[string]any{"extra_specs": body["extra_specs"]})
	case r.Method == http.MethodDelete && len(rest) == 2 && rest[0] == "os-extra_specs":
		if _, ok := f.Specs[rest[1]]; !ok {
			cloudtest.WriteJSON(w, http.StatusNotFound, nil)
			return
		}

		delete(f.Specs, rest[1])
		w.WriteHeader(http.StatusOK)
	default:
		n.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		cloudtest.WriteJSON(w, http.StatusNotImplemented, nil)
	}
}

// fastContext makes cloud.Create's pauses instant.
func fastContext(t *testing.T) context.Context {
	return cloud.WithSleeper(t.Context(), func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
}

func publicSpec(name string) ManagedSpec {
	return ManagedSpec{Name: name, VCPUs: 2, RAMMiB: 2048, DiskGB: 10, Public: true, ExtraSpecs: map[string]string{}}
}

func TestEnsureCreates(t *testing.T) {
	t.Parallel()

	t.Run("public with extra specs", func(t *testing.T) {
		t.Parallel()

		nova, a := newFakeAdminNova(t)
		spec := publicSpec("m1.test")
		spec.ExtraSpecs = map[string]string{"hw:cpu_policy": "dedicated"}
		spec.SwapMiB, spec.EphemeralGB = 512, 5

		out, err := a.Ensure(fastContext(t), spec)
		if err != nil {
			t.Fatal(err)
		}

		want := []string{"GET /flavors/detail", "POST /flavors", "POST /flavors/" + out.ID + "/os-extra_specs"}
		if got := nova.api.Calls(); !slices.Equal(got, want) {
			t.Errorf("requests %v, want %v", got, want)
		}

		made := nova.get(out.ID)
		if made == nil || made.Swap != 512 || made.Ephemeral != 5 || made.Disk != 10 || !made.Public || made.Specs["hw:cpu_policy"] != "dedicated" {
			t.Errorf("Nova holds %+v", made)
		}

		if out.Access != nil || out.ExtraSpecs["hw:cpu_policy"] != "dedicated" || out.SwapMiB != 512 {
			t.Errorf("result %+v", out)
		}
	})

	t.Run("private with access and an ID", func(t *testing.T) {
		t.Parallel()

		nova, a := newFakeAdminNova(t)
		spec := publicSpec("p.test")
		spec.Public, spec.ID, spec.Access = false, "p.test-id", []string{"proj-b", "proj-a"}

		out, err := a.Ensure(fastContext(t), spec)
		if err != nil {
			t.Fatal(err)
		}

		if out.ID != "p.test-id" || !slices.Equal(out.Access, []string{"proj-a", "proj-b"}) {
			t.Errorf("result %+v", out)
		}

		if n := nova.api.Count("POST /flavors/p.test-id/action"); n != 2 {
			t.Errorf("%d access actions, want 2 (%v)", n, nova.api.Calls())
		}
	})
}

// TestEnsureLostAnswer: Nova made the flavor but its answer was lost; the create finds it by
// name and never posts again.
func TestEnsureLostAnswer(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	nova.loseCreates = 1

	out, err := a.Ensure(fastContext(t), publicSpec("m1.lost"))
	if err != nil {
		t.Fatal(err)
	}

	if n := nova.api.Count("POST /flavors"); n != 1 {
		t.Errorf("%d creates, want 1 (%v)", n, nova.api.Calls())
	}

	if nova.get(out.ID) == nil || len(nova.flavors) != 1 {
		t.Errorf("result %+v, Nova holds %d flavors", out, len(nova.flavors))
	}
}

// TestEnsureRefusesAnExistingFlavor: a flavor carries no mark of who made it, so a create never
// adopts one: a flavor of the name with the same sizes is refused as one that differs is (which
// says how), and a flavor of the given ID too, before anything is sent and with nothing touched.
func TestEnsureRefusesAnExistingFlavor(t *testing.T) {
	t.Parallel()

	t.Run("same sizes", func(t *testing.T) {
		t.Parallel()

		nova, a := newFakeAdminNova(t)
		old := nova.add(novaFlavor{ID: "old", Name: "m1.adopt", VCPUs: 2, RAM: 2048, Disk: 10, Public: false,
			Specs: map[string]string{"stale": "1"}, Access: []string{"proj-x"}})

		spec := publicSpec("m1.adopt")
		spec.Public, spec.Access, spec.ExtraSpecs = false, []string{"proj-a"}, map[string]string{"k": "v"}

		_, err := a.Ensure(fastContext(t), spec)

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "old" || !strings.Contains(err.Error(), "terraform import unikorn_flavor.<address> RegionOne/old") {
			t.Fatalf("error %v, want an ExistsError naming old and its import", err)
		}

		if calls := nova.api.Calls(); !slices.Equal(calls, []string{"GET /flavors/detail"}) ||
			!reflect.DeepEqual(old.Specs, map[string]string{"stale": "1"}) || !slices.Equal(old.Access, []string{"proj-x"}) {
			t.Errorf("requests %v, Nova holds %+v: nothing but the look-up", calls, old)
		}
	})

	t.Run("different sizes", func(t *testing.T) {
		t.Parallel()

		nova, a := newFakeAdminNova(t)
		nova.add(novaFlavor{ID: "old", Name: "m1.adopt", VCPUs: 4, RAM: 2048, Disk: 10, Public: true, Specs: map[string]string{"a": "b"}})

		_, err := a.Ensure(fastContext(t), publicSpec("m1.adopt"))

		var (
			mismatch *MismatchError
			exists   *cloud.ExistsError
		)

		if !errors.As(err, &mismatch) || mismatch.ID != "old" || !strings.Contains(err.Error(), "vcpus 4 (wanted 2)") || !errors.As(err, &exists) {
			t.Fatalf("error %v, want a MismatchError on vcpus", err)
		}

		if calls := nova.api.Calls(); !slices.Equal(calls, []string{"GET /flavors/detail"}) {
			t.Errorf("requests %v: nothing but the look-up", calls)
		}
	})

	t.Run("taken ID", func(t *testing.T) {
		t.Parallel()

		nova, a := newFakeAdminNova(t)
		nova.add(novaFlavor{ID: "taken", Name: "other", VCPUs: 2, RAM: 2048, Disk: 10, Public: true})

		spec := publicSpec("m1.new")
		spec.ID = "taken"

		var exists *cloud.ExistsError
		if _, err := a.Ensure(fastContext(t), spec); !errors.As(err, &exists) || exists.ID != "taken" || nova.api.Count("POST /flavors") != 0 ||
			!strings.Contains(err.Error(), `name "other" (wanted "m1.new", with the same flavor_id)`) {
			t.Fatalf("error %v after %v, want an ExistsError naming the flavor of the ID", err, nova.api.Calls())
		}
	})
}

// TestEnsureRefusesAFlavorBehindALostAnswer: a flavor of the name exists, and the POST's answer
// would be a proxy's 502 in front of Nova's 409. The create looks first and refuses it: the lost
// answer cannot make it take that flavor and overwrite its extra specs and access (issue 26,
// item 2).
func TestEnsureRefusesAFlavorBehindALostAnswer(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	nova.proxied = true
	old := nova.add(novaFlavor{ID: "old", Name: "m1.x", VCPUs: 2, RAM: 2048, Disk: 10, Public: true, Specs: map[string]string{"a": "b"}})

	spec := publicSpec("m1.x")
	spec.ExtraSpecs = map[string]string{"k": "v"}

	out, err := a.Ensure(fastContext(t), spec)

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "old" {
		t.Fatalf("got %+v, %v; want an ExistsError naming old", out, err)
	}

	if writes := nova.api.Writes(); len(writes) != 0 || !reflect.DeepEqual(old.Specs, map[string]string{"a": "b"}) {
		t.Fatalf("a refused create made %v; Nova holds %+v", writes, old)
	}
}

// TestEnsureLostAnswerTakesOnlyAMatchingFlavor: after a lost answer, a flavor of the name that
// differs in its sizes is not the POST's own: it is refused, not converged.
func TestEnsureLostAnswerTakesOnlyAMatchingFlavor(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	nova.api.On("POST", "/flavors", func(w http.ResponseWriter, _ *http.Request) {
		nova.add(novaFlavor{ID: "other", Name: "m1.x", VCPUs: 8, RAM: 2048, Disk: 10, Public: true})
		cloudtest.WriteJSON(w, http.StatusBadGateway, nil)
	})

	_, err := a.Ensure(fastContext(t), publicSpec("m1.x"))

	var mismatch *MismatchError
	if !errors.As(err, &mismatch) || mismatch.ID != "other" || nova.api.Count("POST /flavors") != 1 || len(nova.api.Writes()) != 1 {
		t.Fatalf("error %v after %v, want a MismatchError naming other and nothing more", err, nova.api.Calls())
	}
}

// TestObserve reads by ID; a flavor gone by its ID is gone (one of its name has another ID and
// no mark that shows it to be this resource's).
func TestObserve(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	ctx := t.Context()

	nova.add(novaFlavor{ID: "a", Name: "m1.a", VCPUs: 1, RAM: 512, Public: false, Access: []string{"p2", "p1"}})
	nova.add(novaFlavor{ID: "b", Name: "m1.b", VCPUs: 1, RAM: 512, Public: true, Specs: map[string]string{"x": "y"}})

	got, err := a.Observe(ctx, "a")
	if err != nil || got == nil || !slices.Equal(got.Access, []string{"p1", "p2"}) || got.Public {
		t.Errorf("by ID: %+v, %v", got, err)
	}

	if got, err = a.Observe(ctx, "gone"); got != nil || err != nil {
		t.Errorf("gone by ID: %+v, %v", got, err)
	}

	nova.api.Reset()

	if got, err = a.Observe(ctx, "b"); err != nil || got == nil || got.ExtraSpecs["x"] != "y" || got.Access != nil {
		t.Fatal(got, err)
	}

	if calls := nova.api.Calls(); !slices.Equal(calls, []string{"GET /flavors/b"}) {
		t.Errorf("refresh of a public flavor: %v, want one GET", calls)
	}
}

// TestConverge sets changed specs in one call, removes dropped ones, and converges access.
func TestConverge(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	f := nova.add(novaFlavor{ID: "a", Name: "m1.a", VCPUs: 1, RAM: 512, Public: false,
		Specs: map[string]string{"keep": "1", "change": "old", "drop": "x"}, Access: []string{"p1", "p2"}})

	cur, err := a.Observe(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}

	nova.api.Reset()

	spec := ManagedSpec{Name: "m1.a", ExtraSpecs: map[string]string{"keep": "1", "change": "new", "add": "y"}, Access: []string{"p2", "p3"}}

	out, err := a.Converge(t.Context(), cur, spec)
	if err != nil {
		t.Fatal(err)
	}

	want := map[string]string{"keep": "1", "change": "new", "add": "y"}
	if !reflect.DeepEqual(out.ExtraSpecs, want) || !reflect.DeepEqual(f.Specs, want) {
		t.Errorf("specs %v, Nova %v, want %v", out.ExtraSpecs, f.Specs, want)
	}

	if !slices.Equal(out.Access, []string{"p2", "p3"}) || !slices.Equal(cloud.SortedSet(slices.Clone(f.Access)), []string{"p2", "p3"}) {
		t.Errorf("access %v, Nova %v", out.Access, f.Access)
	}

	if body := nova.api.Last(t, "POST /flavors/a/os-extra_specs").JSON(t, "extra_specs"); len(body) != 2 {
		t.Errorf("set %v, want only the changed and added keys", body)
	}

	if n := len(nova.api.Calls()); n != 4 {
		t.Errorf("%d requests, want 4 (set, remove one, add one, take one): %v", n, nova.api.Calls())
	}
}

func TestDeleteAndLocate(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	ctx := t.Context()

	nova.add(novaFlavor{ID: "a", Name: "m1.a", VCPUs: 1, RAM: 512, Public: true})

	for _, key := range []string{"a", "m1.a"} {
		if f, err := a.Locate(ctx, key); err != nil || f == nil || f.ID != "a" {
			t.Errorf("locate %q: %+v, %v", key, f, err)
		}
	}

	if f, err := a.Locate(ctx, "m1"); f != nil || err != nil {
		t.Errorf("locate a near miss: %+v, %v", f, err)
	}

	if err := a.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}

	if err := a.Delete(ctx, "a"); err != nil {
		t.Errorf("deleting a flavor already gone: %v", err)
	}
}

// TestRefused: a 403 says that the service user needs cloud admin.
func TestRefused(t *testing.T) {
	t.Parallel()

	nova, a := newFakeAdminNova(t)
	nova.forbid = true

	_, err := a.Ensure(fastContext(t), publicSpec("m1.x"))
	if err == nil || !strings.Contains(err.Error(), "Nova refused listing the public and private flavors") || !strings.Contains(err.Error(), "cloud admin") {
		t.Errorf("error %v", err)
	}
}
