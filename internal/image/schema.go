// Package image lists Glance images, checks them against the Unikorn image
// property schema and signing key, translates them into OS / package / GPU
// facts and filters them (DESIGN.md §7).
//
// This file and its siblings are the Terraform-free core; the data-source
// adapters map their schema models onto it.
package image

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Glance image properties of the Unikorn schema.
const (
	PropertyOSKernel         = "unikorn:os:kernel"
	PropertyOSFamily         = "unikorn:os:family"
	PropertyOSDistro         = "unikorn:os:distro"
	PropertyOSVersion        = "unikorn:os:version"
	PropertyOSVariant        = "unikorn:os:variant"
	PropertyOSCodename       = "unikorn:os:codename"
	PropertyVirtualization   = "unikorn:virtualization"
	PropertyPackagePrefix    = "unikorn:package:"
	PropertyGPUVendor        = "unikorn:gpu_vendor"
	PropertyGPUModels        = "unikorn:gpu_models"
	PropertyGPUDriverVersion = "unikorn:gpu_driver_version"
	PropertyTagPrefix        = "unikorn:tag:"
	PropertyDigest           = "unikorn:digest"
	PropertyOrganizationID   = "unikorn:organization:id"

	// PropertyLegacyKubernetesVersion is the pre-package key for the
	// Kubernetes version, read when unikorn:package:kubernetes is absent.
	PropertyLegacyKubernetesVersion = "unikorn:kubernetes_version"

	// PropertyArchitecture is Glance's own (non-Unikorn) CPU architecture property.
	PropertyArchitecture = "architecture"
)

// Values of unikorn:os:kernel.
const KernelLinux = "linux"

// Values of unikorn:virtualization.
const (
	VirtualizationAny         = "any"
	VirtualizationBaremetal   = "baremetal"
	VirtualizationVirtualized = "virtualized"
)

// Values of unikorn:gpu_vendor.
const (
	GPUVendorAMD    = "AMD"
	GPUVendorNVIDIA = "NVIDIA"
)

// Virtualizations lists the values of unikorn:virtualization, for schema validators.
func Virtualizations() []string {
	return []string{VirtualizationAny, VirtualizationBaremetal, VirtualizationVirtualized}
}

// GPUVendors lists the values of unikorn:gpu_vendor, for schema validators.
func GPUVendors() []string {
	return []string{GPUVendorAMD, GPUVendorNVIDIA}
}

// strictVersionPackages must carry versions of the form vX.Y.Z.
var strictVersionPackages = []string{"kubernetes", "slurmd"}

var strictVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// PropertyError is one schema violation of one property.
type PropertyError struct {
	Property string
	// Reason completes "property <name> ...", e.g. "is required".
	Reason string
}

func (e *PropertyError) Error() string {
	return fmt.Sprintf("property %q %s", e.Property, e.Reason)
}

// Validate checks image properties (Glance's additional properties, as in
// gophercloud's images.Image.Properties) against the Unikorn schema and
// returns every violation (errors.Join of *PropertyError: required keys in
// schema order first, then the other keys in key order), or nil.
//
// Required: unikorn:os:kernel (linux), unikorn:os:family, unikorn:os:distro,
// unikorn:os:version (non-empty) and unikorn:virtualization (any, baremetal,
// virtualized). Optional: unikorn:os:variant, unikorn:os:codename,
// unikorn:package:<name> (non-empty; kubernetes and slurmd as vX.Y.Z),
// unikorn:gpu_vendor (AMD, NVIDIA; requires unikorn:gpu_models, a comma
// separated list of non-empty models, and a non-empty
// unikorn:gpu_driver_version), unikorn:tag:<key>, unikorn:digest,
// unikorn:organization:id (non-empty) and the legacy
// unikorn:kubernetes_version (vX.Y.Z, checked only when it is the one in
// use). Every Unikorn value must be a string. Unknown unikorn:* keys and
// non-Unikorn properties are allowed and not checked.
func Validate(props map[string]any) error {
	v := propertyChecker{props: props}

	v.requireEnum(PropertyOSKernel, []string{KernelLinux})
	v.requireNonEmpty(PropertyOSFamily)
	v.requireNonEmpty(PropertyOSDistro)
	v.requireNonEmpty(PropertyOSVersion)
	v.requireEnum(PropertyVirtualization, Virtualizations())

	if _, ok := props[PropertyGPUVendor]; ok {
		if _, ok := props[PropertyGPUModels]; !ok {
			v.fail(PropertyGPUModels, "is required when %q is set", PropertyGPUVendor)
		}

		if _, ok := props[PropertyGPUDriverVersion]; !ok {
			v.fail(PropertyGPUDriverVersion, "is required when %q is set", PropertyGPUVendor)
		}
	}

	for _, key := range slices.Sorted(maps.Keys(props)) {
		v.optional(key)
	}

	return errors.Join(v.errs...)
}

