package acctest

import "fmt"

// This file holds the HCL builders of the tenant objects that many tests' configurations
// start from. Each takes its further arguments as whole lines (extra: each indented and ending
// in a newline, as RegionLine's; "" for none).

// IdentityHCL is the unikorn_identity label called name, with the argument lines extra.
func IdentityHCL(label, name, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_identity" %[1]q {
  name        = %[2]q
%[3]s}
`, label, name, extra)
}

// NetworkHCL is the unikorn_network label of the unikorn_identity owner (a label), called
// name, on cidr, with the argument lines extra.
func NetworkHCL(label, owner, name, cidr, extra string) string {
	return fmt.Sprintf(`
resource "unikorn_network" %[1]q {
  identity_id = unikorn_identity.%[2]s.id
  name        = %[3]q
  cidr        = %[4]q
%[5]s}
`, label, owner, name, cidr, extra)
}

// RegionLine is the argument line that puts a tenant resource in region.
func RegionLine(region string) string {
	return fmt.Sprintf("  region      = %q\n", region)
}
