package image_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"maps"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// Rejection reasons as the data sources report them.
const (
	reasonUnsigned = `signature: image is not signed: property "unikorn:digest" is missing or empty`
	reasonBadSig   = `signature: invalid image signature: property "unikorn:digest" is not a signature of the image ID by the configured signing key`
	reasonSchema   = `schema: property "unikorn:os:kernel" is "windows", must be one of linux; ` +
		`property "unikorn:virtualization" is required; ` +
		`property "unikorn:package:kubernetes" is "1.30", must be a version vX.Y.Z`
)

// testImages are the images one test uploads, all tagged unikorn:tag:acctest=<prefix> so
// that the data sources (filtering on that tag) see only them.
type testImages struct {
	prefix, org, keyPEM string
	region, otherRegion string

	ubuntu, gpu, unsigned, tampered, wrongKey, invalid, org1, legacy, pending, otherZone images.Image
}

func baseProperties(tag string, extra map[string]string) map[string]string {
	props := map[string]string{
		"unikorn:os:kernel":      "linux",
		"unikorn:os:family":      "debian",
		"unikorn:os:distro":      "ubuntu",
		"unikorn:os:version":     "24.04",
		"unikorn:virtualization": "any",
		"unikorn:tag:acctest":    tag,
	}
	maps.Copy(props, extra)

	return props
}

// createTestImages uploads, in this order (which is also the order of their names, so
// that images created within the same second still sort oldest → newest): a signed Ubuntu
// image with Kubernetes, a signed aarch64 bare-metal GPU image, an unsigned image, one
// whose signature is of another ID, one signed with another key, one that breaks the
// schema, a private organization image, a signed image with the legacy Kubernetes key, a
// signed image without data (pending), and a signed image in the second region.
func createTestImages(t *testing.T) testImages {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return testImages{}
	}

	acctest.PreCheck(t)

	regions := acctest.Regions()
	if len(regions) < 2 {
		t.Fatalf("the image tests need two regions, UNIKORN_REGIONS has %v", regions)
	}

	key, keyPEM := acctest.NewSigningKey(t, elliptic.P521())
	otherKey, _ := acctest.NewSigningKey(t, elliptic.P256())

	prefix := acctest.RandomName()
	ti := testImages{prefix: prefix, org: "org-" + prefix, keyPEM: keyPEM, region: regions[0], otherRegion: regions[1]}

	props := func(extra map[string]string) map[string]string { return baseProperties(prefix, extra) }

	ti.ubuntu = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-1-ubuntu", SignWith: key, MinDiskGiB: 3,
		Properties: props(map[string]string{
			"unikorn:os:variant":           "server",
			"unikorn:os:codename":          "noble",
			"unikorn:package:kubernetes":   "v1.31.2",
			"unikorn:package:containerd":   "1.7.12",
			"unikorn:tag:role":             "worker",
			"unikorn:some-future-property": "ignored",
		}),
	})
	ti.gpu = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-2-gpu", SignWith: key,
		Properties: props(map[string]string{
			"unikorn:os:version":         "22.04",
			"unikorn:virtualization":     "baremetal",
			"unikorn:gpu_vendor":         "NVIDIA",
			"unikorn:gpu_models":         "H100, A100",
			"unikorn:gpu_driver_version": "550.54.15",
			"architecture":               "arm64",
		}),
	})
	ti.unsigned = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-3-unsigned", Properties: props(nil)})
	ti.tampered = acctest.CreateImage(t, acctest.ImageSpec{
		Name:       prefix + "-4-tampered",
		Properties: props(map[string]string{"unikorn:digest": acctest.SignImageID(t, key, ti.ubuntu.ID)}),
	})
	ti.wrongKey = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-5-wrong-key", SignWith: otherKey, Properties: props(nil)})
	invalid := props(map[string]string{"unikorn:os:kernel": "windows", "unikorn:package:kubernetes": "1.30"})
	delete(invalid, "unikorn:virtualization")
	ti.invalid = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-6-invalid", SignWith: key, Properties: invalid})
	ti.org1 = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-7-org", Visibility: images.ImageVisibilityPrivate,
		Properties: props(map[string]string{
			"unikorn:organization:id": ti.org,
			"unikorn:os:family":       "redhat",
			"unikorn:os:distro":       "rocky",
			"unikorn:os:version":      "9",
		}),
	})
	ti.legacy = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-8-legacy", SignWith: key,
		Properties: props(map[string]string{
			"unikorn:os:family":          "redhat",
			"unikorn:os:distro":          "rocky",
			"unikorn:os:version":         "9",
			"unikorn:virtualization":     "virtualized",
			"unikorn:kubernetes_version": "v1.29.5",
		}),
	})
	ti.pending = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-9-pending", SignWith: key, NoData: true, Properties: props(nil)})
	ti.otherZone = acctest.CreateImage(t, acctest.ImageSpec{
		Region: ti.otherRegion, Name: prefix + "-region-two", SignWith: key, Properties: props(nil),
	})

	return ti
}

