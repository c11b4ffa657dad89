package identity_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

const address = "unikorn_identity.test"

// cloudExpect is what the checks ask the cloud about an identity.
type cloudExpect struct {
	tags        []string                    // project tags, exactly
	description string                      // project description
	userRoles   []string                    // roles of the identity user, exactly
	quotas      map[string]map[string]int64 // quotas that must hold in every region (a subset)
	sshKey      string                      // keypair public key, "" for none
	policy      string                      // server group policy, "" for none
}

// identityArgs are the arguments of the unikorn_identity under test; empty ones are left out.
type identityArgs struct {
	description, organizationID, unikornProjectID string
	roles                                         []string
	quotas                                        string // the HCL object of `quotas`
	serverGroup                                   string // the HCL object of `server_group`
	sshPublicKey, expiresAt                       string
	forceDestroy                                  bool
}

// config is the configuration of identity name with a.
func (a identityArgs) config(name string) string {
	var b strings.Builder

	fmt.Fprintf(&b, "resource \"unikorn_identity\" \"test\" {\n  name = %q\n", name)

	for _, arg := range []struct{ key, value string }{
		{"description", a.description}, {"organization_id", a.organizationID}, {"unikorn_project_id", a.unikornProjectID},
		{"ssh_public_key", a.sshPublicKey}, {"expires_at", a.expiresAt},
	} {
		if arg.value != "" {
			fmt.Fprintf(&b, "  %s = %q\n", arg.key, arg.value)
		}
	}

	if a.forceDestroy {
		b.WriteString("  force_destroy = true\n")
	}

	if a.roles != nil {
		fmt.Fprintf(&b, "  roles = [\"%s\"]\n", strings.Join(a.roles, `", "`))
	}

	for _, arg := range []struct{ key, value string }{{"quotas", a.quotas}, {"server_group", a.serverGroup}} {
		if arg.value != "" {
			fmt.Fprintf(&b, "  %s = %s\n", arg.key, arg.value)
		}
	}

	b.WriteString("}\n")

	return b.String()
}

