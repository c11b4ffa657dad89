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

// Compatibility checks a flavor against an image, as Nova and Unikorn's region service do:
// Nova boots only an active image, on a flavor with at least the image's min_ram; the CPU
// architectures match, the flavor's root disk holds the image (its min_disk, else its size; a
// flavor disk of 0 means "the size of the image" and always does), a baremetal image needs a
// baremetal flavor and a virtualized image a flavor that is not. Image virtualization "any" or
// unset fits both.
func Compatibility(f flavor.Facts, img image.Facts) []Problem {
	flavorArch := image.NormalizeArchitecture(f.Architecture)
	imageArch := image.NormalizeArchitecture(img.Architecture)
	theImage := fmt.Sprintf("image %s (%s)", img.Name, img.ID)
	theFlavor := fmt.Sprintf("flavor %s (%s)", f.Name, f.ID)

	rules := []struct {
		broken                     bool
		attribute, summary, detail string
	}{
		{
			!img.Active(), "image_id", "Image not active",
			fmt.Sprintf("The %s is %s in Glance; Nova boots only active images.", theImage, img.GlanceStatus),
		},
		{
			img.MinRAMMiB > 0 && f.RAMMiB < img.MinRAMMiB, "flavor_id", "Flavor memory too small for the image",
			fmt.Sprintf("The %s has %d MiB of RAM, but %s needs at least %d MiB (its min_ram).", theFlavor, f.RAMMiB, theImage, img.MinRAMMiB),
		},
		{
			flavorArch != imageArch, "image_id", "Image and flavor architectures differ",
			fmt.Sprintf("The %s is built for %s, but %s has %s CPUs.", theImage, imageArch, theFlavor, flavorArch),
		},
		{
			f.DiskGB > 0 && img.SizeGiB > f.DiskGB, "flavor_id", "Flavor disk too small for the image",
			fmt.Sprintf("The %s has a %d GB root disk, but %s needs %d GiB.", theFlavor, f.DiskGB, theImage, img.SizeGiB),
		},
		{
			img.Virtualization == virtualizationBaremetal && !f.Baremetal, "flavor_id", "Baremetal image on a virtual flavor",
			fmt.Sprintf("The %s is for baremetal servers only (unikorn:virtualization = baremetal), but %s is not a "+
				"baremetal flavor (see the provider's flavors argument).", theImage, theFlavor),
		},
		{
			img.Virtualization == virtualizationVirtualized && f.Baremetal, "flavor_id", "Virtualized image on a baremetal flavor",
			fmt.Sprintf("The %s is for virtual machines only (unikorn:virtualization = virtualized), but %s is a "+
				"baremetal flavor.", theImage, theFlavor),
		},
	}

	var out []Problem

	for _, r := range rules {
		if r.broken {
			out = append(out, Problem{Attribute: r.attribute, Summary: r.summary, Detail: r.detail})
		}
	}

	return out
}
