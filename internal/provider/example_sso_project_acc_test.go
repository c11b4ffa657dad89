package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	secgroups "github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/rules"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/quota"
)

// TestAccExample_ssoProject applies examples/sso-project as a user would (names prefixed for
// the test, an issuer of its own), checks every object in the cloud and proves the mapping with
// Keystone's mapping engine, plans again (the framework fails a step whose plan after the apply
// is not empty), destroys it and checks that the cloud has none of the objects left.
func TestAccExample_ssoProject(t *testing.T) {
	acctest.LocalBedOnly(t, "the mapping is proved with Keystone's mapping engine, run inside the bed (acctest.MappingEngine)")

	prefix := acctest.RandomName()
	ids := map[string]string{}

	applyExample(t, "sso-project", config.Variables{
		"prefix": config.StringVariable(prefix),
		"issuer": config.StringVariable("https://" + prefix + ".idp.example/realms/research"),
	}, resource.ComposeAggregateTestCheckFunc(
		recordIDs(ids, map[string]string{
			"domain": "unikorn_domain.people", "federation": "unikorn_federation.oidc", "project": "unikorn_project.research",
			"network": "unikorn_network.research", "security_group": "unikorn_security_group.allow_ssh",
		}),
		recordAttributes(ids, "unikorn_project.research", "group_id"),
		recordAttributes(ids, "unikorn_network.research", "router_id"),
		checkSSOProjectMade(t, prefix, ids),
	), checkSSOProjectGone(t, ids))
}

// recordAttributes copies attributes of the resource at address out of the state.
func recordAttributes(ids map[string]string, address string, attributes ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		state, err := acctest.Attributes(s, address)
		if err != nil {
			return err
		}

		for _, a := range attributes {
			ids[a] = state[a]
		}

		return nil
	}
}

// checkSSOProjectMade asks Keystone, the quota APIs and Neutron for what the example made, and
// Keystone's mapping engine what a login of the SSO group maps to.
func checkSSOProjectMade(t *testing.T, prefix string, ids map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		cl := clientsOfDefaultRegion(t)
		c := acctest.Client(t)

		if d, err := domains.Get(ctx, cl.keystone, ids["domain"]).Extract(); err != nil || d.Name != prefix+"-people" {
			return fmt.Errorf("domain %s: %+v %v", ids["domain"], d, err)
		}

		p, err := projects.Get(ctx, cl.keystone, ids["project"]).Extract()
		if err != nil || p.Name != prefix+"-research" || p.DomainID != ids["domain"] || !slices.Contains(p.Tags, naming.HumanProjectTag) {
			return fmt.Errorf("project %s: %+v %v", ids["project"], p, err)
		}

		groupName := naming.ProjectGroup(prefix + "-research")
		if g, err := groups.Get(ctx, cl.keystone, ids["group_id"]).Extract(); err != nil || g.Name != groupName || g.DomainID != ids["domain"] {
			return fmt.Errorf("group %s: %+v %v", ids["group_id"], g, err)
		}

		assignments, err := acctest.Assignments(ctx, t, ids["project"])
		if err != nil || !slices.Contains(assignments, "member group:"+ids["group_id"]) {
			return fmt.Errorf("the project's group is not bound to member: %v %v", assignments, err)
		}

		for _, region := range c.Regions() {
			got, err := quota.PerRegion(ctx, []*cloud.Tenant{cloud.NewTenant(c.Base(), ids["project"], region)})
			if err != nil || got[0][quota.Compute]["instances"] != 20 || got[0][quota.BlockStorage]["gigabytes"] != 1000 {
				return fmt.Errorf("quotas in %s: %v %v", region, got, err)
			}
		}

		if err := checkSSOFederation(t, ids, groupName); err != nil {
			return err
		}

		n, err := networks.Get(ctx, cl.neutron, ids["network"]).Extract()
		if err != nil || n.ProjectID != ids["project"] {
			return fmt.Errorf("network %s: %+v %v", ids["network"], n, err)
		}

		r, err := routers.Get(ctx, cl.neutron, ids["router_id"]).Extract()
		if err != nil || r.ProjectID != ids["project"] || r.GatewayInfo.NetworkID != acctest.PublicNetworkID(t, c.DefaultRegion()) {
			return fmt.Errorf("router %s: %+v %v; want a gateway on the external network", ids["router_id"], r, err)
		}

		sg, err := secgroups.Get(ctx, cl.neutron, ids["security_group"]).Extract()
		if err != nil || sg.ProjectID != ids["project"] || !slices.ContainsFunc(sg.Rules, func(r rules.SecGroupRule) bool {
			return r.Direction == "ingress" && r.Protocol == "tcp" && r.PortRangeMin == 22 && r.PortRangeMax == 22
		}) {
			return fmt.Errorf("security group %s: %+v %v; want ssh in", ids["security_group"], sg, err)
		}

		return nil
	}
}

