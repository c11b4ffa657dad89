// Package flavor lists Nova's public flavors and enriches them with what Nova
// does not know: CPU architecture and family, bare metal, pinning and GPUs.
// The enrichment comes from the provider configuration, keyed by flavor ID.
//
// This file and its siblings are the Terraform-free core; the data-source
// adapters map their schema models onto it.
package flavor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CPU architectures a flavor can be declared with.
const (
	ArchitectureX86_64  = "x86_64"
	ArchitectureAarch64 = "aarch64"
)

// DefaultArchitecture is assumed for a flavor without an override.
const DefaultArchitecture = ArchitectureX86_64

// GPU vendors a flavor can be declared with.
const (
	GPUVendorNVIDIA = "NVIDIA"
	GPUVendorAMD    = "AMD"
)

// Architectures lists the accepted CPU architectures, for schema validators.
func Architectures() []string {
	return []string{ArchitectureX86_64, ArchitectureAarch64}
}

// GPUVendors lists the accepted GPU vendors, for schema validators.
func GPUVendors() []string {
	return []string{GPUVendorNVIDIA, GPUVendorAMD}
}

// CPU is the operator's description of a flavor's processors.
type CPU struct {
	// Architecture is x86_64 or aarch64; empty means x86_64.
	Architecture string
	// Count, when set, replaces Nova's vCPU count (e.g. physical cores of a
	// bare-metal flavor whose Nova vcpus is a scheduling placeholder).
	Count *int
	// Family is free text, e.g. "AMD EPYC Genoa".
	Family string
}

// GPU describes the GPUs of a flavor.
type GPU struct {
	// Vendor is NVIDIA or AMD.
	Vendor string
	// Model is the vendor's model name, e.g. "H100".
	Model string
	// MemoryGiB is the memory of one GPU; 0 means unknown.
	MemoryGiB int
	// PhysicalCount is the number of GPU devices (cards) in the flavor.
	PhysicalCount int
	// LogicalCount is the number of GPUs the operating system sees (an AMD
	// MI250 card is two logical GPUs). In an Override, 0 means "same as
	// PhysicalCount"; in an enriched Flavor it is always set.
	LogicalCount int
}

// Override is the provider configuration for one flavor.
type Override struct {
	CPU CPU
	// MemoryGiB, when set, replaces Nova's RAM.
	MemoryGiB *int
	Baremetal bool
	// PinnedOnly: servers of the flavor must be pinned to a host (unikorn_server's host).
	PinnedOnly bool
	GPU        *GPU
}

// Overrides maps a Nova flavor ID to its override.
type Overrides map[string]Override

// OverrideError is one problem in an override. Field uses the provider's
// attribute names (cpu.architecture, memory_gib, gpu.vendor, ...) so that the
// adapter can turn it into an attribute diagnostic.
type OverrideError struct {
	FlavorID string
	Field    string
	Reason   string
}

func (e *OverrideError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("flavor %q: %s", e.FlavorID, e.Reason)
	}

	return fmt.Sprintf("flavor %q: %s: %s", e.FlavorID, e.Field, e.Reason)
}

// Validate returns every problem of every override (errors.Join of
// *OverrideError, in flavor ID order), or nil.
func (o Overrides) Validate() error {
	ids := make([]string, 0, len(o))
	for id := range o {
		ids = append(ids, id)
	}

	slices.Sort(ids)

	var errs []error

	for _, id := range ids {
		errs = append(errs, o[id].validate(id)...)
	}

	return errors.Join(errs...)
}

func (o Override) validate(id string) []error {
	var errs []error

	bad := func(field, format string, args ...any) {
		errs = append(errs, &OverrideError{FlavorID: id, Field: field, Reason: fmt.Sprintf(format, args...)})
	}

	if strings.TrimSpace(id) == "" {
		bad("id", "must not be empty")
	}

	if a := o.CPU.Architecture; a != "" && !slices.Contains(Architectures(), a) {
		bad("cpu.architecture", "%q is not one of %s", a, strings.Join(Architectures(), ", "))
	}

	if o.CPU.Count != nil && *o.CPU.Count < 1 {
		bad("cpu.count", "must be at least 1, got %d", *o.CPU.Count)
	}

	if o.MemoryGiB != nil && *o.MemoryGiB < 1 {
		bad("memory_gib", "must be at least 1, got %d", *o.MemoryGiB)
	}

	if g := o.GPU; g != nil {
		if !slices.Contains(GPUVendors(), g.Vendor) {
			bad("gpu.vendor", "%q is not one of %s", g.Vendor, strings.Join(GPUVendors(), ", "))
		}

		if strings.TrimSpace(g.Model) == "" {
			bad("gpu.model", "must not be empty")
		}

		if g.MemoryGiB < 0 {
			bad("gpu.memory_gib", "must not be negative, got %d", g.MemoryGiB)
		}

		if g.PhysicalCount < 1 {
			bad("gpu.physical_count", "must be at least 1, got %d", g.PhysicalCount)
		}

		if g.LogicalCount < 0 {
			bad("gpu.logical_count", "must not be negative, got %d", g.LogicalCount)
		}
	}

	return errs
}
