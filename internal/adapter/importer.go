package adapter

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Locator finds a tenant object for import in a resolved region by ID or by user-given name.
type Locator func(ctx context.Context, region, idOrName string) (cloud.Located, error)

// ImportRegional imports a regional tenant object from `REGION/ID`, `REGION/name`, `ID` or
// `name` (a bare one means the provider's default region): it finds the object with locate and
// sets `id`, `identity_id`, `name` and `region`; Read fills in the rest. It returns what was
// found, false on failure (the diagnostics say why).
func (b *ResourceBase[T]) ImportRegional(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate Locator,
) (cloud.Located, bool) {
	summary := "Error " + Import.gerund() + " " + b.kind.Noun

	c := b.Cloud()
	if c == nil {
		resp.Diagnostics.AddError(summary, "The provider is not configured.")
		return cloud.Located{}, false
	}

	region, idOrName, err := SplitImportID(req.ID)
	if err == nil {
		region, err = c.ResolveRegion(region)
	}

	var loc cloud.Located
	if err == nil {
		loc, err = locate(ctx, region, idOrName)
	}

	if err == nil && loc.ID == "" {
		err = errors.New("not found")
	}

	if err != nil {
		resp.Diagnostics.AddError(summary, err.Error())
		return cloud.Located{}, false
	}

	for attr, v := range map[string]string{"id": loc.ID, "identity_id": loc.ProjectID, "name": loc.Name, "region": region} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}

	return loc, !resp.Diagnostics.HasError()
}
