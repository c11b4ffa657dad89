package role_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/role"
)

// handMadeRole makes a global role called name out of band, with the extra attributes (marks)
// and implying the roles of implied, and deletes it when the test ends.
func handMadeRole(t *testing.T, name string, extra map[string]any, implied ...string) string {
	t.Helper()

	ctx, sc := context.Background(), acctest.AdminKeystone(t)

	r, err := roles.Create(ctx, sc, roles.CreateOpts{Name: name, Extra: extra}).Extract()
	if err != nil {
		t.Fatalf("creating role %s: %v", name, err)
	}

	t.Cleanup(func() {
		if err := roles.Delete(context.Background(), sc, r.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting role %s: %v", r.ID, err)
		}
	})

	for _, n := range implied {
		if _, err := roles.CreateRoleInferenceRule(ctx, sc, r.ID, acctest.RoleID(t, n)).Extract(); err != nil {
			t.Fatalf("role %s implying %s: %v", name, n, err)
		}
	}

	return r.ID
}

// keystoneRole is what Keystone holds of role id: its implied roles and its marks.
func keystoneRole(t *testing.T, id string) (*role.Role, error) {
	t.Helper()

	return service(t).Get(context.Background(), id)
}

// TestAccRole_existingRefused: a role of the name made by hand (implying reader) is refused by
// a unikorn_role of that name that would imply member, and left untouched: it implies reader
// only, carries no mark, and survives the test's destroy (issue 26, item 2).
func TestAccRole_existingRefused(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	id := handMadeRole(t, name, nil, "reader")

	untouched := func(*terraform.State) error {
		r, err := keystoneRole(t, id)
		if err != nil || r == nil || !slices.Equal(r.Implies, []string{"reader"}) || r.Mark.Marked() {
			return fmt.Errorf("role %s: %+v (%v), want it untouched: implying reader only, unmarked", id, r, err)
		}

		return nil
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkRoleDestroy(t), untouched),
		Steps: []resource.TestStep{{
			Config:      fmt.Sprintf("resource \"unikorn_role\" \"test\" {\n  name    = %q\n  implies = [\"member\"]\n}\n", name),
			ExpectError: regexp.MustCompile(`(?s)Role exists already.*` + id + `.*did\s+not\s+make\s+it.*terraform\s+import\s+unikorn_role`),
		}},
	})
}

// TestAccRole_interruptedCreateAdopted: a role made directly with the creation mark of
// unikorn_role and no completion mark (what a create killed after its POST leaves) is adopted by
// the unikorn_role of its name: same ID, given its implied role, then marked finished. A second
// configuration's create of the name is then refused.
func TestAccRole_interruptedCreateAdopted(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()
	id := handMadeRole(t, name, naming.MadeFor(role.TypeName).Extra())
	config := fmt.Sprintf("resource \"unikorn_role\" \"test\" {\n  name    = %q\n  implies = [\"member\"]\n}\n", name)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkRoleDestroy(t),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(id))},
				Check: resource.ComposeAggregateTestCheckFunc(checkKeystoneRole(t, address), func(*terraform.State) error {
					r, err := keystoneRole(t, id)
					if err != nil || r == nil || r.Mark != naming.MadeFor(role.TypeName).Done() || !slices.Equal(r.Implies, []string{"member"}) {
						return fmt.Errorf("role %s: %+v (%v), want it implying member and marked finished", id, r, err)
					}

					return nil
				}),
			},
			{
				// Another configuration (the same one with a second resource of the name) is refused.
				Config:      config + fmt.Sprintf("resource \"unikorn_role\" \"twin\" {\n  name = %q\n}\n", name),
				ExpectError: regexp.MustCompile(`(?s)Role exists already.*finished\s+unikorn_role\s+of\s+another\s+configuration`),
			},
		},
	})
}