func (ti testImages) providerConfig() string {
	return fmt.Sprintf(`
provider "unikorn" {
  image_signing_key = %[1]q
}
`, ti.keyPEM)
}

// sizeGiB is what the data sources report as size_gib for img.
func sizeGiB(img images.Image) int64 {
	if img.MinDiskGigabytes > 0 {
		return int64(img.MinDiskGigabytes)
	}

	const gib = 1 << 30

	return (img.VirtualSize + gib - 1) / gib
}

func createdAt(img images.Image) knownvalue.Check {
	return knownvalue.StringExact(img.CreatedAt.UTC().Format(time.RFC3339))
}

func (ti testImages) ubuntuValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture":    knownvalue.StringExact("x86_64"),
		"created_at":      createdAt(ti.ubuntu),
		"gpu":             knownvalue.Null(),
		"id":              knownvalue.StringExact(ti.ubuntu.ID),
		"name":            knownvalue.StringExact(ti.prefix + "-1-ubuntu"),
		"organization_id": knownvalue.Null(),
		"os": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"codename": knownvalue.StringExact("noble"),
			"distro":   knownvalue.StringExact("ubuntu"),
			"family":   knownvalue.StringExact("debian"),
			"kernel":   knownvalue.StringExact("linux"),
			"variant":  knownvalue.StringExact("server"),
			"version":  knownvalue.StringExact("24.04"),
		}),
		"packages": knownvalue.MapExact(map[string]knownvalue.Check{
			"containerd": knownvalue.StringExact("1.7.12"),
			"kubernetes": knownvalue.StringExact("v1.31.2"),
		}),
		"size_gib": knownvalue.Int64Exact(3),
		"status":   knownvalue.StringExact("ready"),
		"tags": knownvalue.MapExact(map[string]knownvalue.Check{
			"acctest": knownvalue.StringExact(ti.prefix),
			"role":    knownvalue.StringExact("worker"),
		}),
		"virtualization": knownvalue.StringExact("any"),
	})
}

func (ti testImages) gpuValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture": knownvalue.StringExact("aarch64"),
		"created_at":   createdAt(ti.gpu),
		"gpu": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"driver_version": knownvalue.StringExact("550.54.15"),
			"models":         knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("H100"), knownvalue.StringExact("A100")}),
			"vendor":         knownvalue.StringExact("NVIDIA"),
		}),
		"id":              knownvalue.StringExact(ti.gpu.ID),
		"name":            knownvalue.StringExact(ti.prefix + "-2-gpu"),
		"organization_id": knownvalue.Null(),
		"os": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"codename": knownvalue.Null(),
			"distro":   knownvalue.StringExact("ubuntu"),
			"family":   knownvalue.StringExact("debian"),
			"kernel":   knownvalue.StringExact("linux"),
			"variant":  knownvalue.Null(),
			"version":  knownvalue.StringExact("22.04"),
		}),
		"packages":       knownvalue.MapExact(map[string]knownvalue.Check{}),
		"size_gib":       knownvalue.Int64Exact(sizeGiB(ti.gpu)),
		"status":         knownvalue.StringExact("ready"),
		"tags":           knownvalue.MapExact(map[string]knownvalue.Check{"acctest": knownvalue.StringExact(ti.prefix)}),
		"virtualization": knownvalue.StringExact("baremetal"),
	})
}

