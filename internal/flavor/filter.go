package flavor

import (
	"cmp"
	"fmt"
	"slices"
)

// Filter selects flavors. Zero-valued fields do not filter.
type Filter struct {
	// Architecture must equal the flavor's architecture.
	Architecture string
	// Baremetal, when set, must equal the flavor's Baremetal.
	Baremetal *bool
	// GPUVendor and GPUModel must equal the flavor's GPU vendor and model;
	// a flavor without GPUs matches neither.
	GPUVendor string
	GPUModel  string
	// MinCPUs is the lowest acceptable CPU count.
	MinCPUs *int
	// MinMemoryGiB is the lowest acceptable memory.
	MinMemoryGiB *float64
	// MinGPUs is the lowest acceptable number of GPUs, counted as the
	// workload sees them (Flavor.GPUs: logical count, 0 without GPUs).
	MinGPUs *int
	// Name must equal the flavor's name exactly.
	Name string
}

// Match reports whether the flavor satisfies every set field of the filter.
func (f Filter) Match(fl Flavor) bool {
	switch {
	case f.Name != "" && fl.Name != f.Name,
		f.Architecture != "" && fl.Architecture != f.Architecture,
		f.Baremetal != nil && fl.Baremetal != *f.Baremetal,
		f.GPUVendor != "" && (fl.GPU == nil || fl.GPU.Vendor != f.GPUVendor),
		f.GPUModel != "" && (fl.GPU == nil || fl.GPU.Model != f.GPUModel),
		f.MinCPUs != nil && fl.CPUs < *f.MinCPUs,
		f.MinMemoryGiB != nil && fl.MemoryGiB < *f.MinMemoryGiB,
		f.MinGPUs != nil && fl.GPUs() < *f.MinGPUs:
		return false
	}

	return true
}

// CompareCost orders flavors from cheapest to most expensive: fewer GPUs
// (Flavor.GPUs) first, then fewer CPUs, then less memory, then less disk,
// then virtual before bare metal, then by name and finally ID so that the
// order is total and stable.
func CompareCost(a, b Flavor) int {
	return cmp.Or(
		cmp.Compare(a.GPUs(), b.GPUs()),
		cmp.Compare(a.CPUs, b.CPUs),
		cmp.Compare(a.MemoryGiB, b.MemoryGiB),
		cmp.Compare(a.DiskGB, b.DiskGB),
		compareBool(a.Baremetal, b.Baremetal),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.ID, b.ID),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

// Smallest returns the cheapest flavor by CompareCost ("the cheapest that
// fits" once the list has been filtered), or the zero Flavor for an empty list.
func Smallest(flavors []Flavor) Flavor {
	if len(flavors) == 0 {
		return Flavor{}
	}

	return slices.MinFunc(flavors, CompareCost)
}

// label names f in a list of flavors: "name (id)".
func label(f Flavor) string { return fmt.Sprintf("%s (%s)", f.Name, f.ID) }