type propertyChecker struct {
	props map[string]any
	errs  []error
}

func (v *propertyChecker) fail(property, format string, args ...any) {
	v.errs = append(v.errs, &PropertyError{Property: property, Reason: fmt.Sprintf(format, args...)})
}

// str returns the property as a string; ok is false (and a violation is
// recorded) when it is absent and required, or present but not a string.
func (v *propertyChecker) str(key string, required bool) (string, bool) {
	raw, present := v.props[key]
	if !present {
		if required {
			v.fail(key, "is required")
		}

		return "", false
	}

	s, isString := raw.(string)
	if !isString {
		v.fail(key, "must be a string, got %s", jsonType(raw))

		return "", false
	}

	return s, true
}

func (v *propertyChecker) requireNonEmpty(key string) {
	if s, ok := v.str(key, true); ok && strings.TrimSpace(s) == "" {
		v.fail(key, "must not be empty")
	}
}

func (v *propertyChecker) requireEnum(key string, allowed []string) {
	if s, ok := v.str(key, true); ok && !slices.Contains(allowed, s) {
		v.fail(key, "is %q, must be one of %s", s, strings.Join(allowed, ", "))
	}
}

// optional checks one key that is not a required one.
func (v *propertyChecker) optional(key string) {
	switch {
	case key == PropertyOSKernel, key == PropertyOSFamily, key == PropertyOSDistro,
		key == PropertyOSVersion, key == PropertyVirtualization:
		// Checked as required.
	case key == PropertyOSVariant, key == PropertyOSCodename, key == PropertyDigest:
		v.str(key, false)
	case key == PropertyOrganizationID, key == PropertyGPUDriverVersion:
		if s, ok := v.str(key, false); ok && strings.TrimSpace(s) == "" {
			v.fail(key, "must not be empty")
		}
	case key == PropertyGPUVendor:
		if s, ok := v.str(key, false); ok && !slices.Contains(GPUVendors(), s) {
			v.fail(key, "is %q, must be one of %s", s, strings.Join(GPUVendors(), ", "))
		}
	case key == PropertyGPUModels:
		if s, ok := v.str(key, false); ok && !validModelList(s) {
			v.fail(key, "is %q, must be a comma-separated list of GPU models", s)
		}
	case key == PropertyLegacyKubernetesVersion:
		if _, replaced := v.props[PropertyPackagePrefix+"kubernetes"]; replaced {
			return
		}

		if s, ok := v.str(key, false); ok && !strictVersion.MatchString(s) {
			v.fail(key, "is %q, must be a version vX.Y.Z", s)
		}
	case strings.HasPrefix(key, PropertyPackagePrefix):
		v.pkg(key, strings.TrimPrefix(key, PropertyPackagePrefix))
	case strings.HasPrefix(key, PropertyTagPrefix):
		if strings.TrimPrefix(key, PropertyTagPrefix) == "" {
			v.fail(key, "has an empty tag name")
		}

		v.str(key, false)
	}
}

func (v *propertyChecker) pkg(key, name string) {
	if name == "" {
		v.fail(key, "has an empty package name")
	}

	s, ok := v.str(key, false)

	switch {
	case !ok:
	case slices.Contains(strictVersionPackages, name) && !strictVersion.MatchString(s):
		v.fail(key, "is %q, must be a version vX.Y.Z", s)
	case strings.TrimSpace(s) == "":
		v.fail(key, "must not be empty")
	}
}

// validModelList accepts "H100" and "H100,A100" (spaces around commas are
// tolerated), not "", "H100," or ",".
func validModelList(s string) bool {
	for m := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(m) == "" {
			return false
		}
	}

	return true
}

// jsonType names the JSON type of a decoded value, for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}