func (ti testImages) orgValue() knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture":    knownvalue.StringExact("x86_64"),
		"created_at":      createdAt(ti.org1),
		"gpu":             knownvalue.Null(),
		"id":              knownvalue.StringExact(ti.org1.ID),
		"name":            knownvalue.StringExact(ti.prefix + "-7-org"),
		"organization_id": knownvalue.StringExact(ti.org),
		"os": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"codename": knownvalue.Null(),
			"distro":   knownvalue.StringExact("rocky"),
			"family":   knownvalue.StringExact("redhat"),
			"kernel":   knownvalue.StringExact("linux"),
			"variant":  knownvalue.Null(),
			"version":  knownvalue.StringExact("9"),
		}),
		"packages":       knownvalue.MapExact(map[string]knownvalue.Check{}),
		"size_gib":       knownvalue.Int64Exact(sizeGiB(ti.org1)),
		"status":         knownvalue.StringExact("ready"),
		"tags":           knownvalue.MapExact(map[string]knownvalue.Check{"acctest": knownvalue.StringExact(ti.prefix)}),
		"virtualization": knownvalue.StringExact("any"),
	})
}

func (ti testImages) legacyValue() knownvalue.Check {
	return knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"id":             knownvalue.StringExact(ti.legacy.ID),
		"packages":       knownvalue.MapExact(map[string]knownvalue.Check{"kubernetes": knownvalue.StringExact("v1.29.5")}),
		"status":         knownvalue.StringExact("ready"),
		"virtualization": knownvalue.StringExact("virtualized"),
	})
}

func (ti testImages) pendingValue() knownvalue.Check {
	return knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"id":       knownvalue.StringExact(ti.pending.ID),
		"size_gib": knownvalue.Int64Exact(0),
		"status":   knownvalue.StringExact("pending"),
	})
}

func idOnly(img images.Image) knownvalue.Check {
	return knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(img.ID)})
}

func rejected(img images.Image, reason string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"id":     knownvalue.StringExact(img.ID),
		"name":   knownvalue.StringExact(img.Name),
		"reason": knownvalue.StringExact(reason),
	})
}

func list(checks ...knownvalue.Check) knownvalue.Check {
	return knownvalue.ListExact(checks)
}

func expect(address, attribute string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New(attribute), want)
}

