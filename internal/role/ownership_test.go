package role

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

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// keystoneRoles is a stateful fake of Keystone's roles and their inference rules: listed (by
// name, ignoring case, and by domain: the global ones without), created with whatever extra
// attributes the POST carries, read and PATCHed by ID; PUT /v3/roles/{id}/implies/{other} adds a
// rule. onPost, when set, runs instead of a plain create: it may make the role and answer as a
// proxy in front of Keystone would.
type keystoneRoles struct {
	mu     sync.Mutex
	byID   map[string]map[string]any
	rules  map[string][]string // role ID → implied role IDs
	n      int
	onPost func(k *keystoneRoles, body map[string]any) (status int)
}

func newKeystoneRoles(f *cloudtest.API, existing ...map[string]any) *keystoneRoles {
	k := &keystoneRoles{byID: map[string]map[string]any{}, rules: map[string][]string{}}
	for _, r := range existing {
		k.byID[r["id"].(string)] = r //nolint:forcetypeassert // the test's own fixtures
	}

	f.On("GET", "/v3/roles", func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		defer k.mu.Unlock()

		q := r.URL.Query()

		var out []any

		for _, id := range slicesSorted(k.byID) {
			role := k.byID[id]
			domainID, _ := role["domain_id"].(string)

			if (q.Get("name") == "" || strings.EqualFold(role["name"].(string), q.Get("name"))) && domainID == q.Get("domain_id") { //nolint:forcetypeassert // ours
				out = append(out, role)
			}
		}

		cloudtest.WriteJSON(w, 200, roleList(out...))
	})
	f.On("POST", "/v3/roles", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Role map[string]any `json:"role"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		k.mu.Lock()
		defer k.mu.Unlock()

		if k.onPost != nil {
			cloudtest.WriteJSON(w, k.onPost(k, body.Role), nil)
			return
		}

		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"role": k.add(body.Role)})
	})
	f.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v3/roles/"), "/")

		k.mu.Lock()
		defer k.mu.Unlock()

		role := k.byID[parts[0]]
		if role == nil || !strings.HasPrefix(r.URL.Path, "/v3/roles/") {
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
			return
		}

		switch {
		case len(parts) == 1 && r.Method == http.MethodPatch:
			var body struct {
				Role map[string]any `json:"role"`
			}

			_ = json.NewDecoder(r.Body).Decode(&body)

			for key, v := range body.Role {
				role[key] = v
			}

			cloudtest.WriteJSON(w, 200, map[string]any{"role": role})
		case len(parts) == 1:
			cloudtest.WriteJSON(w, 200, map[string]any{"role": role})
		case len(parts) == 2 && parts[1] == "implies":
			var implied []map[string]any
			for _, id := range k.rules[parts[0]] {
				implied = append(implied, map[string]any{"id": id, "name": k.byID[id]["name"]})
			}

			cloudtest.WriteJSON(w, 200, implies(parts[0], implied...))
		case len(parts) == 3 && r.Method == http.MethodPut:
			k.rules[parts[0]] = append(k.rules[parts[0]], parts[2])
			cloudtest.WriteJSON(w, 201, map[string]any{"role_inference": map[string]any{}})
		default:
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
		}
	}))

	return k
}

func slicesSorted(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}

	slices.Sort(out)

	return out
}

// add stores a role made from body; the caller holds the lock.
func (k *keystoneRoles) add(body map[string]any) map[string]any {
	k.n++

	r := role(fmt.Sprintf("r-%d", k.n), "", "")
	for key, v := range body {
		r[key] = v
	}

	k.byID[r["id"].(string)] = r //nolint:forcetypeassert // set just above

	return r
}

// markedRole is a role "tf-mgr" of domainID ("": global) carrying marks m (Keystone returns
// extra attributes at the top level).
func markedRole(id, domainID string, m naming.Mark) map[string]any {
	r := role(id, "tf-mgr", domainID)
	for key, v := range m.Properties() {
		r[key] = v
	}

	return r
}

// instant is a context whose pauses (cloud.Create's looks for a lost answer) end at once.
func instant() context.Context { return cloud.WithSleeper(context.Background(), cloudtest.Instant) }

// TestCreateRefusesAnExistingRoleBehindALostAnswer: the cloud's own role "reader" exists; the
// POST's answer would be a proxy's 502 in front of Keystone's 409. The create looks first and
// refuses it before any write: "reader" is not recorded, and does not come to imply "member"
// (issue 26, item 2).
func TestCreateRefusesAnExistingRoleBehindALostAnswer(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneRoles(f, role("r-rd", "reader", ""), role("r-mem", "member", ""))
	k.onPost = func(*keystoneRoles, map[string]any) int { return http.StatusBadGateway }

	out, err := service(f).Create(instant(), Spec{Name: "reader", Implies: []string{"member"}})

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "r-rd" || exists.Claim != cloud.ClaimForeign ||
		!strings.Contains(err.Error(), "terraform import unikorn_role.<address> r-rd") {
		t.Fatalf("got %+v, %v; want an ExistsError naming r-rd and its import", out, err)
	}

	if writes := f.Writes(); len(writes) != 0 || len(k.rules["r-rd"]) != 0 {
		t.Fatalf("a refused create made %v (reader implies %v)", writes, k.rules["r-rd"])
	}
}

// TestCreateRecoversItsOwnLostAnswer: the POST makes the role and its answer is lost; the look
// after it finds the role carrying this create's mark and takes it; the rules follow, and the
// completion mark ends the create.
func TestCreateRecoversItsOwnLostAnswer(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneRoles(f, role("r-mem", "member", ""))
	k.onPost = func(k *keystoneRoles, body map[string]any) int {
		k.add(body)
		return http.StatusServiceUnavailable
	}

	out, err := service(f).Create(instant(), Spec{Name: "tf-mgr", Implies: []string{"member"}})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{"POST /v3/roles", "PUT /v3/roles/r-1/implies/r-mem", "PATCH /v3/roles/r-1"}
	if out.ID != "r-1" || !slices.Equal(out.Implies, []string{"member"}) || !slices.Equal(f.Writes(), want) {
		t.Fatalf("got %+v after %v; want r-1 implying member, %v", out, f.Writes(), want)
	}

	if got := naming.MarkOf(k.byID["r-1"]); got != naming.MadeFor(TypeName).Done() {
		t.Fatalf("Keystone holds the marks %+v", got)
	}
}

// TestLostAnswerRecoversOnlyItsOwnRole: while the POST's answer is lost, a role of the name that
// another tool made shows up; it is not taken for this create's, and gets no rule.
func TestLostAnswerRecoversOnlyItsOwnRole(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneRoles(f, role("r-mem", "member", ""))
	k.onPost = func(k *keystoneRoles, _ map[string]any) int {
		k.add(map[string]any{"name": "tf-mgr"}) // someone else's, unmarked
		return http.StatusBadGateway
	}

	out, err := service(f).Create(instant(), Spec{Name: "tf-mgr", Implies: []string{"member"}})

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "r-1" || !slices.Equal(f.Writes(), []string{"POST /v3/roles"}) {
		t.Fatalf("got %+v, %v after %v; want the foreign r-1 refused, untouched", out, err, f.Writes())
	}
}

// TestCreateAdoptsOnlyAnInterruptedCreate: a role carrying the creation mark of unikorn_role and
// no completion mark is adopted (no POST), given its rules and completed; a finished one, or one
// made for another type, is refused and keeps its rules.
func TestCreateAdoptsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	newKeystoneRoles(f, markedRole("r-7", "", naming.MadeFor(TypeName)), role("r-mem", "member", ""))

	out, err := service(f).Create(instant(), Spec{Name: "tf-mgr", Implies: []string{"member"}})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{"PUT /v3/roles/r-7/implies/r-mem", "PATCH /v3/roles/r-7"}
	if out.ID != "r-7" || !slices.Equal(f.Writes(), want) || !out.Mark.Completed || !slices.Equal(out.Implies, []string{"member"}) {
		t.Fatalf("got %+v after %v; want r-7 adopted, given its rule and completed", out, f.Writes())
	}

	for _, m := range []naming.Mark{naming.MadeFor(TypeName).Done(), naming.MadeFor("unikorn_domain")} {
		f := cloudtest.New(t)
		newKeystoneRoles(f, markedRole("r-8", "", m), role("r-mem", "member", ""))

		_, err := service(f).Create(instant(), Spec{Name: "tf-mgr", Implies: []string{"member"}})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "r-8" || len(f.Writes()) != 0 {
			t.Errorf("%+v: got %v after %v; want an ExistsError and no write", m, err, f.Writes())
		}
	}
}

// TestObserveRefindsOnlyAnUnfinishedCreate: a role gone by its recorded ID is replaced by the one
// of its name only when that one is what an interrupted create left.
func TestObserveRefindsOnlyAnUnfinishedCreate(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		mark    naming.Mark
		refound bool
	}{
		{naming.MadeFor(TypeName), true},
		{naming.MadeFor(TypeName).Done(), false},
		{naming.Mark{}, false},
	} {
		f := cloudtest.New(t)
		newKeystoneRoles(f, markedRole("r-new", "", c.mark))

		r, refound, err := service(f).Observe(context.Background(), "r-old", "tf-mgr", "")
		if err != nil || refound != c.refound || (r != nil) != c.refound {
			t.Errorf("%+v: got %+v, %v, %v; want refound %v", c.mark, r, refound, err, c.refound)
		}
	}
}