// TestAccIdentity_basic creates an identity with tags, quotas, a server group and a keypair
// and checks each object in Keystone, Nova, Neutron, Cinder and Octavia; then updates in
// place (description, tags, quotas, server group policy, key, and roles, which re-issue the
// credential and trust), and imports by project ID and by name.
func TestAccIdentity_basic(t *testing.T) {
	name := acctest.IdentityName()
	key1 := acctest.SSHPublicKey(t)
	key2 := acctest.SSHPublicKey(t)

	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameUser := statecheck.CompareValue(compare.ValuesSame())
	credential := statecheck.CompareValue(compare.ValuesDiffer())
	trust := statecheck.CompareValue(compare.ValuesDiffer())
	serverGroup := statecheck.CompareValue(compare.ValuesDiffer())

	// The arguments of the updates: everything but the name changes in place.
	updated := identityArgs{
		description: "updated", organizationID: "org-b",
		quotas:      "{\n    compute       = { instances = 5 }\n    block_storage = { volumes = 3, gigabytes = 100 }\n    load_balancer = { load_balancer = 2 }\n  }",
		serverGroup: `{ policy = "anti-affinity" }`, sshPublicKey: key2, expiresAt: "2036-01-01T00:00:00Z",
	}
	withManager, memberOnly := updated, updated
	withManager.roles = []string{"member", "load-balancer_member", "manager"}
	memberOnly.roles = []string{"member"}
	memberOnly.quotas = strings.Replace(updated.quotas, "instances = 5", "instances = 6", 1)

	// What the cloud holds after each update: the updated arguments, with roles and quotas.
	expectUpdated := func(roles []string, quotas map[string]map[string]int64) cloudExpect {
		return cloudExpect{
			tags: []string{"organization=org-b"}, description: "updated", userRoles: roles, quotas: quotas,
			sshKey: key2, policy: "anti-affinity",
		}
	}

	steps := []struct {
		args      identityArgs
		action    plancheck.ResourceActionType
		planned   []plancheck.PlanCheck
		state     []statecheck.StateCheck
		cloud     cloudExpect
		trustUsed bool // check that the trust works
	}{
		{
			args: identityArgs{
				description: "created by an acceptance test", organizationID: "org-a", unikornProjectID: "proj-a",
				quotas:      "{\n    compute = { instances = 20, cores = 40 }\n    network = { port = 200 }\n  }",
				serverGroup: "{}", sshPublicKey: key1, expiresAt: "2035-01-01T00:00:00Z",
			},
			action: plancheck.ResourceActionCreate,
			state: []statecheck.StateCheck{
				credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
				trust.AddStateValue(address, tfjsonpath.New("trust_id")),
				serverGroup.AddStateValue(address, tfjsonpath.New("server_group_id")),
				statecheck.CompareValuePairs(address, tfjsonpath.New("id"), address, tfjsonpath.New("project_id"), compare.ValuesSame()),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("keypair_name"), knownvalue.StringExact(naming.KeypairName)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("roles"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("member"), knownvalue.StringExact("load-balancer_member"),
				})),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("quotas").AtMapKey("compute").AtMapKey("instances"), knownvalue.Int64Exact(20)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("quotas").AtMapKey("compute").AtMapKey("ram"), knownvalue.Int64Exact(-1)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("quotas").AtMapKey("block_storage").AtMapKey("volumes"), knownvalue.Int64Exact(-1)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("server_group").AtMapKey("policy"), knownvalue.StringExact("soft-anti-affinity")),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("server_group_ids"), knownvalue.MapSizeExact(len(acctest.Regions()))),
				statecheck.ExpectSensitiveValue(address, tfjsonpath.New("application_credential_secret")),
				statecheck.ExpectSensitiveValue(address, tfjsonpath.New("clouds_yaml")),
			},
			cloud: cloudExpect{
				tags:        []string{"organization=org-a", "project=proj-a"},
				description: "created by an acceptance test",
				userRoles:   []string{"load-balancer_member", "member"},
				quotas: map[string]map[string]int64{
					identity.QuotaCompute:      {"instances": 20, "cores": 40, "ram": -1, "key_pairs": -1},
					identity.QuotaNetwork:      {"port": 200, "network": -1, "security_group_rule": -1},
					identity.QuotaBlockStorage: {"volumes": -1, "gigabytes": -1},
					identity.QuotaLoadBalancer: {"load_balancer": -1, "member": -1},
				},
				sshKey: key1,
				policy: "soft-anti-affinity",
			},
			trustUsed: true,
		},
		{
			// Everything but the name changes in place; only the server group is replaced.
			args:   updated,
			action: plancheck.ResourceActionUpdate,
			state: []statecheck.StateCheck{
				serverGroup.AddStateValue(address, tfjsonpath.New("server_group_id")),
				// A new expiry is a new credential.
				credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("expires_at"), knownvalue.StringExact("2036-01-01T00:00:00Z")),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("unikorn_project_id"), knownvalue.Null()),
			},
			cloud: expectUpdated([]string{"load-balancer_member", "member"}, map[string]map[string]int64{
				identity.QuotaCompute:      {"instances": 5, "cores": -1},
				identity.QuotaNetwork:      {"port": -1},
				identity.QuotaBlockStorage: {"volumes": 3, "gigabytes": 100},
				identity.QuotaLoadBalancer: {"load_balancer": 2, "listener": -1},
			}),
		},
		{
			// Roles: regranted, then a new credential and trust; the project stays.
			args:   withManager,
			action: plancheck.ResourceActionUpdate,
			planned: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(address, tfjsonpath.New("application_credential_id")),
				plancheck.ExpectUnknownValue(address, tfjsonpath.New("trust_id")),
			},
			state: []statecheck.StateCheck{
				credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
				trust.AddStateValue(address, tfjsonpath.New("trust_id")),
			},
			cloud: expectUpdated([]string{"load-balancer_member", "manager", "member"},
				map[string]map[string]int64{identity.QuotaCompute: {"instances": 5}}),
			trustUsed: true,
		},
		{
			// Dropping a role revokes it from the user, then re-issues credential and trust.
			args:   memberOnly,
			action: plancheck.ResourceActionUpdate,
			state: []statecheck.StateCheck{
				credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
				trust.AddStateValue(address, tfjsonpath.New("trust_id")),
			},
			cloud:     expectUpdated([]string{"member"}, map[string]map[string]int64{identity.QuotaCompute: {"instances": 6}}),
			trustUsed: true,
		},
	}

	testSteps := make([]resource.TestStep, 0, len(steps)+2)

	for _, st := range steps {
		checks := []resource.TestCheckFunc{checkIdentityInCloud(t, st.cloud), checkCredentialUsable()}
		if st.trustUsed {
			checks = append(checks, checkTrustUsable(t))
		}

		testSteps = append(testSteps, resource.TestStep{
			Config: st.args.config(name),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(address, st.action)}, st.planned...),
			},
			// Every step keeps the project and the user.
			ConfigStateChecks: append([]statecheck.StateCheck{
				sameID.AddStateValue(address, tfjsonpath.New("id")),
				sameUser.AddStateValue(address, tfjsonpath.New("user_id")),
			}, st.state...),
			Check: resource.ComposeAggregateTestCheckFunc(checks...),
		})
	}

	// Import by project ID (the resource's ID) and by name. The secret cannot be read back:
	// it is all an import loses.
	for _, id := range []string{"", name} {
		testSteps = append(testSteps, resource.TestStep{
			ResourceName:            address,
			ImportState:             true,
			ImportStateId:           id,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"application_credential_secret", "clouds_yaml"},
		})
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps:                    testSteps,
	})
}