// TestAccImagesDataSource_signed checks, with a signing key, which images are accepted and
// which are rejected and why, the translation of every property, and every filter.
func TestAccImagesDataSource_signed(t *testing.T) {
	ti := createTestImages(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: ti.providerConfig() + fmt.Sprintf(`
locals {
  mine = { acctest = %[1]q }
}

data "unikorn_images" "all" {
  tags = local.mine
}

data "unikorn_images" "org" {
  tags            = local.mine
  organization_id = %[2]q
}

data "unikorn_images" "other_org" {
  tags            = local.mine
  organization_id = "other-%[2]s"
}

data "unikorn_images" "kubernetes_130" {
  tags    = local.mine
  package = "kubernetes >= 1.30"
}

data "unikorn_images" "kubernetes_any" {
  tags    = local.mine
  package = "kubernetes"
}

data "unikorn_images" "kubernetes_129" {
  tags    = local.mine
  package = "kubernetes~1.29.0"
}

data "unikorn_images" "gpu" {
  tags       = local.mine
  gpu_vendor = "NVIDIA"
  gpu_model  = "A100"
}

data "unikorn_images" "amd" {
  tags       = local.mine
  gpu_vendor = "AMD"
}

data "unikorn_images" "baremetal" {
  tags           = local.mine
  virtualization = "baremetal"
}

data "unikorn_images" "virtualized" {
  tags           = local.mine
  virtualization = "virtualized"
}

data "unikorn_images" "aarch64" {
  tags         = local.mine
  architecture = "aarch64"
}

data "unikorn_images" "rocky" {
  tags       = local.mine
  os_distro  = "rocky"
  os_version = "9"
}

data "unikorn_images" "pending" {
  tags   = local.mine
  status = "pending"
}

data "unikorn_images" "worker" {
  tags = merge(local.mine, { role = "worker" })
}

data "unikorn_images" "by_name" {
  tags = local.mine
  name = %[3]q
}

data "unikorn_images" "other_region" {
  tags   = local.mine
  region = %[4]q
}
`, ti.prefix, ti.org, ti.unsigned.Name, ti.otherRegion),
				ConfigStateChecks: []statecheck.StateCheck{
					expect("data.unikorn_images.all", "images",
						list(ti.ubuntuValue(), ti.gpuValue(), ti.legacyValue(), ti.pendingValue())),
					expect("data.unikorn_images.all", "rejected", list(
						rejected(ti.unsigned, reasonUnsigned),
						rejected(ti.tampered, reasonBadSig),
						rejected(ti.wrongKey, reasonBadSig),
						rejected(ti.invalid, reasonSchema),
					)),
					expect("data.unikorn_images.all", "region", knownvalue.StringExact(ti.region)),
					// Organization images are exempt from the signature check.
					expect("data.unikorn_images.org", "images",
						list(idOnly(ti.ubuntu), idOnly(ti.gpu), ti.orgValue(), idOnly(ti.legacy), idOnly(ti.pending))),
					expect("data.unikorn_images.org", "rejected", knownvalue.ListSizeExact(4)),
					expect("data.unikorn_images.other_org", "images",
						list(idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.legacy), idOnly(ti.pending))),
					// The invalid image's "1.30" reads as 1.30.0: it would have matched.
					expect("data.unikorn_images.kubernetes_130", "images", list(idOnly(ti.ubuntu))),
					expect("data.unikorn_images.kubernetes_130", "rejected", list(rejected(ti.invalid, reasonSchema))),
					expect("data.unikorn_images.kubernetes_any", "images", list(idOnly(ti.ubuntu), idOnly(ti.legacy))),
					expect("data.unikorn_images.kubernetes_129", "images", list(idOnly(ti.legacy))),
					expect("data.unikorn_images.gpu", "images", list(ti.gpuValue())),
					expect("data.unikorn_images.gpu", "rejected", list()),
					expect("data.unikorn_images.amd", "images", list()),
					// "any" runs on bare metal too; the invalid image has no virtualization.
					expect("data.unikorn_images.baremetal", "images", list(idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.pending))),
					expect("data.unikorn_images.baremetal", "rejected", list(
						rejected(ti.unsigned, reasonUnsigned),
						rejected(ti.tampered, reasonBadSig),
						rejected(ti.wrongKey, reasonBadSig),
					)),
					expect("data.unikorn_images.virtualized", "images", list(idOnly(ti.ubuntu), idOnly(ti.legacy), idOnly(ti.pending))),
					expect("data.unikorn_images.aarch64", "images", list(idOnly(ti.gpu))),
					expect("data.unikorn_images.aarch64", "rejected", list()),
					expect("data.unikorn_images.rocky", "images", list(idOnly(ti.legacy))),
					expect("data.unikorn_images.pending", "images", list(ti.pendingValue())),
					expect("data.unikorn_images.worker", "images", list(ti.ubuntuValue())),
					expect("data.unikorn_images.worker", "rejected", list()),
					expect("data.unikorn_images.by_name", "images", list()),
					expect("data.unikorn_images.by_name", "rejected", list(rejected(ti.unsigned, reasonUnsigned))),
					expect("data.unikorn_images.other_region", "images", list(idOnly(ti.otherZone))),
					expect("data.unikorn_images.other_region", "region", knownvalue.StringExact(ti.otherRegion)),
				},
			},
		},
	})
}

