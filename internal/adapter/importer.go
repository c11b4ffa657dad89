package adapter

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Locator finds a tenant object for import in a resolved region by ID or by user-given name.
type Locator func(ctx context.Context, region, idOrName string) (cloud.Located, error)

// GlobalLocator finds a global object (one without a region, such as an identity) for import
// by ID or by user-given name.
type GlobalLocator func(ctx context.Context, idOrName string) (cloud.Located, error)

// ImportRegional imports a regional object from `REGION/ID`, `REGION/name`, `ID` or `name` (a
// bare one means the provider's default region): it finds the object with locate and sets
// `id`, `name`, `region` and, for a tenant object (Located.ProjectID set), `identity_id` (or
// `project_id` when Located.InProject); Read fills in the rest. It returns what was
// found, false on failure (reported under "Error importing <noun>").
func (b *ResourceBase[T]) ImportRegional(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate Locator,
) (cloud.Located, bool) {
	return b.importWith(ctx, req, resp, func(ctx context.Context) (cloud.Located, map[string]string, error) {
		region, idOrName, err := SplitImportID(req.ID)
		if err == nil {
			region, err = b.Cloud().ResolveRegion(region)
		}

		if err != nil {
			return cloud.Located{}, nil, err
		}

		loc, err := locate(ctx, region, idOrName)

		extra := map[string]string{"region": region}

		switch {
		case loc.ProjectID == "": // a region's own object (flavor, image)
		case loc.InProject: // in a unikorn_project's project
			extra["project_id"] = loc.ProjectID
		default: // in an identity's project
			extra["identity_id"] = loc.ProjectID
		}

		return loc, extra, err
	})
}

// ImportGlobal imports a global object from `ID` or `name`: it finds the object with locate
// and sets `id` and `name` (when the object has one); Read fills in the rest. Like
// ImportRegional otherwise.
func (b *ResourceBase[T]) ImportGlobal(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate GlobalLocator,
) (cloud.Located, bool) {
	return b.importWith(ctx, req, resp, func(ctx context.Context) (cloud.Located, map[string]string, error) {
		if req.ID == "" {
			return cloud.Located{}, nil, errors.New("empty import ID: give the ID or the name")
		}

		loc, err := locate(ctx, req.ID)

		return loc, nil, err
	})
}

// importWith runs find as the import operation and writes `id`, `name` and the extra
// attributes it returns.
func (b *ResourceBase[T]) importWith(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse,
	find func(context.Context) (cloud.Located, map[string]string, error),
) (cloud.Located, bool) {
	ctx, op, ok := b.Begin(ctx, Import, timeouts.Value{}, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return cloud.Located{}, false
	}

	var (
		loc   cloud.Located
		extra map[string]string
		err   = errors.New("the provider is not configured")
	)

	if b.Configured() {
		loc, extra, err = find(ctx)
	}

	if err == nil && loc.ID == "" {
		err = errors.New("not found")
	}

	if err != nil {
		op.Fail(fmt.Sprintf("%q", req.ID), err)
		return cloud.Located{}, false
	}

	attrs := map[string]string{"id": loc.ID}
	if loc.Name != "" { // an object without a name (a federation) has no such attribute
		attrs["name"] = loc.Name
	}

	maps.Copy(attrs, extra)

	for _, attr := range slices.Sorted(maps.Keys(attrs)) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), attrs[attr])...)
	}

	return loc, !resp.Diagnostics.HasError()
}
