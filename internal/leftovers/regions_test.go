package leftovers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Issue 26, item 11: destroy looks in the served regions and in every region recorded on the
// project; an apply records the served regions it lacks.
func TestRegions(t *testing.T) {
	t.Parallel()

	// As Keystone answers it (a JSON list), as a create sends it ([]string), or missing.
	recorded := map[string]any{RegionsKey: []any{"RegionTwo", "RegionOne", "", 7}}

	if got := Recorded(recorded); !slices.Equal(got, []string{"RegionOne", "RegionTwo"}) {
		t.Errorf("Recorded = %v", got)
	}

	if got := Regions([]string{"RegionThree", "RegionOne"}, recorded); !slices.Equal(got, []string{"RegionThree", "RegionOne", "RegionTwo"}) {
		t.Errorf("Regions = %v, want the served ones, then the recorded ones no longer served", got)
	}

	if got := Regions([]string{"RegionOne"}, nil); !slices.Equal(got, []string{"RegionOne"}) {
		t.Errorf("Regions of a project with no record = %v", got)
	}

	if got := RecordExtra([]string{"RegionOne"}, recorded); got != nil {
		t.Errorf("RecordExtra = %v, want nothing to write: RegionOne is recorded", got)
	}

	got := RecordExtra([]string{"RegionThree"}, map[string]any{RegionsKey: []string{"RegionOne"}})
	if regions, _ := got[RegionsKey].([]string); !slices.Equal(regions, []string{"RegionOne", "RegionThree"}) {
		t.Errorf("RecordExtra = %v, want the union: a record never shrinks", got)
	}
}

func TestBindPassesOverRegionsTheCatalogLacks(t *testing.T) {
	t.Parallel()

	gone := &cloud.RegionError{Region: "RegionGone", Known: []string{"RegionOne"}}

	ts, skipped, err := Bind(context.Background(), []string{"RegionOne", "RegionGone"},
		func(_ context.Context, region string) (*cloud.Tenant, error) {
			if region == "RegionGone" {
				return nil, gone
			}

			return cloud.NewTenant(nil, "p-1", region), nil
		})
	if err != nil || len(ts) != 1 || ts[0].Region() != "RegionOne" || len(skipped) != 1 || skipped[0].Region != "RegionGone" {
		t.Fatalf("Bind = %v, %+v, %v; want RegionOne bound and RegionGone passed over", ts, skipped, err)
	}

	boom := errors.New("boom")
	if _, _, err := Bind(context.Background(), []string{"RegionOne"}, func(context.Context, string) (*cloud.Tenant, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Bind: %v, want any other failure returned", err)
	}
}