// TestAccImagesDataSource_unsigned: without a signing key only the schema counts.
func TestAccImagesDataSource_unsigned(t *testing.T) {
	ti := createTestImages(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
data "unikorn_images" "all" {
  tags = { acctest = %[1]q }
}
`, ti.prefix),
				ConfigStateChecks: []statecheck.StateCheck{
					expect("data.unikorn_images.all", "images", list(
						idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.unsigned), idOnly(ti.tampered), idOnly(ti.wrongKey),
						idOnly(ti.legacy), idOnly(ti.pending),
					)),
					expect("data.unikorn_images.all", "rejected", list(rejected(ti.invalid, reasonSchema))),
				},
			},
		},
	})
}

// TestAccImageDataSource_exactlyOne finds one image, the newest with most_recent, and fails
// with the matches listed, or with the rejected images named, otherwise.
func TestAccImageDataSource_exactlyOne(t *testing.T) {
	ti := createTestImages(t)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: ti.providerConfig() + fmt.Sprintf(`
data "unikorn_image" "gpu" {
  tags       = { acctest = %[1]q }
  gpu_vendor = "NVIDIA"
}

data "unikorn_image" "ubuntu" {
  tags    = { acctest = %[1]q }
  package = "kubernetes >= 1.31, < 1.32"
}

data "unikorn_image" "newest" {
  tags        = { acctest = %[1]q }
  most_recent = true
}

data "unikorn_image" "newest_ready" {
  tags        = { acctest = %[1]q }
  status      = "ready"
  most_recent = true
}

data "unikorn_image" "org" {
  tags            = { acctest = %[1]q }
  organization_id = %[2]q
  os_distro       = "rocky"
  most_recent     = true
}
`, ti.prefix, ti.org),
				ConfigStateChecks: []statecheck.StateCheck{
					expect("data.unikorn_image.gpu", "id", knownvalue.StringExact(ti.gpu.ID)),
					expect("data.unikorn_image.gpu", "image", ti.gpuValue()),
					expect("data.unikorn_image.gpu", "rejected", list()),
					expect("data.unikorn_image.ubuntu", "image", ti.ubuntuValue()),
					expect("data.unikorn_image.ubuntu", "rejected", list()),
					expect("data.unikorn_image.newest", "id", knownvalue.StringExact(ti.pending.ID)),
					expect("data.unikorn_image.newest_ready", "id", knownvalue.StringExact(ti.legacy.ID)),
					expect("data.unikorn_image.org", "id", knownvalue.StringExact(ti.legacy.ID)),
					expect("data.unikorn_image.org", "region", knownvalue.StringExact(ti.region)),
				},
			},
			{
				Config: ti.providerConfig() + fmt.Sprintf(`
data "unikorn_image" "ambiguous" {
  tags   = { acctest = %[1]q }
  status = "ready"
}
`, ti.prefix),
				ExpectError: regexp.MustCompile(`(?s)Several images found.*but 3 match the filters:.*` +
					regexp.QuoteMeta(ti.ubuntu.Name+" ("+ti.ubuntu.ID+")") + `.*` +
					regexp.QuoteMeta(ti.gpu.Name+" ("+ti.gpu.ID+")") + `.*` +
					regexp.QuoteMeta(ti.legacy.Name+" ("+ti.legacy.ID+")") + `.*most_recent = true`),
			},
			{
				Config: ti.providerConfig() + fmt.Sprintf(`
data "unikorn_image" "unsigned" {
  tags = { acctest = %[1]q }
  name = %[2]q
}
`, ti.prefix, ti.unsigned.Name),
				ExpectError: regexp.MustCompile(`(?s)No image found.*` + regexp.QuoteMeta(ti.unsigned.ID) + `.*image is not\s+signed`),
			},
		},
	})
}

// TestAccImagesProvider_invalidSettings: a signing key that is not ECDSA or does not parse,
// and a bad package constraint, are plan-time errors.
func TestAccImagesProvider_invalidSettings(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}

	der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}

	rsaPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))

	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	privDER, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}

	privatePEM := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: privDER}))

	keyConfig := func(key string) string {
		return fmt.Sprintf(`
provider "unikorn" {
  image_signing_key = %[1]q
}

data "unikorn_images" "all" {}
`, key)
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      keyConfig(rsaPEM),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid image signing key.*RSA key, an ECDSA key is required`),
			},
			{
				Config:      keyConfig(privatePEM),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid image signing key.*"EC PRIVATE KEY", expected "PUBLIC KEY"`),
			},
			{
				Config:      keyConfig("not a key"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid image signing key.*no PEM block found`),
			},
			{
				Config: `
data "unikorn_images" "all" {
  package = ">= 1.30"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid package constraint.*missing the package name`),
			},
			{
				Config: `
data "unikorn_image" "one" {
  package = "kubernetes >= one"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid package constraint.*invalid version constraint`),
			},
			{
				Config: `
data "unikorn_images" "all" {
  virtualization = "container"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)virtualization.*value must be one of`),
			},
		},
	})
}
