package identity_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/identity"
)

// TestAccIdentity_inheritedAdmin runs the provider as the local cloud's second service user,
// unikorn-inherited, which holds the domain-inherited admin model (admin on the managed domain
// inherited to its projects, only member on its own project), while every other test runs as
// the cloud-admin user: an identity with quotas is made, its quotas hold in every region, the
// service user holds manager there and the trust names it, and destroy leaves nothing behind,
// Neutron's default security groups included (CheckDestroy).
func TestAccIdentity_inheritedAdmin(t *testing.T) {
	acctest.PreCheck(t)

	inherited := acctest.NeedInheritedCloud(t)

	name := acctest.IdentityName()
	quotas := "{\n    compute       = { instances = 7 }\n    network       = { network = 3 }\n    block_storage = { volumes = 4 }\n  }"

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("provider \"unikorn\" {\n  cloud = %q\n}\n\n", inherited) + identityArgs{quotas: quotas}.config(name),
			Check: checkMadeBy(t, inherited, map[string]map[string]int64{
				identity.QuotaCompute: {"instances": 7}, identity.QuotaNetwork: {"network": 3}, identity.QuotaBlockStorage: {"volumes": 4},
			}),
		}},
	})
}

// checkMadeBy checks, as the shared cloud-admin user, an identity that serviceUser made: the
// service user's manager role and trust on its project, and quotas in every region.
func checkMadeBy(t *testing.T, serviceUser string, want map[string]map[string]int64) resource.TestCheckFunc {
	return acctest.CheckAttributes(address, func(a map[string]string) error {
		projectID, userID := a["id"], a["user_id"]
		serviceUserID := acctest.CloudUserID(t, serviceUser)

		if roles := acctest.RoleNamesOf(t, serviceUserID, projectID); !slices.Contains(roles, "manager") {
			return fmt.Errorf("%s roles on the project = %v, want manager among them", serviceUser, roles)
		}

		if trusts := acctest.TrustsBetween(t, serviceUserID, userID); len(trusts) != 1 || trusts[0].ID != a["trust_id"] {
			return fmt.Errorf("trusts from the identity user to %s = %+v, want exactly %s", serviceUser, trusts, a["trust_id"])
		}

		perRegion, err := identity.RegionQuotas(context.Background(), acctest.Client(t), projectID)
		if err != nil {
			return err
		}

		for region, quotas := range perRegion {
			for group, fields := range want {
				for field, v := range fields {
					if got := quotas[group][field]; got != v {
						return fmt.Errorf("region %s: %s quota %s = %d, want %d", region, group, field, got, v)
					}
				}
			}
		}

		return nil
	})
}
