package identity_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccIdentityImport_identity checks the resource identity of a global resource, `{ id }`,
// in the state, and imports the identity with an `import` block that gives it (OpenTofu 1.12).
// The identity keeps no credential, whose secret no import could know: the import plans
// nothing.
func TestAccIdentityImport_identity(t *testing.T) {
	config := fmt.Sprintf(`
resource "unikorn_identity" "test" {
  name                   = %q
  application_credential = false
}
`, acctest.IdentityName())

	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   acctest.IdentityCLI,
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckIdentityDestroy(t),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: acctest.ExpectIdentity(address, false)},
			acctest.IdentityImportStep(address, config),
		},
	})
}
