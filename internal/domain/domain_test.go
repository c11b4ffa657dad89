package domain

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func service(f *cloudtest.API) *Service {
	return &Service{&Admin{Keystone: f.ServiceClient("/v3/", "/v3/"), ProjectID: "svc-project", UserID: "svc-user"}}
}

func dom(id, name string, enabled bool) map[string]any {
	return map[string]any{"id": id, "name": name, "description": "d", "enabled": enabled}
}

func list(key string, items ...any) map[string]any {
	return map[string]any{key: items, "links": map[string]any{}}
}

func TestCreateRecoversALostAnswer(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	k := newKeystoneDomains(f, dom("near", "TF-one", true)) // the name filter is fuzzy: only the exact match counts
	k.onPost = func(k *keystoneDomains, body map[string]any) int {
		k.add(body)
		return http.StatusBadGateway
	}

	d, err := service(f).Create(instant(), Spec{Name: "tf-one", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}

	if d.ID != "d-1" || f.Count("POST /v3/domains") != 1 {
		t.Fatalf("got %+v after %v, want d-1 recovered with one POST", d, f.Calls())
	}
}

func TestCreateOfAnExistingNameSaysHowToImport(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("POST", "/v3/domains", http.StatusConflict, map[string]any{"error": map[string]any{"code": 409, "message": "Duplicate entry"}})
	f.Sequence("GET", "/v3/domains", list("domains"), list("domains", dom("d-old", "tf-one", true)))

	_, err := service(f).Create(context.Background(), Spec{Name: "tf-one", Enabled: true})

	var exists *cloud.ExistsError
	if !errors.As(err, &exists) || exists.ID != "d-old" || !strings.Contains(err.Error(), "terraform import") {
		t.Fatalf("got %v, want an ExistsError naming d-old", err)
	}
}

func TestCreateSendsTheSpec(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	newKeystoneDomains(f)

	if _, err := service(f).Create(context.Background(), Spec{Name: "tf-one", Description: "x", Enabled: false}); err != nil {
		t.Fatal(err)
	}

	body := f.Last(t, "POST /v3/domains").JSON(t, "domain")
	if body["name"] != "tf-one" || body["description"] != "x" || body["enabled"] != false || naming.MarkOfTags(tagsOf(body)) != naming.MadeFor(TypeName) {
		t.Fatalf("sent %v", body)
	}

	if done := f.Last(t, "PATCH /v3/domains/d-1").JSON(t, "domain"); len(done) != 1 || naming.MarkOfTags(tagsOf(done)) != naming.MadeFor(TypeName).Done() {
		t.Fatalf("completed with %v", done)
	}

	want := []string{"GET /v3/domains", "POST /v3/domains", "PATCH /v3/domains/d-1"}
	if calls := f.Calls(); !slices.Equal(calls, want) {
		t.Fatalf("a create made %v, want %v (Keystone keeps names unique: no twin check)", calls, want)
	}
}

func TestFindReportsDuplicates(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/domains", 200, list("domains", dom("b", "tf-one", true), dom("a", "tf-one", true)))

	_, err := service(f).Find(context.Background(), "tf-one")

	var dup *naming.DuplicateError
	if !errors.As(err, &dup) || !slices.Equal(dup.IDs, []string{"a", "b"}) {
		t.Fatalf("got %v, want a DuplicateError naming a and b", err)
	}
}

func TestObserveRefindsByName(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/domains", 200, list("domains", marked("d-new", naming.MadeFor(TypeName))))

	d, refound, err := service(f).Observe(context.Background(), "d-old", "tf-one")
	if err != nil || d == nil || d.ID != "d-new" || !refound {
		t.Fatalf("got %+v, %v, %v; want d-new refound", d, refound, err)
	}

	f2 := cloudtest.New(t)
	f2.Reply("GET", "/v3/domains", 200, list("domains"))

	if d, _, err := service(f2).Observe(context.Background(), "d-old", "tf-one"); d != nil || err != nil {
		t.Fatalf("got %+v, %v; want gone", d, err)
	}
}

func TestUpdateSendsOnlyTheChanges(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("PATCH", "/v3/domains/d-1", 200, map[string]any{"domain": dom("d-1", "tf-one", false)})

	cur := &Domain{ID: "d-1", Name: "tf-one", Description: "d", Enabled: true}

	if _, err := service(f).Update(context.Background(), cur, Spec{Name: "tf-one", Description: "d", Enabled: false}); err != nil {
		t.Fatal(err)
	}

	body := f.Last(t, "PATCH /v3/domains/d-1").JSON(t, "domain")
	if len(body) != 1 || body["enabled"] != false {
		t.Fatalf("sent %v, want enabled only", body)
	}

	f.Reset()

	if _, err := service(f).Update(context.Background(), cur, Spec{Name: "tf-one", Description: "d", Enabled: true}); err != nil || len(f.Calls()) != 0 {
		t.Fatalf("an update without change made %v (%v)", f.Calls(), err)
	}
}

// holding answers the listings of a domain d-1 that holds a project tree and a role.
func holding(f *cloudtest.API, enabled bool) {
	f.Reply("GET", "/v3/domains/d-1", 200, map[string]any{"domain": dom("d-1", "tf-one", enabled)})
	f.Reply("GET", "/v3/projects", 200, list("projects",
		map[string]any{"id": "p-parent", "name": "parent", "domain_id": "d-1", "parent_id": "d-1"},
		map[string]any{"id": "p-child", "name": "child", "domain_id": "d-1", "parent_id": "p-parent"},
	))
	f.Reply("GET", "/v3/roles", 200, list("roles", map[string]any{"id": "r-1", "name": "tf-role", "domain_id": "d-1"}))
}

func TestDeleteRefusesADomainThatHoldsProjects(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	holding(f, true)

	_, err := service(f).Delete(context.Background(), "d-1", "managed", false)

	var notEmpty *NotEmptyError
	if !errors.As(err, &notEmpty) || len(notEmpty.Contents) != 3 || !strings.Contains(err.Error(), "force_destroy") {
		t.Fatalf("got %v, want a NotEmptyError listing 3 objects", err)
	}

	if writes := f.Writes(); len(writes) > 0 {
		t.Fatalf("a refused delete made %v", writes)
	}
}

func TestForceDestroyDeletesLeavesFirstThenDisablesAndDeletes(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	holding(f, true)

	for _, p := range []string{"/v3/projects/p-child", "/v3/projects/p-parent", "/v3/roles/r-1", "/v3/domains/d-1"} {
		f.Reply("DELETE", p, 204, nil)
	}

	f.Reply("PATCH", "/v3/domains/d-1", 200, map[string]any{"domain": dom("d-1", "tf-one", false)})

	deleted, err := service(f).Delete(context.Background(), "d-1", "managed", true)
	if err != nil {
		t.Fatal(err)
	}

	writes := f.Writes()

	want := []string{"DELETE /v3/projects/p-child", "DELETE /v3/projects/p-parent", "DELETE /v3/roles/r-1", "PATCH /v3/domains/d-1", "DELETE /v3/domains/d-1"}
	if !slices.Equal(writes, want) || len(deleted) != 3 {
		t.Fatalf("made %v, deleted %v; want %v", writes, deleted, want)
	}

	if body := f.Last(t, "PATCH /v3/domains/d-1").JSON(t, "domain"); body["enabled"] != false {
		t.Fatalf("disabled with %v", body)
	}
}

func TestDeleteOfAGoneOrProtectedDomain(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)

	if _, err := service(f).Delete(context.Background(), "d-gone", "managed", false); err != nil || len(f.Calls()) != 1 {
		t.Fatalf("deleting a gone domain: %v after %v", err, f.Calls())
	}

	f.Reply("GET", "/v3/domains/managed", 200, map[string]any{"domain": dom("managed", "unikorn", true)})

	var protected *ProtectedError
	if _, err := service(f).Delete(context.Background(), "managed", "managed", true); !errors.As(err, &protected) {
		t.Fatalf("deleting the managed domain: %v", err)
	}
}

