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
// signed image without data (pending), and a signed image in the second region. It is the
// first thing a test does: without TF_ACC it uploads nothing (the test's steps are validated,
// then its PreCheck skips it); with it, a cloud of one region skips the test
// (acctest.SecondRegion).
func createTestImages(t *testing.T) testImages {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return testImages{}
	}

	acctest.PreCheck(t)

	region, otherRegion := acctest.FirstRegion(), acctest.SecondRegion(t)

	key, keyPEM := acctest.NewSigningKey(t, elliptic.P521())
	otherKey, _ := acctest.NewSigningKey(t, elliptic.P256())

	prefix := acctest.RandomName()
	ti := testImages{prefix: prefix, org: "org-" + prefix, keyPEM: keyPEM, region: region, otherRegion: otherRegion}

	props := func(extra ...map[string]string) map[string]string {
		all := map[string]string{}
		for _, e := range extra {
			maps.Copy(all, e)
		}

		return baseProperties(prefix, all)
	}
	rocky9 := map[string]string{"unikorn:os:family": "redhat", "unikorn:os:distro": "rocky", "unikorn:os:version": "9"}

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
			"unikorn:gpu_models":         "H100,A100",
			"unikorn:gpu_driver_version": "550.54.15",
			"architecture":               "aarch64",
		}),
	})
	ti.unsigned = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-3-unsigned", Properties: props()})
	ti.tampered = acctest.CreateImage(t, acctest.ImageSpec{
		Name:       prefix + "-4-tampered",
		Properties: props(map[string]string{"unikorn:digest": acctest.SignImageID(t, key, ti.ubuntu.ID)}),
	})
	ti.wrongKey = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-5-wrong-key", SignWith: otherKey, Properties: props()})
	invalid := props(map[string]string{"unikorn:os:kernel": "windows", "unikorn:package:kubernetes": "1.30"})
	delete(invalid, "unikorn:virtualization")
	ti.invalid = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-6-invalid", SignWith: key, Properties: invalid})
	ti.org1 = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-7-org", Visibility: images.ImageVisibilityPrivate,
		Properties: props(rocky9, map[string]string{"unikorn:organization:id": ti.org}),
	})
	ti.legacy = acctest.CreateImage(t, acctest.ImageSpec{
		Name: prefix + "-8-legacy", SignWith: key,
		Properties: props(rocky9, map[string]string{"unikorn:virtualization": "virtualized", "unikorn:kubernetes_version": "v1.29.5"}),
	})
	ti.pending = acctest.CreateImage(t, acctest.ImageSpec{Name: prefix + "-9-pending", SignWith: key, NoData: true, Properties: props()})
	ti.otherZone = acctest.CreateImage(t, acctest.ImageSpec{
		Region: ti.otherRegion, Name: prefix + "-region-two", SignWith: key, Properties: props(),
	})

	return ti
}

// locals is local.mine, the tag of the test's images.
func (ti testImages) locals() string {
	return fmt.Sprintf("locals {\n  mine = { acctest = %q }\n}\n", ti.prefix)
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

// wantImage is what an image data source reports for one image of the test.
type wantImage struct {
	img                                images.Image
	name, architecture, virtualization string
	organizationID                     string            // "": null
	family, distro, version            string            // os
	codename, variant                  string            // os, "": null
	packages, tags                     map[string]string // exact
	gpuVendor, gpuDriver               string            // "": no GPU
	gpuModels                          []string
	sizeGiB                            int64
}

func stringMap(m map[string]string) knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	for k, v := range m {
		checks[k] = knownvalue.StringExact(v)
	}

	return knownvalue.MapExact(checks)
}

func orNull(s string) knownvalue.Check {
	if s == "" {
		return knownvalue.Null()
	}

	return knownvalue.StringExact(s)
}

func (w wantImage) check() knownvalue.Check {
	var gpu knownvalue.Check = knownvalue.Null()

	if w.gpuVendor != "" {
		models := make([]knownvalue.Check, len(w.gpuModels))
		for i, m := range w.gpuModels {
			models[i] = knownvalue.StringExact(m)
		}

		gpu = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"driver_version": knownvalue.StringExact(w.gpuDriver),
			"models":         knownvalue.ListExact(models),
			"vendor":         knownvalue.StringExact(w.gpuVendor),
		})
	}

	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"architecture":    knownvalue.StringExact(w.architecture),
		"created_at":      createdAt(w.img),
		"gpu":             gpu,
		"id":              knownvalue.StringExact(w.img.ID),
		"identity_id":     knownvalue.Null(),
		"name":            knownvalue.StringExact(w.name),
		"organization_id": orNull(w.organizationID),
		"os": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"codename": orNull(w.codename),
			"distro":   knownvalue.StringExact(w.distro),
			"family":   knownvalue.StringExact(w.family),
			"kernel":   knownvalue.StringExact("linux"),
			"variant":  orNull(w.variant),
			"version":  knownvalue.StringExact(w.version),
		}),
		"packages":       stringMap(w.packages),
		"size_gib":       knownvalue.Int64Exact(w.sizeGiB),
		"status":         knownvalue.StringExact("ready"),
		"tags":           stringMap(w.tags),
		"virtualization": knownvalue.StringExact(w.virtualization),
	})
}

