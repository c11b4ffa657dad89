package identity

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// globalLocator finds a global object (one without a region, such as an identity) for import
// by its ID or by its user-given name.
type globalLocator func(ctx context.Context, idOrName string) (cloud.Located, error)

// importGlobal imports a global object from `ID` or `name`: it finds the object with locate
// and sets `id` and `name`; Read fills in the rest. It is the kit's ImportRegional without the
// region (and without `identity_id`), written here until the kit holds it. Failures are
// reported under "Error importing <noun>".
func importGlobal[T adapter.Meta](ctx context.Context, b *adapter.ResourceBase[T], req resource.ImportStateRequest,
	resp *resource.ImportStateResponse, locate globalLocator,
) {
	ctx, op, ok := b.Begin(ctx, adapter.Import, timeouts.Value{}, &resp.Diagnostics)
	defer op.End(ctx)

	if !ok {
		return
	}

	var (
		loc cloud.Located
		err error
	)

	switch {
	case !b.Configured():
		err = errors.New("the provider is not configured")
	case req.ID == "":
		err = errors.New("empty import ID: give the ID or the name")
	default:
		loc, err = locate(ctx, req.ID)
		if err == nil && loc.ID == "" {
			err = errors.New("not found")
		}
	}

	if err != nil {
		op.Fail(fmt.Sprintf("%q", req.ID), err)
		return
	}

	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), loc.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), loc.Name)...)
}
