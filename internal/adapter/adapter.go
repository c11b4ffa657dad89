// Package adapter is the framework kit every resource and data source is written on: the
// embeddable bases (Metadata, Configure and the provider-data guard), the openings of the CRUD
// methods and of ModifyPlan, the one region rule, the one import helper, the shared schema
// fragments, the validators and the small value helpers. It holds Terraform types only and
// makes no OpenStack call: the concept packages' cores do that.
package adapter

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Meta is what the kit needs of every concept's view of the provider's client bundle.
type Meta interface {
	Cloud() *cloud.Client
}

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
		return "", "", fmt.Errorf("import ID %q is not of the form REGION/ID, REGION/name, ID or name", importID)
	}
}