func (ti testImages) ubuntuValue() knownvalue.Check {
	return wantImage{
		img: ti.ubuntu, name: ti.prefix + "-1-ubuntu", architecture: "x86_64", virtualization: "any",
		family: "debian", distro: "ubuntu", version: "24.04", codename: "noble", variant: "server",
		packages: map[string]string{"containerd": "1.7.12", "kubernetes": "v1.31.2"},
		tags:     map[string]string{"acctest": ti.prefix, "role": "worker"},
		sizeGiB:  3,
	}.check()
}

func (ti testImages) gpuValue() knownvalue.Check {
	return wantImage{
		img: ti.gpu, name: ti.prefix + "-2-gpu", architecture: "aarch64", virtualization: "baremetal",
		family: "debian", distro: "ubuntu", version: "22.04",
		tags:      map[string]string{"acctest": ti.prefix},
		gpuVendor: "NVIDIA", gpuDriver: "550.54.15", gpuModels: []string{"H100", "A100"},
		sizeGiB: sizeGiB(ti.gpu),
	}.check()
}

func (ti testImages) orgValue() knownvalue.Check {
	return wantImage{
		img: ti.org1, name: ti.prefix + "-7-org", architecture: "x86_64", virtualization: "any", organizationID: ti.org,
		family: "redhat", distro: "rocky", version: "9",
		tags:    map[string]string{"acctest": ti.prefix},
		sizeGiB: sizeGiB(ti.org1),
	}.check()
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

// mine is a check of the data source name, which sees only the test's images (tagged with
// the test's prefix, local.mine) and has the further arguments body.
func mine(name, body, attribute string, want knownvalue.Check) acctest.Lookup {
	return acctest.Lookup{Name: name, Body: "tags = local.mine\n" + body, Attribute: attribute, Want: want}
}

// TestAccImagesDataSource_signed checks, with a signing key, which images are accepted and
// which are rejected and why, the translation of every property, and every filter.
func TestAccImagesDataSource_signed(t *testing.T) {
	ti := createTestImages(t)

	config, checks := acctest.Lookups("images", []acctest.Lookup{
		mine("all", "", "images", list(ti.ubuntuValue(), ti.gpuValue(), ti.legacyValue(), ti.pendingValue())),
		mine("all", "", "rejected", list(
			rejected(ti.unsigned, reasonUnsigned),
			rejected(ti.tampered, reasonBadSig),
			rejected(ti.wrongKey, reasonBadSig),
			rejected(ti.invalid, reasonSchema),
		)),
		mine("all", "", "region", knownvalue.StringExact(ti.region)),
		// Organization images are exempt from the signature check.
		mine("org", fmt.Sprintf("organization_id = %q", ti.org), "images",
			list(idOnly(ti.ubuntu), idOnly(ti.gpu), ti.orgValue(), idOnly(ti.legacy), idOnly(ti.pending))),
		mine("org", "", "rejected", knownvalue.ListSizeExact(4)),
		mine("other_org", fmt.Sprintf("organization_id = %q", "other-"+ti.org), "images",
			list(idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.legacy), idOnly(ti.pending))),
		// The invalid image's "1.30" reads as 1.30.0: it would have matched.
		mine("kubernetes_130", `package = "kubernetes >= 1.30"`, "images", list(idOnly(ti.ubuntu))),
		mine("kubernetes_130", "", "rejected", list(rejected(ti.invalid, reasonSchema))),
		mine("kubernetes_any", `package = "kubernetes"`, "images", list(idOnly(ti.ubuntu), idOnly(ti.legacy))),
		mine("kubernetes_129", `package = "kubernetes~1.29.0"`, "images", list(idOnly(ti.legacy))),
		mine("gpu", "gpu_vendor = \"NVIDIA\"\ngpu_model = \"A100\"", "images", list(ti.gpuValue())),
		mine("gpu", "", "rejected", list()),
		mine("amd", `gpu_vendor = "AMD"`, "images", list()),
		// "any" runs on bare metal too; the invalid image has no virtualization.
		mine("baremetal", `virtualization = "baremetal"`, "images", list(idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.pending))),
		mine("baremetal", "", "rejected", list(
			rejected(ti.unsigned, reasonUnsigned),
			rejected(ti.tampered, reasonBadSig),
			rejected(ti.wrongKey, reasonBadSig),
		)),
		mine("virtualized", `virtualization = "virtualized"`, "images", list(idOnly(ti.ubuntu), idOnly(ti.legacy), idOnly(ti.pending))),
		mine("aarch64", `architecture = "aarch64"`, "images", list(idOnly(ti.gpu))),
		mine("aarch64", "", "rejected", list()),
		mine("rocky", "os_distro = \"rocky\"\nos_version = \"9\"", "images", list(idOnly(ti.legacy))),
		mine("pending", `status = "pending"`, "images", list(ti.pendingValue())),
		{Name: "worker", Body: `tags = merge(local.mine, { role = "worker" })`, Attribute: "images", Want: list(ti.ubuntuValue())},
		{Name: "worker", Attribute: "rejected", Want: list()},
		mine("by_name", fmt.Sprintf("name = %q", ti.unsigned.Name), "images", list()),
		mine("by_name", "", "rejected", list(rejected(ti.unsigned, reasonUnsigned))),
		mine("other_region", fmt.Sprintf("region = %q", ti.otherRegion), "images", list(idOnly(ti.otherZone))),
		mine("other_region", "", "region", knownvalue.StringExact(ti.otherRegion)),
	})

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: ti.providerConfig() + ti.locals() + config, ConfigStateChecks: checks},
		},
	})
}

