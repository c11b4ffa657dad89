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
	// Attribute is the argument to point at: flavor_id, image_id, root_volume, ...
	Attribute string
	Summary   string
	Detail    string
}

// RootDisk is where a server's root disk is, for the checks: the flavor's local disk, or a
// volume made from the image (root_volume) of SizeGB (0: not known yet).
type RootDisk struct {
	FromVolume bool
	SizeGB     int
}

// Compatibility checks a flavor against an image, as Nova and Unikorn's region service do:
// Nova boots only an active image, on a flavor with at least the image's min_ram; the CPU
// architectures match, the root disk holds the image (its min_disk, else its size): the
// flavor's, or the root volume's when the server boots from one; a baremetal image needs a
// baremetal flavor and a virtualized image a flavor that is not. Image virtualization "any" or
// unset fits both. A flavor without a disk (0) boots a virtual server only from a volume: Nova
// refuses an image boot on it to anyone but an admin (compute:servers:create:zero_disk_flavor).
func Compatibility(f flavor.Facts, img image.Facts, root RootDisk) []Problem {
	flavorArch := image.NormalizeArchitecture(f.Architecture)
	imageArch := image.NormalizeArchitecture(img.Architecture)
	theImage := fmt.Sprintf("image %s (%s)", img.Name, img.ID)
	theFlavor := fmt.Sprintf("flavor %s (%s)", f.Name, f.ID)
	onFlavor := !root.FromVolume

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
			onFlavor && f.DiskGB > 0 && img.SizeGiB > f.DiskGB, "flavor_id", "Flavor disk too small for the image",
			fmt.Sprintf("The %s has a %d GB root disk, but %s needs %d GiB.", theFlavor, f.DiskGB, theImage, img.SizeGiB),
		},
		{
			onFlavor && f.DiskGB == 0 && !f.Baremetal, "root_volume", "Flavor has no disk: boot from a volume",
			fmt.Sprintf("The %s has no root disk (disk 0): a server boots on it only from a volume, since Nova refuses to "+
				"boot an image on such a flavor to anyone but an admin (policy compute:servers:create:zero_disk_flavor). "+
				"Set root_volume (its size_gb must hold %s, %d GiB).", theFlavor, theImage, img.SizeGiB),
		},
		{
			root.FromVolume && root.SizeGB > 0 && img.SizeGiB > root.SizeGB, "root_volume", "Root volume too small for the image",
			fmt.Sprintf("root_volume.size_gb is %d GiB, but %s needs %d GiB.", root.SizeGB, theImage, img.SizeGiB),
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
