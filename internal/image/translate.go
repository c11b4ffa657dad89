package image

import (
	"cmp"
	"crypto/ecdsa"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// Image statuses, translated from Glance's (see StatusOf).
const (
	StatusPending  = "pending"
	StatusCreating = "creating"
	StatusReady    = "ready"
	StatusFailed   = "failed"
)

// Statuses lists the translated statuses, for schema validators.
func Statuses() []string {
	return []string{StatusPending, StatusCreating, StatusReady, StatusFailed}
}

// CPU architectures, normalised (see NormalizeArchitecture).
const (
	ArchitectureX86_64  = "x86_64"
	ArchitectureAarch64 = "aarch64"
)

// OS describes an image's operating system.
type OS struct {
	Kernel   string
	Family   string
	Distro   string
	Version  string
	Variant  string
	Codename string
}

// GPU describes the GPU support baked into an image.
type GPU struct {
	Vendor        string
	Models        []string
	DriverVersion string
}

// Image is a Glance image translated into Unikorn's terms.
type Image struct {
	ID   string
	Name string
	OS   OS
	// Packages maps a package name to its version; never nil.
	Packages map[string]string
	// GPU is nil for an image without unikorn:gpu_vendor.
	GPU            *GPU
	Virtualization string
	Architecture   string
	// SizeGiB is Glance's min_disk when set, else the virtual size rounded
	// up to whole GiB, else 0 (unknown).
	SizeGiB int
	// Tags come from unikorn:tag:<key> properties; never nil.
	Tags           map[string]string
	OrganizationID string
	// IdentityID is the Unikorn identity a snapshot was taken in (unikorn:identity_id).
	IdentityID string
	Status     string
	CreatedAt  time.Time
}

// Rejected is an image left out by Classify, with the reason why.
type Rejected struct {
	ID     string
	Name   string
	Reason string
	// Image is the image translated as far as its properties allow (see
	// Translate), so that the filters of a data source can tell whether the
	// user would have wanted it.
	Image Image
}

// StatusOf translates a Glance status:
//
//	queued                                        → pending  (no data yet)
//	saving, uploading, importing                  → creating (data arriving)
//	active                                        → ready
//	killed, deleted, pending_delete, deactivated  → failed   (not bootable)
//
// An unknown status is "failed": it is not known to be bootable.
func StatusOf(s images.ImageStatus) string {
	switch s {
	case images.ImageStatusQueued:
		return StatusPending
	case images.ImageStatusSaving, images.ImageStatusUploading, images.ImageStatusImporting:
		return StatusCreating
	case images.ImageStatusActive:
		return StatusReady
	default:
		return StatusFailed
	}
}

// NormalizeArchitecture maps Glance's architecture property onto x86_64 or
// aarch64: "" / amd64 / x86-64 / x86_64 → x86_64, arm64 / aarch64 → aarch64
// (case-insensitive). Anything else is returned lower-cased, unchanged.
func NormalizeArchitecture(arch string) string {
	switch a := strings.ToLower(strings.TrimSpace(arch)); a {
	case "", "x86_64", "amd64", "x86-64":
		return ArchitectureX86_64
	case "aarch64", "arm64":
		return ArchitectureAarch64
	default:
		return a
	}
}

const gib = 1 << 30

// Translate turns a Glance image into an Image, as Unikorn's model of it (convertImage of
// uni-region's OpenStack provider, v1.16.7 and v1.19.0):
//
//   - the OS strings, unikorn:virtualization and unikorn:identity_id as they are;
//   - the architecture property when it is a non-empty string (as it is: "amd64" stays
//     "amd64"), else x86_64;
//   - every unikorn:package:<name> and unikorn:tag:<key> that is a string, under <name> and
//     <key>; the legacy unikorn:kubernetes_version, when it is a string, fills kubernetes when
//     unikorn:package:kubernetes is absent;
//   - the GPU when unikorn:gpu_vendor is set, its models split at commas;
//   - the organization when unikorn:organization:id is a non-empty string;
//   - the size: Glance's min_disk when set, else the virtual size rounded up to whole GiB.
//
// It does not validate: call Validate first (Classify does); properties that are missing or
// not strings translate to empty values. Only for images the schema refuses (translated so that
// a data source can tell whether the user would have wanted them) does it differ from Unikorn,
// which never lists those: white space around GPU models is trimmed and empty models dropped.
func Translate(img images.Image) Image {
	props := img.Properties
	get := func(key string) string {
		s, _ := props[key].(string)

		return s
	}

	out := Image{
		ID:   img.ID,
		Name: img.Name,
		OS: OS{
			Kernel:   get(PropertyOSKernel),
			Family:   get(PropertyOSFamily),
			Distro:   get(PropertyOSDistro),
			Version:  get(PropertyOSVersion),
			Variant:  get(PropertyOSVariant),
			Codename: get(PropertyOSCodename),
		},
		Packages:       map[string]string{},
		Virtualization: get(PropertyVirtualization),
		Architecture:   cmp.Or(get(PropertyArchitecture), ArchitectureX86_64),
		SizeGiB:        img.MinDiskGigabytes,
		Tags:           map[string]string{},
		OrganizationID: get(PropertyOrganizationID),
		IdentityID:     get(PropertyIdentityID),
		Status:         StatusOf(img.Status),
		CreatedAt:      img.CreatedAt,
	}

	if out.SizeGiB <= 0 && img.VirtualSize > 0 {
		out.SizeGiB = int(img.VirtualSize / gib)
		if img.VirtualSize%gib != 0 {
			out.SizeGiB++
		}
	}

	for key, raw := range props {
		value, ok := raw.(string)
		if !ok {
			continue
		}

		if name, ok := strings.CutPrefix(key, PropertyPackagePrefix); ok {
			out.Packages[name] = value
		}

		if name, ok := strings.CutPrefix(key, PropertyTagPrefix); ok {
			out.Tags[name] = value
		}
	}

	if _, ok := out.Packages["kubernetes"]; !ok {
		if v, ok := props[PropertyLegacyKubernetesVersion].(string); ok {
			out.Packages["kubernetes"] = v
		}
	}

	if vendor := get(PropertyGPUVendor); vendor != "" {
		gpu := &GPU{Vendor: vendor, Models: []string{}, DriverVersion: get(PropertyGPUDriverVersion)}

		for m := range strings.SplitSeq(get(PropertyGPUModels), ",") {
			if m = strings.TrimSpace(m); m != "" {
				gpu.Models = append(gpu.Models, m)
			}
		}

		out.GPU = gpu
	}

	return out
}

// Classify checks every image against the schema and, when key is not nil,
// its signature (images with unikorn:organization:id are exempt), and
// translates the good ones. Accepted images are sorted oldest → newest
// (CreatedAt, then name, then ID); rejected ones by name, then ID. A
// rejection reason is one line: "schema: <problems; ...>" or
// "signature: <problem>".
func Classify(imgs []images.Image, key *ecdsa.PublicKey) (accepted []Image, rejected []Rejected) {
	for _, img := range imgs {
		if err := Validate(img.Properties); err != nil {
			rejected = append(rejected, Rejected{ID: img.ID, Name: img.Name, Reason: "schema: " + oneLine(err), Image: Translate(img)})

			continue
		}

		translated := Translate(img)

		if key != nil && translated.OrganizationID == "" {
			digest, _ := img.Properties[PropertyDigest].(string)

			if err := VerifySignature(key, img.ID, digest); err != nil {
				rejected = append(rejected, Rejected{ID: img.ID, Name: img.Name, Reason: "signature: " + err.Error(), Image: translated})

				continue
			}
		}

		accepted = append(accepted, translated)
	}

	SortOldestFirst(accepted)

	return accepted, sortRejected(rejected)
}

// sortRejected sorts rejected images by name, then ID, in place.
func sortRejected(rejected []Rejected) []Rejected {
	slices.SortFunc(rejected, func(a, b Rejected) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})

	return rejected
}

// SortOldestFirst sorts images oldest → newest (CreatedAt, then name, then ID), in place.
func SortOldestFirst(imgs []Image) {
	slices.SortFunc(imgs, compareAge)
}

func compareAge(a, b Image) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
}

// oneLine flattens an errors.Join into "a; b; c".
func oneLine(err error) string {
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		return err.Error()
	}

	parts := make([]string, 0, len(joined.Unwrap()))
	for _, e := range joined.Unwrap() {
		parts = append(parts, e.Error())
	}

	return strings.Join(parts, "; ")
}