// TestAccImagesDataSource_unsigned: without a signing key only the schema counts.
func TestAccImagesDataSource_unsigned(t *testing.T) {
	ti := createTestImages(t)

	config, checks := acctest.Lookups("images", []acctest.Lookup{
		mine("all", "", "images", list(
			idOnly(ti.ubuntu), idOnly(ti.gpu), idOnly(ti.unsigned), idOnly(ti.tampered), idOnly(ti.wrongKey),
			idOnly(ti.legacy), idOnly(ti.pending),
		)),
		mine("all", "", "rejected", list(rejected(ti.invalid, reasonSchema))),
	})

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: ti.locals() + config, ConfigStateChecks: checks}},
	})
}

// TestAccImageDataSource_exactlyOne finds one image, the newest with most_recent, and fails
// with the matches listed, or with the rejected images named, otherwise.
func TestAccImageDataSource_exactlyOne(t *testing.T) {
	ti := createTestImages(t)

	config, checks := acctest.Lookups("image", []acctest.Lookup{
		mine("gpu", `gpu_vendor = "NVIDIA"`, "id", knownvalue.StringExact(ti.gpu.ID)),
		mine("gpu", "", "image", ti.gpuValue()),
		mine("gpu", "", "rejected", list()),
		mine("ubuntu", `package = "kubernetes >= 1.31, < 1.32"`, "image", ti.ubuntuValue()),
		mine("ubuntu", "", "rejected", list()),
		mine("newest", "most_recent = true", "id", knownvalue.StringExact(ti.pending.ID)),
		mine("newest_ready", "status = \"ready\"\nmost_recent = true", "id", knownvalue.StringExact(ti.legacy.ID)),
		mine("org", fmt.Sprintf("organization_id = %q\nos_distro = \"rocky\"\nmost_recent = true", ti.org),
			"id", knownvalue.StringExact(ti.legacy.ID)),
		mine("org", "", "region", knownvalue.StringExact(ti.region)),
	})

	one := func(name, body string) string {
		return ti.providerConfig() + ti.locals() + fmt.Sprintf("data \"unikorn_image\" %q {\n  tags = local.mine\n  %s\n}\n", name, body)
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: ti.providerConfig() + ti.locals() + config, ConfigStateChecks: checks},
			{
				Config: one("ambiguous", `status = "ready"`),
				ExpectError: regexp.MustCompile(`(?s)Several images found.*but 3 match the filters:.*` +
					regexp.QuoteMeta(ti.ubuntu.Name+" ("+ti.ubuntu.ID+")") + `.*` +
					regexp.QuoteMeta(ti.gpu.Name+" ("+ti.gpu.ID+")") + `.*` +
					regexp.QuoteMeta(ti.legacy.Name+" ("+ti.legacy.ID+")") + `.*most_recent = true`),
			},
			{
				Config:      one("unsigned", fmt.Sprintf("name = %q", ti.unsigned.Name)),
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
		return fmt.Sprintf("provider \"unikorn\" {\n  image_signing_key = %q\n}\n\ndata \"unikorn_images\" \"all\" {}\n", key)
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: acctest.PlanErrors([]acctest.PlanError{
			{Config: keyConfig(rsaPEM), Error: `(?s)Invalid image signing key.*RSA key, an ECDSA key is required`},
			{Config: keyConfig(privatePEM), Error: `(?s)Invalid image signing key.*"EC PRIVATE KEY", expected "PUBLIC KEY"`},
			{Config: keyConfig("not a key"), Error: `(?s)Invalid image signing key.*no PEM block found`},
			{Config: `data "unikorn_images" "all" { package = ">= 1.30" }`, Error: `(?s)Invalid package constraint.*missing the package name`},
			{Config: `data "unikorn_image" "one" { package = "kubernetes >= one" }`, Error: `(?s)Invalid package constraint.*invalid version constraint`},
			{Config: `data "unikorn_images" "all" { virtualization = "container" }`, Error: `(?s)virtualization.*value must be one of`},
		}),
	})
}
