// Package adapter holds the small pieces that every concept package's Terraform adapter
// needs in the same form: taking the provider's client bundle out of ProviderData, and
// parsing region-qualified import IDs. It holds no OpenStack logic.
package adapter

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ProviderData converts what the provider's Configure handed out into the interface T that a
// resource or data source declares it needs. It returns false without a diagnostic when the
// provider is not configured yet (Terraform validates configuration before Configure runs).
func ProviderData[T any](data any, diags *diag.Diagnostics) (T, bool) {
	var zero T

	if data == nil {
		return zero, false
	}

	meta, ok := data.(T)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected %T, got %T. This is a bug in the provider; please report it.", zero, data))

		return zero, false
	}

	return meta, true
}

// SplitImportID splits an import ID of the form `REGION/ID` (DESIGN.md §8). A bare `ID`
// returns an empty region, which callers resolve to the provider's default region.
func SplitImportID(importID string) (region, id string, err error) {
	parts := strings.Split(importID, "/")

	switch {
	case len(parts) == 1 && parts[0] != "":
		return "", parts[0], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[1], nil
	default:
		return "", "", fmt.Errorf("import ID %q is not of the form REGION/ID or ID", importID)
	}
}
