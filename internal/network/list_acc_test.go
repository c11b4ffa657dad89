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
// the full resource when asked for. Servers and load balancers are listed there too (none), and
// the identity itself is among the identities listed.
func TestAccList_networks(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()

	project := tenant(t)
	def, _ := regions(t)
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

	identities := map[string]string{}
	for _, r := range acctest.ListResources(t, "unikorn_identity", nil, false) {
		identities[r.Identity["id"]] = r.DisplayName
	}

	if _, ok := identities[project]; !ok {
		t.Errorf("identity %s is not among the identities listed: %v", project, slices.Collect(maps.Keys(identities)))
	}
}
