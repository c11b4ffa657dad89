package server

import (
	"fmt"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
)

// Image virtualization types (the image schema's unikorn:virtualization).
const (
	virtualizationBaremetal   = "baremetal"
	virtualizationVirtualized = "virtualized"
)

// Problem is a reason why a flavor and an image do not make a server, found before any call.
type Problem struct {
	// Attribute is the argument to point at: flavor_id or image_id.
	Attribute string
	Summary   string
	Detail    string
}

// Compatibility checks a flavor against an image, as Unikorn's region service does: the CPU
// architectures match, the flavor's root disk holds the image (a flavor disk of 0 means "the
// size of the image" and always does), a baremetal image needs a baremetal flavor and a
// virtualized image a flavor that is not. Image virtualization "any" or unset fits both.
func Compatibility(f flavor.Flavor, img image.Image) []Problem {
	var out []Problem

	flavorArch := image.NormalizeArchitecture(f.Architecture)
	imageArch := image.NormalizeArchitecture(img.Architecture)

	if flavorArch != imageArch {
		out = append(out, Problem{
			Attribute: "image_id",
			Summary:   "Image and flavor architectures differ",
			Detail: fmt.Sprintf("Image %s (%s) is built for %s, but flavor %s (%s) has %s CPUs.",
				img.Name, img.ID, imageArch, f.Name, f.ID, flavorArch),
		})
	}

	if f.DiskGB > 0 && img.SizeGiB > f.DiskGB {
		out = append(out, Problem{
			Attribute: "flavor_id",
			Summary:   "Flavor disk too small for the image",
			Detail: fmt.Sprintf("Flavor %s (%s) has a %d GB root disk, but image %s (%s) needs %d GiB.",
				f.Name, f.ID, f.DiskGB, img.Name, img.ID, img.SizeGiB),
		})
	}

	switch {
	case img.Virtualization == virtualizationBaremetal && !f.Baremetal:
		out = append(out, Problem{
			Attribute: "flavor_id",
			Summary:   "Baremetal image on a virtual flavor",
			Detail: fmt.Sprintf("Image %s (%s) is for baremetal servers only (unikorn:virtualization = baremetal), "+
				"but flavor %s (%s) is not a baremetal flavor (see the provider's flavors argument).",
				img.Name, img.ID, f.Name, f.ID),
		})
	case img.Virtualization == virtualizationVirtualized && f.Baremetal:
		out = append(out, Problem{
			Attribute: "flavor_id",
			Summary:   "Virtualized image on a baremetal flavor",
			Detail: fmt.Sprintf("Image %s (%s) is for virtual machines only (unikorn:virtualization = virtualized), "+
				"but flavor %s (%s) is a baremetal flavor.",
				img.Name, img.ID, f.Name, f.ID),
		})
	}

	return out
}
