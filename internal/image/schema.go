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

	// PropertyIdentityID names the Unikorn identity whose server a snapshot was taken of
	// (Unikorn v1.13.0+ writes it on its snapshots).
	PropertyIdentityID = "unikorn:identity_id"

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

// The patterns of Unikorn's schema, in Go's RE2 syntax as Unikorn's validator compiles them
// (\d and \w are ASCII; $ is the end of the text).
var (
	// packageVersion is the pattern of unikorn:package:kubernetes and unikorn:package:slurmd.
	packageVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	// gpuModels is the pattern of unikorn:gpu_models: names of letters, digits and
	// underscores, joined by commas.
	gpuModels = regexp.MustCompile(`^\w+(,\w+)*$`)
)

// patternPackages are the packages whose version the schema constrains.
var patternPackages = []string{"kubernetes", "slurmd"}

// PropertyError is one schema violation of one property.
type PropertyError struct {
	Property string
	// Reason completes "property <name> ...", e.g. "is required".
	Reason string
}

func (e *PropertyError) Error() string {
	return fmt.Sprintf("property %q %s", e.Property, e.Reason)
}

// Validate checks image properties (Glance's additional properties, as in gophercloud's
// images.Image.Properties) against Unikorn's image property schema and returns every
// violation (errors.Join of *PropertyError: the required keys in schema order first, then the
// GPU dependencies, then the other keys in key order), or nil.
//
// The schema is uni-region's v2.image.schema.json as of v1.16.4 (unchanged through v1.19.0),
// which Unikorn applies to every image it lists; Validate accepts and refuses exactly what it
// does:
//
//   - required, present (whatever the value) and strings: unikorn:os:kernel ("linux"),
//     unikorn:os:family, unikorn:os:distro, unikorn:os:version (any string, empty too) and
//     unikorn:virtualization ("any", "baremetal", "virtualized");
//   - strings when present: unikorn:os:variant, unikorn:os:codename, unikorn:digest,
//     unikorn:gpu_driver_version (any string), unikorn:gpu_vendor ("AMD", "NVIDIA"),
//     unikorn:gpu_models (^\w+(,\w+)*$: "H100,A100", not "H100-SXM5" or "A100, H100"),
//     unikorn:package:kubernetes and unikorn:package:slurmd (^v\d+\.\d+\.\d+$), and every
//     unikorn:tag:<key> (any string);
//   - unikorn:gpu_vendor present requires unikorn:gpu_models and unikorn:gpu_driver_version
//     present;
//   - nothing else: the schema allows additional properties, so other packages, the legacy
//     unikorn:kubernetes_version, unikorn:organization:id and every other key are not checked.
//
// Older generations: the schema of v1.12.0–v1.16.3 also limited unikorn:os:family to debian
// or redhat and unikorn:os:distro to ubuntu or rocky (and before v1.14.0 did not constrain
// tags, which Glance keeps as strings anyway), so every image those accept passes here too.
// v1.10.0–v1.11.x did not constrain the kubernetes and slurmd versions: an image of theirs with
// a version without "v" is refused here, as Unikorn v1.12.0 and later refuse it.
func Validate(props map[string]any) error {
	v := propertyChecker{props: props}

	v.enum(PropertyOSKernel, true, []string{KernelLinux})
	v.str(PropertyOSFamily, true)
	v.str(PropertyOSDistro, true)
	v.str(PropertyOSVersion, true)
	v.enum(PropertyVirtualization, true, Virtualizations())

	if _, ok := props[PropertyGPUVendor]; ok {
		for _, dep := range []string{PropertyGPUModels, PropertyGPUDriverVersion} {
			if _, ok := props[dep]; !ok {
				v.fail(dep, "is required when %q is set", PropertyGPUVendor)
			}
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

// str returns the property as a string; ok is false (and a violation is recorded) when it is
// absent and required, or present but not a string.
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

func (v *propertyChecker) enum(key string, required bool, allowed []string) {
	if s, ok := v.str(key, required); ok && !slices.Contains(allowed, s) {
		v.fail(key, "is %q, must be one of %s", s, strings.Join(allowed, ", "))
	}
}

func (v *propertyChecker) pattern(key string, re *regexp.Regexp, want string) {
	if s, ok := v.str(key, false); ok && !re.MatchString(s) {
		v.fail(key, "is %q, must be %s", s, want)
	}
}

// optional checks one key of the schema that is not a required one; other keys are not
// checked.
func (v *propertyChecker) optional(key string) {
	switch {
	case key == PropertyOSKernel, key == PropertyOSFamily, key == PropertyOSDistro,
		key == PropertyOSVersion, key == PropertyVirtualization:
		// Checked as required.
	case key == PropertyOSVariant, key == PropertyOSCodename, key == PropertyDigest, key == PropertyGPUDriverVersion,
		strings.HasPrefix(key, PropertyTagPrefix):
		v.str(key, false)
	case key == PropertyGPUVendor:
		v.enum(key, false, GPUVendors())
	case key == PropertyGPUModels:
		v.pattern(key, gpuModels, "GPU model names of letters, digits and underscores joined by commas, "+
			"without spaces (e.g. H100,A100)")
	case strings.HasPrefix(key, PropertyPackagePrefix) && slices.Contains(patternPackages, strings.TrimPrefix(key, PropertyPackagePrefix)):
		v.pattern(key, packageVersion, "a version vX.Y.Z")
	}
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