// TestAccIdentity_disappears deletes the credential and trust out of band (the next apply
// re-issues them in place), then the project (the next apply creates the identity again).
func TestAccIdentity_disappears(t *testing.T) {
	name := acctest.IdentityName()
	config := identityArgs{}.config(name)

	var projectID, userID, credentialID string

	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameUser := statecheck.CompareValue(compare.ValuesSame())
	credential := statecheck.CompareValue(compare.ValuesDiffer())

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(address, tfjsonpath.New("id")),
					sameUser.AddStateValue(address, tfjsonpath.New("user_id")),
					credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
				},
				Check: func(s *terraform.State) error {
					a := s.RootModule().Resources[address].Primary.Attributes
					projectID, userID, credentialID = a["id"], a["user_id"], a["application_credential_id"]

					return nil
				},
			},
			{
				PreConfig: func() { acctest.DeleteCredentials(t, userID, credentialID) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(address, tfjsonpath.New("trust_id")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(address, tfjsonpath.New("id")),
					sameUser.AddStateValue(address, tfjsonpath.New("user_id")),
					credential.AddStateValue(address, tfjsonpath.New("application_credential_id")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("trust_id"), knownvalue.NotNull()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkCredentialUsable(), checkTrustUsable(t)),
			},
			{
				PreConfig:        func() { acctest.DeleteProject(t, projectID) },
				Config:           config,
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionCreate),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(s *terraform.State) error {
						if got := s.RootModule().Resources[address].Primary.ID; got == projectID {
							return fmt.Errorf("the identity kept the deleted project %s", projectID)
						}

						return nil
					},
					checkCredentialUsable(),
					checkTrustUsable(t),
					checkOneOfEach(t, name),
				),
			},
		},
	})
}

// TestAccIdentity_adopt: a project and user of the identity's names made by hand (no mark) are
// refused before anything is written (the service user gets no grant there); a project and
// user that an interrupted create left (the identity's creation mark, no completion mark) are
// adopted, the identity finished and marked complete, and no twin appears.
func TestAccIdentity_adopt(t *testing.T) {
	byHand := acctest.IdentityName()
	name := acctest.IdentityName()

	var handProjectID, projectID, userID string

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					var handUserID string

					handProjectID, handUserID = acctest.PreCreateIdentity(t, byHand)
					acctest.DeleteIdentityObjectsAtCleanup(t, handProjectID, handUserID)
				},
				Config: identityArgs{description: "adopted"}.config(byHand),
				ExpectError: regexp.MustCompile(`(?s)` + words(`Keystone project named "`+naming.IdentityProject(byHand)+`" already exists`) +
					`.*` + words("this provider did not make it") + `.*` + words("terraform import unikorn_identity")),
			},
			{
				PreConfig: func() {
					if got := acctest.RoleNamesOf(t, acctest.Client(t).ServiceUserID(), handProjectID); len(got) > 0 {
						t.Errorf("the refused project %s was granted %v to the service user", handProjectID, got)
					}

					projectID, userID = acctest.PreCreateInterruptedIdentity(t, name)
				},
				Config: identityArgs{description: "adopted"}.config(name),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(s *terraform.State) error {
						a := s.RootModule().Resources[address].Primary.Attributes
						if a["id"] != projectID || a["user_id"] != userID {
							return fmt.Errorf("adopted project %s / user %s, want the pre-created %s / %s", a["id"], a["user_id"], projectID, userID)
						}

						sc, _ := acctest.IdentityKeystone(t)

						p, err := projects.Get(context.Background(), sc, projectID).Extract()
						if err != nil {
							return err
						}

						if m := naming.MarkOf(p.Extra); m != naming.MadeFor(identity.Type).Done() {
							return fmt.Errorf("the adopted project is %s, want it finished", m)
						}

						return nil
					},
					checkOneOfEach(t, name),
					checkIdentityInCloud(t, cloudExpect{description: "adopted", userRoles: []string{"load-balancer_member", "member"}}),
					checkCredentialUsable(),
					checkTrustUsable(t),
				),
			},
		},
	})
}