// checkSSOFederation asks Keystone for the identity provider's protocol and mapping and feeds
// the mapping a login of the SSO group, which must map onto the user in the project's group.
func checkSSOFederation(t *testing.T, ids map[string]string, groupName string) error {
	ctx := context.Background()
	sc := acctest.AdminKeystone(t)
	idp := ids["federation"]

	var proto struct {
		Protocol struct {
			MappingID string `json:"mapping_id"`
		} `json:"protocol"`
	}

	if _, err := sc.Get(ctx, sc.ServiceURL("OS-FEDERATION", "identity_providers", idp, "protocols", "openid"), &proto, nil); err != nil ||
		proto.Protocol.MappingID != naming.FederationMapping(idp) {
		return fmt.Errorf("protocol openid of %s: %+v %v", idp, proto, err)
	}

	var mapping struct {
		Mapping struct {
			Rules json.RawMessage `json:"rules"`
		} `json:"mapping"`
	}

	if err := federation.GetMapping(ctx, sc, naming.FederationMapping(idp)).ExtractInto(&mapping); err != nil {
		return err
	}

	got, stderr, err := acctest.MappingEngine(ctx, t, string(mapping.Mapping.Rules), "OIDC-preferred_username: alice\nOIDC-groups: research;other\n")
	if err != nil {
		return fmt.Errorf("%w\n%s", err, stderr)
	}

	if got.User.Name != "alice" || len(got.GroupNames) == 0 || got.GroupNames[0].Name != groupName || got.GroupNames[0].Domain.ID != ids["domain"] {
		return fmt.Errorf("a login of the SSO group mapped to %+v; want alice in %s of domain %s", got, groupName, ids["domain"])
	}

	return nil
}

// checkSSOProjectGone asks each service for each object again after the destroy: every one is 404.
func checkSSOProjectGone(t *testing.T, ids map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		cl := clientsOfDefaultRegion(t)
		idp := ids["federation"]

		gets := map[string]func() error{
			"domain":    func() error { return domains.Get(ctx, cl.keystone, ids["domain"]).Err },
			"project":   func() error { return projects.Get(ctx, cl.keystone, ids["project"]).Err },
			"group_id":  func() error { return groups.Get(ctx, cl.keystone, ids["group_id"]).Err },
			"router_id": func() error { return routers.Get(ctx, cl.neutron, ids["router_id"]).Err },
			"network":   func() error { return networks.Get(ctx, cl.neutron, ids["network"]).Err },
			"security_group": func() error {
				return secgroups.Get(ctx, cl.neutron, ids["security_group"]).Err
			},
			"federation": func() error {
				_, err := cl.keystone.Get(ctx, cl.keystone.ServiceURL("OS-FEDERATION", "identity_providers", idp), nil, nil)
				return err
			},
			"mapping": func() error { return federation.GetMapping(ctx, cl.keystone, naming.FederationMapping(idp)).Err },
		}

		// The mapping is found by the identity provider's ID.
		return goneAfterDestroy(ids, gets, "mapping")
	}
}
