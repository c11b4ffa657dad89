package cloud

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestInEveryRegion: an object given by ID without a region is looked for in the default region
// first, then in every other served region in the configured order; found once is where it is,
// found nowhere says where it looked, found twice names both regions, and any other failure stops
// the search.
func TestInEveryRegion(t *testing.T) {
	t.Parallel()

	c := &Client{defaultRegion: "RegionTwo", regions: []string{"RegionOne", "RegionTwo", "RegionThree"}}

	if got, want := c.SearchOrder(), []string{"RegionTwo", "RegionOne", "RegionThree"}; !slices.Equal(got, want) {
		t.Fatalf("SearchOrder() = %v, want %v", got, want)
	}

	boom := errors.New("boom")

	for _, tc := range []struct {
		name       string
		in         map[string]error // the answer of each region; absent: not there
		wantRegion string
		wantAsked  []string
		wantErr    string
		notLocated bool
	}{
		{name: "in the default region", in: map[string]error{"RegionTwo": nil},
			wantRegion: "RegionTwo", wantAsked: []string{"RegionTwo", "RegionOne", "RegionThree"}},
		{name: "in another region", in: map[string]error{"RegionThree": nil},
			wantRegion: "RegionThree", wantAsked: []string{"RegionTwo", "RegionOne", "RegionThree"}},
		{name: "nowhere", in: map[string]error{}, wantAsked: []string{"RegionTwo", "RegionOne", "RegionThree"},
			wantErr: `no network with ID "x" in any served region (RegionTwo, RegionOne, RegionThree)`, notLocated: true},
		{name: "in two regions", in: map[string]error{"RegionOne": nil, "RegionThree": nil},
			wantAsked: []string{"RegionTwo", "RegionOne", "RegionThree"},
			wantErr:   `a network with ID "x" exists in several regions (RegionOne, RegionThree): give the region`},
		{name: "a failure stops the search", in: map[string]error{"RegionOne": boom},
			wantAsked: []string{"RegionTwo", "RegionOne"}, wantErr: "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var asked []string

			got, region, err := InEveryRegion(context.Background(), c, "network", "x", func(_ context.Context, r string) (string, error) {
				asked = append(asked, r)

				if err, ok := tc.in[r]; ok {
					return "found in " + r, err
				}

				return "", NotLocated("network", "x", r)
			})

			if !slices.Equal(asked, tc.wantAsked) {
				t.Errorf("asked %v, want %v", asked, tc.wantAsked)
			}

			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || errors.Is(err, ErrNotLocated) != tc.notLocated {
					t.Fatalf("err = %v, want %q (not located: %v)", err, tc.wantErr, tc.notLocated)
				}

				return
			}

			if err != nil || region != tc.wantRegion || got != fmt.Sprint("found in ", tc.wantRegion) {
				t.Fatalf("= %q, %q, %v; want found in %s", got, region, err, tc.wantRegion)
			}
		})
	}
}

func TestNotLocated(t *testing.T) {
	t.Parallel()

	err := fmt.Errorf("wrapped: %w", NotLocated("volume", "v", "RegionOne"))
	if !errors.Is(err, ErrNotLocated) || err.Error() != `wrapped: no volume with ID or name "v" in region RegionOne` {
		t.Fatalf("err = %v", err)
	}
}