func TestProtected(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		id, name string
		want     bool
	}{
		{"default", "whatever", true},
		{"", "Default", true},
		{"", "default", true},
		{"m-1", "unikorn", true},
		{"", "unikorn", false}, // by name: the plan compares the IDs Keystone lists for it
		{"d-2", "tf-acc-x", false},
	} {
		if got := Protected(tc.id, tc.name, "m-1") != nil; got != tc.want {
			t.Errorf("Protected(%q, %q) = %v, want %v", tc.id, tc.name, got, tc.want)
		}
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("GET", "/v3/domains/policy", 403, map[string]any{"error": map[string]any{"code": 403,
		"message": "You are not authorized to perform the requested action: identity:get_domain."}})
	f.Reply("GET", "/v3/domains/other", 403, map[string]any{"error": map[string]any{"code": 403, "message": "something else"}})

	_, err := service(f).Get(context.Background(), "policy")

	var admin *AdminError
	if !errors.As(err, &admin) || !strings.Contains(err.Error(), "cloud admin") || !strings.Contains(err.Error(), "svc-project") {
		t.Fatalf("policy refusal: %v", err)
	}

	_, err = service(f).Get(context.Background(), "other")
	if errors.As(err, &admin) || !strings.Contains(err.Error(), "something else") {
		t.Fatalf("other refusal: %v", err)
	}
}

func TestKeystoneName(t *testing.T) {
	t.Parallel()

	v := KeystoneName("domain", 8)

	for _, tc := range []struct {
		in   string
		okay bool
	}{
		{"tf-acc-1", true}, {"", false}, {" x", false}, {"x ", false}, {"a\tb", false}, {"123456789", false}, {"ünïcödé", true},
	} {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("name"), ConfigValue: types.StringValue(tc.in)}, resp)

		if resp.Diagnostics.HasError() == tc.okay {
			t.Errorf("%q: errors %v, want ok=%v", tc.in, resp.Diagnostics, tc.okay)
		}
	}
}