// TestAccIdentity_forceDestroy: destroy refuses while a network exists in the project (in the
// last served region) and names it; with force_destroy the network goes, then the identity.
func TestAccIdentity_forceDestroy(t *testing.T) {
	name := acctest.IdentityName()
	region := acctest.LastRegion()
	netName := acctest.RandomName() + "-leftover"

	config := func(force bool) string { return identityArgs{forceDestroy: force}.config(name) }

	var projectID, networkID string

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckIdentityDestroy(t),
			func(*terraform.State) error {
				if networkID == "" {
					return nil // the test stopped before making it
				}

				exists, err := acctest.NetworkExists(t, region, networkID)
				if err != nil || exists {
					return fmt.Errorf("network %s still exists in %s (err %v)", networkID, region, err)
				}

				return nil
			},
		),
		Steps: []resource.TestStep{
			{
				Config: config(false),
				Check:  acctest.CaptureID(address, &projectID),
			},
			{
				PreConfig:   func() { networkID = acctest.CreateNetwork(t, projectID, region, netName) },
				Config:      config(false),
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)still holds.*` + regexp.QuoteMeta(region) + `.*network "` + regexp.QuoteMeta(netName) + `"`),
			},
			{
				Config:           config(true),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionUpdate),
				Check: func(*terraform.State) error {
					exists, err := acctest.NetworkExists(t, region, networkID)
					if err != nil || !exists {
						return fmt.Errorf("network %s should still exist before the destroy (err %v)", networkID, err)
					}

					return nil
				},
			},
		},
	})
}

// TestAccIdentity_failedCreateIsRecorded: a create that fails after the project exists (Nova
// refuses the key at the last step) still records the identity, tainted: the next apply
// replaces it instead of making a twin, and nothing is lost.
func TestAccIdentity_failedCreateIsRecorded(t *testing.T) {
	name := acctest.IdentityName()

	config := func(key string) string { return identityArgs{sshPublicKey: key}.config(name) }

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{
				// Well-formed for the schema, not a key for Nova.
				Config:      config("ssh-ed25519 AAAAnotakey tf-acc"),
				ExpectError: regexp.MustCompile(`(?s)Error creating identity.*project\s+[0-9a-f]+\).*keypair`),
			},
			{
				Config:           config(acctest.SSHPublicKey(t)),
				ConfigPlanChecks: acctest.Expect(address, plancheck.ResourceActionDestroyBeforeCreate),
				Check:            resource.ComposeAggregateTestCheckFunc(checkOneOfEach(t, name), checkCredentialUsable()),
			},
		},
	})
}

// TestAccIdentity_validation: mistakes are plan-time errors.
func TestAccIdentity_validation(t *testing.T) {
	cases := []struct{ body, want string }{
		{`name = "Upper"`, `must be 1 to 40 characters`},
		{`name = "this-name-is-far-too-long-for-an-identity-x"`, `must be 1 to 40 characters`},
		{`name = "ok"` + "\n" + `quotas = { compute = { instances = -2 } }`, `between -1 and 2147483647`},
		{`name = "ok"` + "\n" + `roles = ["admin"]`, `value must be one of`},
		{`name = "ok"` + "\n" + `expires_at = "tomorrow"`, `Invalid RFC 3339 time`},
		{`name = "ok"` + "\n" + `expires_at = "2001-01-01T00:00:00Z"`, `expires_at is in the past`},
		{`name = "ok"` + "\n" + `server_group = { policy = "spread" }`, `value must be one of`},
		{`name = "ok"` + "\n" + `ssh_public_key = "not a key"`, `OpenSSH public key`},
		{`name = "ok"` + "\n" + `organization_id = "a/b"`, `must not contain`},
	}

	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      "resource \"unikorn_identity\" \"test\" {\n" + c.body + "\n}\n",
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(c.want),
		})
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// checkIdentityInCloud asks Keystone, Nova, Neutron, Cinder and Octavia about the identity in
// the state.
func checkIdentityInCloud(t *testing.T, want cloudExpect) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		projectID, userID := a["id"], a["user_id"]
		ctx := context.Background()
		c := acctest.Client(t)

		sc, domainID := acctest.IdentityKeystone(t)

		p, err := projects.Get(ctx, sc, projectID).Extract()
		if err != nil {
			return fmt.Errorf("project %s: %w", projectID, err)
		}

		if p.Name != naming.IdentityProject(a["name"]) || p.DomainID != domainID {
			return fmt.Errorf("project %s is %q in domain %s", p.ID, p.Name, p.DomainID)
		}

		if want.tags != nil && !sameStrings(p.Tags, want.tags) {
			return fmt.Errorf("project tags = %v, want %v", p.Tags, want.tags)
		}

		if p.Description != want.description {
			return fmt.Errorf("project description = %q, want %q", p.Description, want.description)
		}

		if got := acctest.RoleNamesOf(t, userID, projectID); !sameStrings(got, want.userRoles) {
			return fmt.Errorf("identity user roles = %v, want %v", got, want.userRoles)
		}

		svcRoles := acctest.RoleNamesOf(t, c.ServiceUserID(), projectID)
		for _, r := range append([]string{"manager"}, want.userRoles...) {
			if !slices.Contains(svcRoles, r) {
				return fmt.Errorf("service user roles on the project = %v, missing %s", svcRoles, r)
			}
		}

		trusts := acctest.UserTrusts(t, userID)
		if len(trusts) != 1 || trusts[0].ID != a["trust_id"] || trusts[0].ProjectID != projectID || !trusts[0].Impersonation {
			return fmt.Errorf("trusts of user %s = %+v, want exactly trust %s on project %s with impersonation", userID, trusts, a["trust_id"], projectID)
		}

		quotas, err := identity.RegionQuotas(ctx, c, projectID)
		if err != nil {
			return err
		}

		for region, q := range quotas {
			for group, fields := range want.quotas {
				for key, v := range fields {
					if got := q[group][key]; got != v {
						return fmt.Errorf("region %s: quota %s.%s = %d, want %d", region, group, key, got, v)
					}
				}
			}
		}

		priv, err := c.Privileged(ctx, projectID)
		if err != nil {
			return err
		}

		for _, region := range acctest.Regions() {
			if want.sshKey != "" {
				owner, key, err := acctest.KeypairOwner(t, projectID, userID, region, naming.KeypairName)
				if err != nil {
					return fmt.Errorf("region %s: keypair: %w", region, err)
				}

				if owner != userID || strings.Fields(key)[1] != strings.Fields(want.sshKey)[1] {
					return fmt.Errorf("region %s: keypair of %s with key %q, want of %s with %q", region, owner, key, userID, want.sshKey)
				}
			}

			if want.policy != "" {
				compute, err := priv.Compute(region)
				if err != nil {
					return err
				}

				id := a["server_group_ids."+region]

				sg, err := servergroups.Get(ctx, compute, id).Extract()
				if err != nil {
					return fmt.Errorf("region %s: server group %s: %w", region, id, err)
				}

				if sg.Name != naming.IdentityServerGroup(a["name"]) || sg.Policy == nil || *sg.Policy != want.policy || sg.UserID != userID {
					return fmt.Errorf("region %s: server group %q policy %v of user %s, want policy %s of user %s",
						region, sg.Name, sg.Policy, sg.UserID, want.policy, userID)
				}
			}
		}

		return nil
	})
}

// checkCredentialUsable authenticates with the exported clouds.yaml and lists servers.
func checkCredentialUsable() resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		_, err := acctest.ListServersWithCloudsYAML(context.Background(), a["clouds_yaml"], naming.IdentityProject(a["name"]), acctest.FirstRegion())

		return err
	})
}

// checkTrustUsable acts in the identity scope (through the trust) and checks that what it
// makes belongs to the identity's user.
func checkTrustUsable(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		for _, region := range acctest.Regions() {
			owner, err := acctest.KeypairOwnerThroughTrust(t, a["id"], region)
			if err != nil {
				return fmt.Errorf("region %s: %w", region, err)
			}

			if owner != a["user_id"] {
				return fmt.Errorf("region %s: a keypair made through the trust belongs to %s, not to the identity user %s", region, owner, a["user_id"])
			}
		}

		return nil
	})
}

// checkOneOfEach: exactly one project and one user carry the identity's name.
func checkOneOfEach(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ps, err := acctest.IdentityProjects(t, name)
		if err != nil {
			return err
		}

		us, err := acctest.IdentityUsers(t, name)
		if err != nil {
			return err
		}

		if len(ps) != 1 || len(us) != 1 {
			return fmt.Errorf("%d projects and %d users named %s, want one of each", len(ps), len(us), naming.IdentityProject(name))
		}

		return nil
	}
}

func sameStrings(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)

	return slices.Equal(a, b)
}
