package network

import (
	"slices"
	"strings"
	"testing"
)

func TestFreeVLANs(t *testing.T) {
	t.Parallel()

	used := map[int]bool{100: true, 102: true, 300: true}
	got := freeVLANs([]VLANRange{{Start: 300, End: 301}, {Start: 100, End: 103}}, used)

	if want := []int{101, 103, 301}; !slices.Equal(got, want) {
		t.Fatalf("free = %v, want %v (ascending)", got, want)
	}

	if n := inRanges([]VLANRange{{Start: 100, End: 103}}, used); n != 2 {
		t.Fatalf("in ranges = %d", n)
	}
}

func TestCheckVLANRanges(t *testing.T) {
	t.Parallel()

	if err := checkVLANRanges([]VLANRange{{1, 10}, {11, 4094}}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		ranges []VLANRange
		want   string
	}{
		{nil, "at least one"},
		{[]VLANRange{{10, 1}}, "start is after end"},
		{[]VLANRange{{0, 10}}, "1 to 4094"},
		{[]VLANRange{{1, 4095}}, "1 to 4094"},
		{[]VLANRange{{1, 10}, {10, 20}}, "overlap"},
	} {
		if err := checkVLANRanges(tt.ranges); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.ranges, err, tt.want)
		}
	}
}
