package acctest

import (
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Resource identity needs Terraform 1.12 or OpenTofu 1.12: the tests of it are named
// TestAccIdentityImport_*, and tools/testacc/run runs them with the OpenTofu that
// tools/cli/cli-env builds (the rest with the default CLI).

// IdentityCLI is the version check of the resource identity tests.
var IdentityCLI = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}

// EphemeralCLI is the version check of the tests that open an ephemeral resource, which needs
// Terraform 1.10 (CI runs 1.11): a version guard only.
var EphemeralCLI = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}

// ExpectIdentity checks that the state's resource identity of address is its `id` and, for a
// regional resource, its `region`.
func ExpectIdentity(address string, regional bool) []statecheck.StateCheck {
	checks := []statecheck.StateCheck{statecheck.ExpectIdentityValueMatchesState(address, tfjsonpath.New("id"))}
	if regional {
		checks = append(checks, statecheck.ExpectIdentityValueMatchesState(address, tfjsonpath.New("region")))
	}

	return checks
}

// IdentityImportStep imports address with an `import` block that gives its identity (as the
// state records it), with config, and expects a plan that changes nothing.
func IdentityImportStep(address, config string) resource.TestStep {
	return resource.TestStep{
		Config:          config,
		ResourceName:    address,
		ImportState:     true,
		ImportStateKind: resource.ImportBlockWithResourceIdentity,
	}
}
