package domain

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

// keystoneDomains is a stateful fake of Keystone's domains: listed by name (ignoring case, as
// Keystone does), created with whatever extra attributes the POST carries, read and PATCHed by
// ID. onPost, when set, runs instead of a plain create: it may make the domain and answer as a
// proxy in front of Keystone would.
type keystoneDomains struct {
	mu     sync.Mutex
	byID   map[string]map[string]any
	n      int
	onPost func(k *keystoneDomains, body map[string]any) (status int)
}

func newKeystoneDomains(f *cloudtest.API, existing ...map[string]any) *keystoneDomains {
	k := &keystoneDomains{byID: map[string]map[string]any{}}
	for _, d := range existing {
		k.byID[d["id"].(string)] = d //nolint:forcetypeassert // the test's own fixtures
	}

	f.On("GET", "/v3/domains", func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		defer k.mu.Unlock()

		var out []any

		for _, d := range k.byID {
			if name := r.URL.Query().Get("name"); name == "" || strings.EqualFold(d["name"].(string), name) { //nolint:forcetypeassert // ours
				out = append(out, d)
			}
		}

		cloudtest.WriteJSON(w, 200, list("domains", out...))
	})
	f.On("POST", "/v3/domains", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Domain map[string]any `json:"domain"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		k.mu.Lock()
		defer k.mu.Unlock()

		if k.onPost != nil {
			cloudtest.WriteJSON(w, k.onPost(k, body.Domain), nil)
			return
		}

		cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"domain": k.add(body.Domain)})
	})
	f.Fallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/v3/domains/")

		k.mu.Lock()
		defer k.mu.Unlock()

		d := k.byID[id]
		if !ok || d == nil {
			cloudtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404}})
			return
		}

		if r.Method == http.MethodPatch {
			var body struct {
				Domain map[string]any `json:"domain"`
			}

			_ = json.NewDecoder(r.Body).Decode(&body)

			for key, v := range body.Domain {
				d[key] = v
			}
		}

		cloudtest.WriteJSON(w, 200, map[string]any{"domain": d})
	}))

	return k
}

// add stores a domain made from body; the caller holds the lock.
func (k *keystoneDomains) add(body map[string]any) map[string]any {
	k.n++

	d := map[string]any{"id": fmt.Sprintf("d-%d", k.n), "description": "", "enabled": true}
	for key, v := range body {
		d[key] = v
	}

	k.byID[d["id"].(string)] = d //nolint:forcetypeassert // set just above

	return d
}

// marked is a domain "tf-one" carrying marks m (as tags).
func marked(id string, m naming.Mark) map[string]any {
	d := dom(id, "tf-one", true)
	d["tags"] = m.Tags()

	return d
}

// tagsOf are the tags of a domain as the fake holds it, or as a request sends it.
func tagsOf(d map[string]any) []string {
	var out []string

	switch tags := d["tags"].(type) {
	case []string:
		out = tags
	case []any:
		for _, t := range tags {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
	}

	return out
}

// instant is a context whose pauses (cloud.Create's looks for a lost answer) end at once.
func instant() context.Context { return cloud.WithSleeper(context.Background(), cloudtest.Instant) }

// TestCreateRefusesAnExistingDomainBehindALostAnswer: a domain of the name that this provider did
// not make exists; the POST's answer is a proxy's 502 in front of Keystone's 409. The create
// looks first and refuses it with nothing sent: the lost answer cannot make it record the
// cloud's own domain (issue 26, item 2).
func TestCreateRefusesAnExistingDomainBehindALostAnswer(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneDomains(f, dom("d-old", "tf-one", true))
	k.onPost = func(*keystoneDomains, map[string]any) int { return http.StatusBadGateway }

	d, err := service(f).Create(instant(), Spec{Name: "tf-one", Enabled: true})

	var exists *cloud.ExistsError
	if d != nil || !errors.As(err, &exists) || exists.ID != "d-old" || exists.Claim != cloud.ClaimForeign ||
		!strings.Contains(err.Error(), "terraform import unikorn_domain.<address> d-old") {
		t.Fatalf("got %+v, %v; want an ExistsError naming d-old and its import", d, err)
	}

	if writes := f.Writes(); len(writes) != 0 {
		t.Fatalf("a refused create made %v", writes)
	}
}

// TestCreateRecoversItsOwnLostAnswer: the POST makes the domain and its answer is lost; the look
// after it finds the domain carrying this create's mark and takes it, and the create ends with the
// completion mark.
func TestCreateRecoversItsOwnLostAnswer(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneDomains(f)
	k.onPost = func(k *keystoneDomains, body map[string]any) int {
		k.add(body)
		return http.StatusBadGateway
	}

	d, err := service(f).Create(instant(), Spec{Name: "tf-one", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{"POST /v3/domains", "PATCH /v3/domains/d-1"}
	if d.ID != "d-1" || !slices.Equal(f.Writes(), want) || d.Mark != naming.MadeFor(TypeName).Done() {
		t.Fatalf("got %+v after %v; want d-1 recovered and completed (%v)", d, f.Calls(), want)
	}

	if got := naming.MarkOfTags(tagsOf(k.byID["d-1"])); got != naming.MadeFor(TypeName).Done() {
		t.Fatalf("Keystone holds the marks %+v", got)
	}
}

// TestLostAnswerRecoversOnlyItsOwnDomain: while the POST's answer is lost, a domain of the name
// that another tool made shows up; it is not taken for this create's.
func TestLostAnswerRecoversOnlyItsOwnDomain(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneDomains(f)
	k.onPost = func(k *keystoneDomains, _ map[string]any) int {
		k.add(map[string]any{"name": "tf-one"}) // someone else's, unmarked
		return http.StatusBadGateway
	}

	d, err := service(f).Create(instant(), Spec{Name: "tf-one", Enabled: true})

	var exists *cloud.ExistsError
	if d != nil || !errors.As(err, &exists) || exists.ID != "d-1" || f.Count("POST /v3/domains") != 1 || f.Count("PATCH /v3/domains/d-1") != 0 {
		t.Fatalf("got %+v, %v after %v; want the foreign d-1 refused, untouched, after one POST", d, err, f.Calls())
	}
}

// TestCreateAdoptsOnlyAnInterruptedCreate: a domain carrying the creation mark of unikorn_domain
// and no completion mark is what an interrupted create left: adopted (no POST), brought to the
// spec and completed. A finished one, or one made for another type, is refused untouched.
func TestCreateAdoptsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	newKeystoneDomains(f, marked("d-7", naming.MadeFor(TypeName)))

	d, err := service(f).Create(instant(), Spec{Name: "tf-one", Description: "new", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{"PATCH /v3/domains/d-7", "PATCH /v3/domains/d-7"}
	if d.ID != "d-7" || d.Description != "new" || !slices.Equal(f.Writes(), want) || !d.Mark.Completed {
		t.Fatalf("got %+v after %v; want d-7 adopted, updated and completed", d, f.Writes())
	}

	for _, m := range []naming.Mark{naming.MadeFor(TypeName).Done(), naming.MadeFor("unikorn_role")} {
		f := cloudtest.New(t)
		newKeystoneDomains(f, marked("d-8", m))

		_, err := service(f).Create(instant(), Spec{Name: "tf-one", Enabled: true})

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || exists.ID != "d-8" || len(f.Writes()) != 0 {
			t.Errorf("%+v: got %v after %v; want an ExistsError and no write", m, err, f.Writes())
		}
	}
}

// TestObserveRefindsOnlyAnUnfinishedCreate: a domain gone by its recorded ID is replaced by the
// one of its name only when that one is what an interrupted create left; a finished or foreign
// one is not this resource's: the domain counts as gone.
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
		newKeystoneDomains(f, marked("d-new", c.mark))

		d, refound, err := service(f).Observe(context.Background(), "d-old", "tf-one")
		if err != nil || refound != c.refound || (d != nil) != c.refound {
			t.Errorf("%+v: got %+v, %v, %v; want refound %v", c.mark, d, refound, err, c.refound)
		}
	}
}
