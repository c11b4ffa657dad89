package flavor

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
)

// Flavor is a Nova flavor enriched by its Override.
type Flavor struct {
	ID   string
	Name string
	// Architecture is x86_64 or aarch64 (x86_64 unless overridden).
	Architecture string
	// CPUs is the override's CPU count, else Nova's vcpus.
	CPUs      int
	CPUFamily string
	// MemoryGiB is the override's memory, else Nova's RAM (MiB) / 1024.
	// Dividing an integer by a power of two is exact in binary floating
	// point, so 2048 MiB is exactly 2 and 1536 MiB exactly 1.5: no rounding
	// ever happens, and whole GiB stay whole.
	MemoryGiB float64
	// DiskGB is Nova's root disk size in GB (0 means "size of the image").
	DiskGB     int
	Baremetal  bool
	PinnedOnly bool
	// GPU is nil for a flavor without GPUs.
	GPU *GPU
	// ExtraSpecs are Nova's extra specs, never nil.
	ExtraSpecs map[string]string
}

// GPUs is the number of GPUs the workload sees (the logical count), 0 without GPUs.
func (f Flavor) GPUs() int {
	if f.GPU == nil {
		return 0
	}

	return f.GPU.LogicalCount
}

// List returns Nova's public flavors with their extra specs, restricted to
// allow when allow is not empty, enriched by overrides and sorted by name
// (then ID).
//
// One paginated GET /flavors/detail?is_public=true does the work: the compute
// client runs at microversion 2.88, and from 2.61 on Nova embeds extra_specs
// in the flavor list, so there is no request per flavor. Only when a flavor
// comes back without the extra_specs key (a client below 2.61) are its specs
// fetched one by one; a 403 there (policy hides extra specs) stops the
// fallback and leaves the specs empty. Nova returns flavors the project has
// been given access to even with is_public=true, so private flavors are also
// dropped client-side.
//
// An allowed ID that Nova does not return, and an override for a flavor that
// is not listed, are ignored: the result is what the cloud offers.
func List(ctx context.Context, compute *gophercloud.ServiceClient, allow []string, overrides Overrides) ([]Flavor, error) {
	pages, err := flavors.ListDetail(compute, flavors.ListOpts{AccessType: flavors.PublicAccess}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Nova flavors: %w", err)
	}

	novaFlavors, err := flavors.ExtractFlavors(pages)
	if err != nil {
		return nil, fmt.Errorf("reading Nova flavors: %w", err)
	}

	result := make([]Flavor, 0, len(novaFlavors))
	specsForbidden := false

	for _, nf := range novaFlavors {
		if !nf.IsPublic || (len(allow) > 0 && !slices.Contains(allow, nf.ID)) {
			continue
		}

		if nf.ExtraSpecs == nil && !specsForbidden {
			specs, err := flavors.ListExtraSpecs(ctx, compute, nf.ID).Extract()

			switch {
			case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
				specsForbidden = true
			case err != nil:
				return nil, fmt.Errorf("listing extra specs of flavor %s (%s): %w", nf.Name, nf.ID, err)
			default:
				nf.ExtraSpecs = specs
			}
		}

		result = append(result, Enrich(nf, overrides))
	}

	SortByName(result)

	return result, nil
}

// Enrich turns a Nova flavor into a Flavor using its override, if any:
// override CPU count and memory replace Nova's, the architecture defaults to
// x86_64, and a GPU's logical count defaults to its physical count.
func Enrich(nf flavors.Flavor, overrides Overrides) Flavor {
	f := Flavor{
		ID:           nf.ID,
		Name:         nf.Name,
		Architecture: DefaultArchitecture,
		CPUs:         nf.VCPUs,
		MemoryGiB:    float64(nf.RAM) / 1024,
		DiskGB:       nf.Disk,
		ExtraSpecs:   maps.Clone(nf.ExtraSpecs),
	}

	if f.ExtraSpecs == nil {
		f.ExtraSpecs = map[string]string{}
	}

	o, ok := overrides[nf.ID]
	if !ok {
		return f
	}

	if o.CPU.Architecture != "" {
		f.Architecture = o.CPU.Architecture
	}

	if o.CPU.Count != nil {
		f.CPUs = *o.CPU.Count
	}

	f.CPUFamily = o.CPU.Family

	if o.MemoryGiB != nil {
		f.MemoryGiB = float64(*o.MemoryGiB)
	}

	f.Baremetal = o.Baremetal
	f.PinnedOnly = o.PinnedOnly

	if o.GPU != nil {
		gpu := *o.GPU
		if gpu.LogicalCount == 0 {
			gpu.LogicalCount = gpu.PhysicalCount
		}

		f.GPU = &gpu
	}

	return f
}

// SortByName sorts flavors by name, then ID, in place.
func SortByName(flavors []Flavor) {
	slices.SortFunc(flavors, func(a, b Flavor) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
}
