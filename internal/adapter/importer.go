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

// ImportRegional imports a tenant object from `REGION/ID`, `REGION/name`, `ID` or `name`: a
// bare ID is looked for in every served region, the default one first (cloud.InEveryRegion),
// a bare name in the default region. It finds the object with locate and sets `id`, `name`,
// `region` and, for a tenant object (Located.ProjectID set), `identity_id` (or `project_id`
// when Located.InProject); Read fills in the rest. It returns what was found, false on failure
// (reported under "Error importing <noun>").
func (b *ResourceBase[T]) ImportRegional(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate Locator,
) (cloud.Located, bool) {
	return b.importRegional(ctx, req, resp, locate, true)
}

// importRegional is ImportRegional; anywhere says whether a bare ID is looked for in every
// served region (tenant objects) or in the default region only (a region's catalog, whose IDs
// an operator may well give the same in every region: flavors).
func (b *ResourceBase[T]) importRegional(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate Locator, anywhere bool,
) (cloud.Located, bool) {
	return b.importWith(ctx, req, resp, func(ctx context.Context) (cloud.Located, string, error) {
		region, idOrName, err := SplitImportID(req.ID)
		if err != nil {
			return cloud.Located{}, "", err
		}

		if region == "" && anywhere && cloud.LooksLikeID(idOrName) {
			return cloud.InEveryRegion(ctx, b.Cloud(), b.kind.Noun, idOrName,
				func(ctx context.Context, region string) (cloud.Located, error) { return locate(ctx, region, idOrName) })
		}

		if region, err = b.Cloud().ResolveRegion(region); err != nil {
			return cloud.Located{}, "", err
		}

		loc, err := locate(ctx, region, idOrName)

		return loc, region, err
	})
}

// ImportGlobal imports a global object from `ID` or `name`: it finds the object with locate
// and sets `id` and `name` (when the object has one); Read fills in the rest. Like
// ImportRegional otherwise.
func (b *ResourceBase[T]) ImportGlobal(ctx context.Context, req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate GlobalLocator,
) (cloud.Located, bool) {
	return b.importWith(ctx, req, resp, func(ctx context.Context) (cloud.Located, string, error) {
		if req.ID == "" {
			return cloud.Located{}, "", errors.New("empty import ID: give the ID or the name")
		}

		loc, err := locate(ctx, req.ID)

		return loc, "", err
	})
}

// importWith runs find as the import operation and writes the attributes an import sets
// (importedAttributes) of what it found in the region it returns ("" for a global object).
func (b *ResourceBase[T]) importWith(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse,
	find func(context.Context) (cloud.Located, string, error),
) (cloud.Located, bool) {
	ctx, op, ok := b.Begin(ctx, Import, timeouts.Value{}, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return cloud.Located{}, false
	}

	var (
		loc    cloud.Located
		region string
		err    = errors.New("the provider is not configured")
	)

	if b.Configured() {
		loc, region, err = find(ctx)
	}

	if err == nil && loc.ID == "" {
		err = errors.New("not found")
	}

	if err != nil {
		op.Fail(fmt.Sprintf("%q", req.ID), err)
		return cloud.Located{}, false
	}

	attrs := importedAttributes(loc, region)

	for _, attr := range slices.Sorted(maps.Keys(attrs)) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), attrs[attr])...)
	}

	return loc, !resp.Diagnostics.HasError()
}
