package image

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Filter selects images. Empty fields do not filter; string fields compare
// exactly, except as noted.
type Filter struct {
	OSDistro  string
	OSVersion string
	// GPUVendor and GPUModel: the image must have GPU support from that
	// vendor / for that model (one of its models).
	GPUVendor string
	GPUModel  string
	// Virtualization is where the image must be able to run: an image with
	// virtualization "any" runs both virtualized and on bare metal, so it
	// matches "virtualized" and "baremetal" as well as "any"; an image with
	// "virtualized" or "baremetal" matches only that value.
	Virtualization string
	// Architecture compares exactly with the image's (Translate: Glance's property, x86_64
	// when unset or empty), as in Unikorn: an image whose property says amd64 is not x86_64.
	Architecture string
	Status       string
	// Package is a package name optionally followed by a semver constraint
	// (see ParsePackageConstraint): "kubernetes", "kubernetes >= 1.30".
	Package string
	// Tags must all be present on the image with the same values; the
	// image may have more.
	Tags map[string]string
	Name string
}

var packageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// ParsePackageConstraint splits "kubernetes >= 1.30" into the package name
// and a Masterminds semver constraint. The name runs up to the first space
// or operator character (= ! < > ~ ^), so "kubernetes>=1.30" works too;
// what follows is the constraint (commas for "and", || for "or"). A bare
// name gives a nil constraint: the package only has to be present.
func ParsePackageConstraint(s string) (name string, c *semver.Constraints, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil, errors.New("empty package constraint: expected a package name, optionally followed by a version constraint such as \"kubernetes >= 1.30\"")
	}

	end := strings.IndexAny(s, " \t=!<>~^")
	if end < 0 {
		end = len(s)
	}

	name, rest := s[:end], strings.TrimSpace(s[end:])

	if name == "" {
		return "", nil, fmt.Errorf("package constraint %q: missing the package name before the version constraint, e.g. \"kubernetes >= 1.30\"", s)
	}

	if !packageName.MatchString(name) {
		return "", nil, fmt.Errorf("package constraint %q: invalid package name %q", s, name)
	}

	if rest == "" {
		return name, nil, nil
	}

	c, err = semver.NewConstraint(rest)
	if err != nil {
		return "", nil, fmt.Errorf("package constraint %q: invalid version constraint %q: %w", s, rest, err)
	}

	return name, c, nil
}

// Match reports whether the image satisfies every set field of the filter.
// The error is ParsePackageConstraint's for a bad Package.
//
// For Package, the image's version of the package is parsed leniently as a
// semantic version ("v1.29.3", "1.29"); an image whose version does not parse
// does not match a constraint. As with Masterminds semver, a constraint
// without a pre-release part does not match pre-release versions.
func (f Filter) Match(img Image) (bool, error) {
	if !f.matchFacts(img) {
		return false, nil
	}

	if f.Package == "" {
		return true, nil
	}

	name, constraint, err := ParsePackageConstraint(f.Package)
	if err != nil {
		return false, err
	}

	version, ok := img.Packages[name]
	if !ok {
		return false, nil
	}

	if constraint == nil {
		return true, nil
	}

	// An image version that does not parse does not satisfy any constraint.
	if v, parseErr := semver.NewVersion(version); parseErr == nil {
		return constraint.Check(v), nil
	}

	return false, nil
}

func (f Filter) matchFacts(img Image) bool {
	switch {
	case f.Name != "" && img.Name != f.Name,
		f.OSDistro != "" && img.OS.Distro != f.OSDistro,
		f.OSVersion != "" && img.OS.Version != f.OSVersion,
		f.GPUVendor != "" && (img.GPU == nil || img.GPU.Vendor != f.GPUVendor),
		f.GPUModel != "" && (img.GPU == nil || !slices.Contains(img.GPU.Models, f.GPUModel)),
		f.Virtualization != "" && !virtualizationMatches(img.Virtualization, f.Virtualization),
		f.Architecture != "" && img.Architecture != f.Architecture,
		f.Status != "" && img.Status != f.Status:
		return false
	}

	for k, v := range f.Tags {
		if got, ok := img.Tags[k]; !ok || got != v {
			return false
		}
	}

	return true
}

func virtualizationMatches(image, wanted string) bool {
	return image == wanted || (image == VirtualizationAny && wanted != "")
}

// Select returns the images that match the filter, in their input order.
func Select(imgs []Image, f Filter) ([]Image, error) {
	var out []Image

	for _, img := range imgs {
		ok, err := f.Match(img)
		if err != nil {
			return nil, err
		}

		if ok {
			out = append(out, img)
		}
	}

	return out, nil
}

// MostRecent returns the newest image (latest CreatedAt; on a tie, the last
// in SortOldestFirst order, i.e. the greatest name, then ID), or the zero
// Image for an empty list.
func MostRecent(imgs []Image) Image {
	var newest Image

	for i, img := range imgs {
		if i == 0 || compareAge(img, newest) > 0 {
			newest = img
		}
	}

	return newest
}

// label names img in a list of images: "name (id)".
func label(img Image) string { return fmt.Sprintf("%s (%s)", img.Name, img.ID) }

// SelectRejected returns the rejected images whose translation (as far as
// their properties allow) matches the filter, in their input order: the
// images a user asking with these filters would have got, had they been
// valid and signed.
func SelectRejected(rejected []Rejected, f Filter) ([]Rejected, error) {
	var out []Rejected

	for _, r := range rejected {
		ok, err := f.Match(r.Image)
		if err != nil {
			return nil, err
		}

		if ok {
			out = append(out, r)
		}
	}

	return out, nil
}
