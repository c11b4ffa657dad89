package network_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// TestAccList_networks drives the list resources at the protocol level (no CLI here runs
// `terraform query`): three networks and a security group made directly in the cloud, in an
// identity's project, plus a network without the provider's name, are listed by identity and
// region; the results are exactly the provider's, each with its identity { region, id }, and
// the full resource when asked for. Servers and load balancers are listed there too (none; the
// results of those kinds are asserted on Unikorn's objects in TestAccUnikorn_importTenant), the
// identity itself is among the identities listed, and a domain and a flavor made by the test
// are among theirs (a global and a regional admin kind).
func TestAccList_networks(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	project := tenant(t)
	def := defaultRegion(t)
	name := acctest.RandomName()

	want := map[string]string{} // ID → user-given name
	for _, n := range []string{name + "-a", name + "-b", name + "-c"} {
		want[acctest.NeutronCreateBareNetwork(t, project, def, naming.Network(n))] = n
	}

	acctest.NeutronCreateBareNetwork(t, project, def, name+"-not-ours")
	group := acctest.NeutronCreateSecurityGroup(t, project, def, naming.SecurityGroup(name))

	query := map[string]tftypes.Value{
		"identity_id": tftypes.NewValue(tftypes.String, project),
		"region":      tftypes.NewValue(tftypes.String, def),
	}

	got := map[string]string{}

	for _, r := range acctest.ListResources(t, "unikorn_network", query, false) {
		if r.Identity["region"] != def || r.Resource != nil {
			t.Errorf("network %s: identity %v, resource %v; want region %s and no resource", r.DisplayName, r.Identity, r.Resource, def)
		}

		got[r.Identity["id"]] = r.DisplayName
	}

	for id, n := range want {
		if got[id] != n+" ("+def+")" {
			t.Errorf("network %s (%s) listed as %q", n, id, got[id])
		}
	}

	if len(got) != len(want) {
		t.Errorf("listed %d networks, want %d: %v", len(got), len(want), got)
	}

	// The full resource, read as after an import.
	groups := acctest.ListResources(t, "unikorn_security_group", query, true)
	if len(groups) != 1 || groups[0].Identity["id"] != group || groups[0].Resource == nil {
		t.Fatalf("security groups listed: %+v; want only %s, with its resource", groups, group)
	}

	for attr, want := range map[string]string{"id": group, "name": name, "identity_id": project, "region": def} {
		var v string
		if err := groups[0].Resource[attr].As(&v); err != nil || v != want {
			t.Errorf("the listed security group's %s is %q (%v), want %q", attr, v, err, want)
		}
	}

	// Servers and load balancers are listed in the same project (none there).
	for _, kind := range []string{"unikorn_server", "unikorn_loadbalancer"} {
		if found := acctest.ListResources(t, kind, query, false); len(found) != 0 {
			t.Errorf("%s listed %+v in a project without any", kind, found)
		}
	}

	// A global kind and a regional admin kind: a domain and a flavor made for the test are
	// among their kinds' results, the flavor with its identity { region, id }.
	domainID := acctest.TestDomain(t)
	flavorID := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: def, Name: name + "-flavor", VCPUs: 1, RAMMiB: 64, DiskGB: 1})

	if !listed(t, "unikorn_domain", nil, map[string]string{"id": domainID}, "") {
		t.Errorf("domain %s is not among the domains listed", domainID)
	}

	flavors := map[string]tftypes.Value{"region": tftypes.NewValue(tftypes.String, def)}
	if !listed(t, "unikorn_flavor", flavors, map[string]string{"id": flavorID, "region": def}, name+"-flavor ("+def+")") {
		t.Errorf("flavor %s (%s) is not among the flavors listed in %s", name+"-flavor", flavorID, def)
	}

	// Every other kind lists without an error.
	for kind, config := range map[string]map[string]tftypes.Value{
		"unikorn_role": nil, "unikorn_project": nil, "unikorn_federation": nil,
		"unikorn_image": flavors, "unikorn_provider_network": flavors, "unikorn_server_snapshot": query,
	} {
		acctest.ListResources(t, kind, config, false)
	}

	identities := map[string]string{}
	for _, r := range acctest.ListResources(t, "unikorn_identity", nil, false) {
		identities[r.Identity["id"]] = r.DisplayName
	}

	if _, ok := identities[project]; !ok {
		t.Errorf("identity %s is not among the identities listed: %v", project, slices.Collect(maps.Keys(identities)))
	}
}

// listed tells whether listing kind with config gives a result with exactly identity, and, when
// display is not "", that display name.
func listed(t *testing.T, kind string, config map[string]tftypes.Value, identity map[string]string, display string) bool {
	t.Helper()

	for _, r := range acctest.ListResources(t, kind, config, false) {
		if maps.Equal(r.Identity, identity) && (display == "" || r.DisplayName == display) {
			return true
		}
	}

	return false
}
