package acctest

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imageimport"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// UnikornImageSpec is an image as Unikorn's image API imports it for an organization
// (POST .../organizations/{organizationID}/regions/{regionID}/images), in the request's terms.
type UnikornImageSpec struct {
	// Region is where the image is made ("" = the default region).
	Region string
	// Name is the image's name (metadata.name).
	Name string
	// SourceURL is spec.uri, which Glance's web-download fetches.
	SourceURL string
	// OrganizationID is the organization of the request's path.
	OrganizationID string
	// Kernel, Family, Distro, Version, Variant and Codename are spec.os ("" variant or
	// codename: not given).
	Kernel, Family, Distro, Version, Variant, Codename string
	// Architecture is spec.architecture: "x86_64" or "aarch64".
	Architecture string
	// Virtualization is spec.virtualization: "any", "baremetal" or "virtualized".
	Virtualization string
	// Packages is spec.softwareVersions.
	Packages map[string]string
	// GPUVendor, GPUModels and GPUDriver are spec.gpu (no vendor: no GPU).
	GPUVendor, GPUDriver string
	GPUModels            []string
	// Tags are metadata.tags.
	Tags map[string]string
}

// CreateUnikornImage makes the image of spec step by step as Unikorn's region service does
// (uni-region v1.19.0; the same since v1.14.0, when the provenance tags came), in the service
// user's own project (Unikorn's region-project credentials: the region service user scoped to
// the region's own project), waits until it is active and registers its deletion with
// t.Cleanup. It never calls internal/naming or internal/image: the strings are Unikorn's.
func CreateUnikornImage(t *testing.T, spec UnikornImageSpec) images.Image {
	t.Helper()

	ctx := t.Context()
	client := AdminGlance(t, spec.Region)

	// pkg/handler/image/image.go:CreateImage (with conversions.go:GenerateTags): the request's
	// tags, then the handler's own provenance tags, which win a collision.
	tags := maps.Clone(spec.Tags)
	if tags == nil {
		tags = map[string]string{}
	}

	tags["images.unikorn-cloud.org:source"] = "import"
	tags["images.unikorn-cloud.org:organization-id"] = spec.OrganizationID

	// pkg/providers/internal/openstack/provider.go:createImageMetadata: every property a string.
	props := map[string]string{
		"unikorn:os:kernel":  spec.Kernel,
		"unikorn:os:family":  spec.Family,
		"unikorn:os:distro":  spec.Distro,
		"unikorn:os:version": spec.Version,
	}

	if spec.Variant != "" {
		props["unikorn:os:variant"] = spec.Variant
	}

	if spec.Codename != "" {
		props["unikorn:os:codename"] = spec.Codename
	}

	for k, v := range tags {
		props["unikorn:tag:"+k] = v
	}

	for name, version := range spec.Packages {
		props["unikorn:package:"+name] = version
	}

	if spec.GPUVendor != "" {
		props["unikorn:gpu_vendor"] = spec.GPUVendor
		props["unikorn:gpu_models"] = strings.Join(spec.GPUModels, ",")
		props["unikorn:gpu_driver_version"] = spec.GPUDriver
	}

	props["architecture"] = spec.Architecture
	props["unikorn:virtualization"] = spec.Virtualization
	props["unikorn:organization:id"] = spec.OrganizationID
	props["hw_disk_bus"] = "scsi"
	props["hw_firmware_type"] = "uefi"
	props["hw_scsi_model"] = "virtio-scsi"

	switch spec.Architecture {
	case "x86_64":
		props["hw_machine_type"] = "q35"
	case "aarch64":
		props["hw_machine_type"] = "virt"
	}

	// pkg/providers/internal/openstack/provider.go:CreateImage: public, bare, raw, nothing else.
	public := images.ImageVisibilityPublic

	img, err := images.Create(ctx, client, images.CreateOpts{
		Name: spec.Name, Visibility: &public, ContainerFormat: "bare", DiskFormat: "raw", Properties: props,
	}).Extract()
	if err != nil {
		t.Fatalf("creating Unikorn's image %s: %v", spec.Name, err)
	}

	deleteOnCleanup(t, "image", spec.Name, img.ID, func(ctx context.Context) error {
		return images.Delete(ctx, client, img.ID).ExtractErr()
	})

	// pkg/providers/internal/openstack/image.go:Import: Glance's web-download from the URI.
	err = imageimport.Create(ctx, client, img.ID, imageimport.CreateOpts{Name: imageimport.WebDownloadMethod, URI: spec.SourceURL}).ExtractErr()
	if err != nil {
		t.Fatalf("importing Unikorn's image %s (%s): %v", spec.Name, img.ID, err)
	}

	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	active, err := cloud.Poll(waitCtx, cloud.PollSpec{
		Pending: []string{"queued", "importing", "saving", "uploading"}, Target: []string{"active"},
	}, func(ctx context.Context) (*images.Image, string, string, error) {
		got, err := images.Get(ctx, client, img.ID).Extract()
		if err != nil {
			return nil, "", "", err
		}

		// Glance clears its import bookkeeping right after the image turns active: wait for
		// that too, so that the image is not written to after it is returned.
		if stores, _ := got.Properties["os_glance_importing_to_stores"].(string); stores != "" {
			return got, "importing", "", nil
		}

		return got, string(got.Status), "", nil
	})
	if err != nil {
		t.Fatalf("waiting for Unikorn's image %s (%s) to be active: %v", spec.Name, img.ID, err)
	}

	return *active
}
