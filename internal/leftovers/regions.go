package leftovers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The regions a project was applied in. Tenant objects can only be made in a served region,
// but `regions` may be narrowed later: the leftovers check and force_destroy must then still
// look in every region the project was served in, or Keystone's delete of the project orphans
// what is there. The provider records those regions on the Keystone project itself (an extra
// attribute, kept across state loss and imports), adding a region before its first write
// there; destroy looks in the union of the recorded and the served regions.

// RegionsKey is naming.RegionsKey: the record of the regions a project was applied in.
const RegionsKey = naming.RegionsKey

// Recorded are the regions recorded in a project's extra attributes, sorted.
func Recorded(extra map[string]any) []string {
	var out []string

	switch v := extra[RegionsKey].(type) {
	case []any:
		for _, r := range v {
			if s, ok := r.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	}

	return cloud.SortedSet(out)
}

// Regions are the regions to look in for a project's leftovers: the served ones (in the order
// served), then those recorded in its extra attributes that are no longer served (sorted).
func Regions(served []string, extra map[string]any) []string {
	out := slices.Clone(served)

	for _, r := range Recorded(extra) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}

	return out
}

// RecordExtra is the extra attributes that record served on a project whose extra attributes
// are extra: the union of both (nil when every served region is recorded already). A create
// sends it in its request; an update writes it with Remember.
func RecordExtra(served []string, extra map[string]any) map[string]any {
	recorded := Recorded(extra)

	missing := false

	for _, r := range served {
		if !slices.Contains(recorded, r) {
			missing = true
		}
	}

	if !missing {
		return nil
	}

	return map[string]any{RegionsKey: cloud.SortedSet(append(recorded, served...))}
}

// Remember records the served regions on project p (in the manager scope sc) when some are
// missing from its record: run it before the first write in a region. It returns the project
// as updated (p when nothing was written).
func Remember(ctx context.Context, sc *gophercloud.ServiceClient, p *projects.Project, served []string) (*projects.Project, error) {
	extra := RecordExtra(served, p.Extra)
	if extra == nil {
		return p, nil
	}

	updated, err := projects.Update(cloud.Repeatable(ctx), sc, p.ID, projects.UpdateOpts{Extra: extra}).Extract()
	if err != nil {
		return p, fmt.Errorf("recording the regions of project %s: %w", p.ID, err)
	}

	tflog.Debug(ctx, "Recorded the regions the project is applied in", map[string]any{"project_id": p.ID, "regions": extra[RegionsKey]})

	return updated, nil
}

// Unreachable is a region a project was applied in that cannot be looked into any more: the
// Keystone catalog no longer has it (or lacks one of its services).
type Unreachable struct {
	Region string
	Err    error
}

// Bind binds a project in every region of regions with bind (cloud.Client.BindAnywhere or
// BindProjectAnywhere, with a scope). A region the Keystone catalog lacks (a *cloud.RegionError)
// is left out and returned in skipped, for the caller to report: nothing there can be reached
// through this Keystone any more, by anyone. Any other failure is returned.
func Bind(ctx context.Context, regions []string, bind func(ctx context.Context, region string) (*cloud.Tenant, error),
) (ts []*cloud.Tenant, skipped []Unreachable, err error) {
	for _, region := range regions {
		t, err := bind(ctx, region)

		var gone *cloud.RegionError

		switch {
		case errors.As(err, &gone):
			skipped = append(skipped, Unreachable{Region: region, Err: err})

			continue
		case err != nil:
			return nil, nil, fmt.Errorf("region %s: %w", region, err)
		}

		ts = append(ts, t)
	}

	return ts, skipped, nil
}
