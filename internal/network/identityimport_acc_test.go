package network_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccIdentityImport_network checks the resource identity of regional resources,
// `{ region, id }`, in the state, and imports a network and a security group with `import`
// blocks that give it (OpenTofu 1.12); each import plans nothing.
func TestAccIdentityImport_network(t *testing.T) {
	project := tenant(t)
	name := acctest.RandomName()
	config := networkConfig(project, name, `cidr = "192.168.20.0/24"`) + groupConfig(project, name, "")

	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   acctest.IdentityCLI,
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckNetworkDestroy(t), acctest.CheckSecurityGroupDestroy(t)),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: append(acctest.ExpectIdentity(networkAddress, true), acctest.ExpectIdentity(groupAddress, true)...),
			},
			acctest.IdentityImportStep(networkAddress, config),
			acctest.IdentityImportStep(groupAddress, config),
		},
	})
}
