package providernetwork

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// tagPath is the path of Neutron's tag API that adds tag to the object id of kind.
func tagPath(kind, id, tag string) string {
	return "/v2.0/" + kind + "/" + id + "/tags/" + url.PathEscape(tag)
}

func subnetsOfNetwork(subs ...map[string]any) map[string]any { return map[string]any{"subnets": subs} }

// TestEnsureRefusesAnExistingNetworkBehindALostAnswer: a network of the name that this provider
// did not make exists in the service project; the create refuses it before anything is written,
// even when the POST's answer would be a proxy's 502 (issue 26, item 2).
func TestEnsureRefusesAnExistingNetworkBehindALostAnswer(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks", http.StatusOK, nets(net("theirs", "pn")))
	api.Reply("POST", "/v2.0/networks", http.StatusBadGateway, map[string]any{})
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, subnetsOfNetwork())

	out, err := svc.Ensure(ctx, vlanSpec, "")

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "theirs" ||
		!strings.Contains(err.Error(), "terraform import unikorn_provider_network.<address> RegionOne/theirs") {
		t.Fatalf("got %+v, %v; want an ExistsError naming theirs and its import", out, err)
	}

	if writes := api.Writes(); len(writes) != 0 {
		t.Fatalf("a refused create made %v", writes)
	}
}

// TestEnsureMarksAndCompletes: the network and its subnet are posted with the creation mark as
// their description, tagged with it right after (their description then cleared), and the
// network's completion mark is the create's last write.
func TestEnsureMarksAndCompletes(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Sequence("GET", "/v2.0/networks", nets(), nets(marked(net("made", "pn"), naming.MadeFor(TypeName), false)))
	api.Reply("POST", "/v2.0/networks", http.StatusCreated, map[string]any{"network": marked(net("made", "pn"), naming.MadeFor(TypeName), false)})
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, subnetsOfNetwork())
	api.Reply("POST", "/v2.0/subnets", http.StatusCreated, map[string]any{"subnet": map[string]any{
		"id": "s1", "name": "a", "cidr": "10.0.0.0/24", "network_id": "made", "description": naming.MadeFor(TypeName).Description(),
	}})
	api.Reply("PUT", "/v2.0/subnets/s1", http.StatusOK, map[string]any{"subnet": map[string]any{
		"id": "s1", "name": "a", "cidr": "10.0.0.0/24", "network_id": "made", "tags": naming.MadeFor(TypeName).Tags(),
	}})

	spec := vlanSpec
	spec.Subnets = []SubnetSpec{{Name: "a", CIDR: "10.0.0.0/24"}}

	if _, err := svc.Ensure(ctx, spec, ""); err != nil {
		t.Fatal(err)
	}

	kind, done := naming.MadeFor(TypeName).Description(), naming.MarkCompletedTag

	want := []string{
		"POST /v2.0/networks", "PUT " + tagPath("networks", "made", kind), "PUT /v2.0/networks/made",
		"POST /v2.0/subnets", "PUT " + tagPath("subnets", "s1", kind), "PUT /v2.0/subnets/s1",
		"PUT " + tagPath("networks", "made", done),
	}

	var got []string

	for _, c := range api.Requests() {
		if c.Method != http.MethodGet {
			got = append(got, c.Method+" "+(&url.URL{Path: c.Path}).EscapedPath())
		}
	}

	if !slices.Equal(got, want) {
		t.Fatalf("writes\n got %v\nwant %v", got, want)
	}

	if body := api.Last(t, "POST /v2.0/networks").JSON(t, "network"); body["description"] != kind {
		t.Errorf("posted %v, want the creation mark as the description", body)
	}

	if body := api.Last(t, "PUT /v2.0/networks/made").JSON(t, "network"); len(body) != 1 || body["description"] != "" {
		t.Errorf("updated with %v, want the description cleared", body)
	}
}

// TestEnsureAdoptsOnlyAnInterruptedCreate: a network an interrupted create posted and never
// tagged (its description still the creation mark) is adopted, tagged and completed; one with
// a subnet that is not the type's, a finished one, or another type's, is refused untouched.
func TestEnsureAdoptsOnlyAnInterruptedCreate(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Reply("GET", "/v2.0/networks", http.StatusOK, nets(marked(net("half", "pn"), naming.MadeFor(TypeName), false)))
	api.Reply("GET", "/v2.0/subnets", http.StatusOK, subnetsOfNetwork())

	out, err := svc.Ensure(ctx, vlanSpec, "")
	if err != nil || !out.Adopted || out.ID != "half" || api.Count("POST /v2.0/networks") != 0 {
		t.Fatalf("got %+v, %v after %v; want half adopted", out, err, api.Writes())
	}

	if n := api.Count("PUT " + tagPath("networks", "half", naming.MarkCompletedTag)); n != 1 {
		t.Fatalf("the completion mark written %d times (%v)", n, api.Writes())
	}

	for name, c := range map[string]struct {
		network map[string]any
		subnets []map[string]any
	}{
		"foreign subnet": {marked(net("half", "pn"), naming.MadeFor(TypeName), true),
			[]map[string]any{{"id": "s-x", "name": "x", "cidr": "10.9.0.0/24", "network_id": "half"}}},
		"finished":     {marked(net("done", "pn"), naming.MadeFor(TypeName).Done(), true), nil},
		"another type": {marked(net("other", "pn"), naming.MadeFor("unikorn_network"), true), nil},
	} {
		api, svc, ctx := fake(t)
		api.Reply("GET", "/v2.0/networks", http.StatusOK, nets(c.network))
		api.Reply("GET", "/v2.0/subnets", http.StatusOK, subnetsOfNetwork(c.subnets...))

		_, err := svc.Ensure(ctx, vlanSpec, "")

		var exists *cloud.ExistsError
		if !errors.As(err, &exists) || len(api.Writes()) != 0 {
			t.Errorf("%s: got %v after %v; want an ExistsError and no write", name, err, api.Writes())
		}
	}
}

// TestEnsureLostAnswerRecoversOnlyItsOwnNetwork: while the POST's answer is lost, a network of
// the name that another tool made shows up: it is not taken for this create's.
func TestEnsureLostAnswerRecoversOnlyItsOwnNetwork(t *testing.T) {
	t.Parallel()

	api, svc, ctx := fake(t)
	api.Sequence("GET", "/v2.0/networks", nets(), nets(net("theirs", "pn")))
	api.Reply("POST", "/v2.0/networks", http.StatusBadGateway, map[string]any{})

	out, err := svc.Ensure(ctx, vlanSpec, "")

	var exists *cloud.ExistsError
	if out != nil || !errors.As(err, &exists) || exists.ID != "theirs" || !slices.Equal(api.Writes(), []string{"POST /v2.0/networks"}) {
		t.Fatalf("got %+v, %v after %v; want theirs refused, untouched", out, err, api.Writes())
	}
}
