package identity_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccIdentity_inheritedAdmin runs the provider as the local cloud's second service user,
// unikorn-inherited, which holds the domain-inherited admin model (admin on the managed domain
// inherited to its projects, only member on its own project), while every other test runs as
// the cloud-admin user: an identity with quotas is made, its quotas hold in every region, and
// destroy leaves nothing behind, Neutron's default security groups included (CheckDestroy).
func TestAccIdentity_inheritedAdmin(t *testing.T) {
	name := acctest.IdentityName()
	quotas := "{\n    compute       = { instances = 7 }\n    network       = { network = 3 }\n    block_storage = { volumes = 4 }\n  }"

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{{
			Config: "provider \"unikorn\" {\n  cloud = \"unikorn-inherited\"\n}\n\n" + identityArgs{quotas: quotas}.config(name),
			Check: checkIdentityInCloud(t, cloudExpect{
				userRoles: []string{"load-balancer_member", "member"},
				quotas: map[string]map[string]int64{
					"compute": {"instances": 7}, "network": {"network": 3}, "block_storage": {"volumes": 4},
				},
			}),
		}},
	})
}
