package acctest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// cleanupTimeout bounds each deletion registered with t.Cleanup.
const cleanupTimeout = 2 * time.Minute

// ImageSpec is a tiny Glance image for a test.
type ImageSpec struct {
	// Region is where the image is created ("" = the default region).
	Region string
	// Name defaults to RandomName().
	Name string
	// Properties are the image's additional properties (unikorn:* and others).
	Properties map[string]string
	// Visibility defaults to public.
	Visibility images.ImageVisibility
	// NoData leaves the image queued (Glance status "queued", translated
	// "pending") instead of uploading a few bytes, which makes it active.
	NoData bool
	// MinDiskGiB is Glance's min_disk.
	MinDiskGiB int
	// SignWith, when set, adds unikorn:digest: the signature of the new
	// image's ID (SignImageID) with this key.
	SignWith *ecdsa.PrivateKey
}

// CreateImage creates the image as the service user (admin on its project on the local
// cloud, so it may publish images), registers its deletion with t.Cleanup and returns it as
// Glance describes it after creation.
func CreateImage(t *testing.T, spec ImageSpec) images.Image {
	t.Helper()

	ctx := t.Context()

	client := AdminGlance(t, spec.Region)

	if spec.Name == "" {
		spec.Name = RandomName()
	}

	visibility := spec.Visibility
	if visibility == "" {
		visibility = images.ImageVisibilityPublic
	}

	img, err := images.Create(ctx, client, images.CreateOpts{
		Name:            spec.Name,
		Visibility:      &visibility,
		ContainerFormat: "bare",
		DiskFormat:      "raw",
		MinDisk:         spec.MinDiskGiB,
		Properties:      spec.Properties,
	}).Extract()
	if err != nil {
		t.Fatalf("creating image %s: %v", spec.Name, err)
	}

	deleteOnCleanup(t, "image", spec.Name, img.ID, func(ctx context.Context) error {
		return images.Delete(ctx, client, img.ID).ExtractErr()
	})

	if spec.SignWith != nil {
		img, err = images.Update(ctx, client, img.ID, images.UpdateOpts{
			images.UpdateImageProperty{Op: images.AddOp, Name: "unikorn:digest", Value: SignImageID(t, spec.SignWith, img.ID)},
		}).Extract()
		if err != nil {
			t.Fatalf("signing image %s (%s): %v", spec.Name, img.ID, err)
		}
	}

	if !spec.NoData {
		if err := imagedata.Upload(ctx, client, img.ID, bytes.NewReader([]byte("tiny image\n"))).ExtractErr(); err != nil {
			t.Fatalf("uploading image %s (%s): %v", spec.Name, img.ID, err)
		}

		if img, err = images.Get(ctx, client, img.ID).Extract(); err != nil {
			t.Fatalf("reading image %s (%s): %v", spec.Name, img.ID, err)
		}
	}

	return *img
}

// TwoRegions are the default and the second region of the environment, for the catalog tests
// that compare two regions. Without TF_ACC it returns false and the test's PreCheck skips it
// (after its steps are validated); with TF_ACC it runs PreCheck and, when the environment
// serves fewer than two regions, says that what needs two and skips the test on an external
// cloud or fails it on the local one (SecondRegion).
func TwoRegions(t *testing.T, what string) (region, other string, ok bool) {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return "", "", false
	}

	PreCheck(t)

	if len(Regions()) < 2 {
		t.Logf("%s need two regions, %s has %v", what, RegionsEnv, Regions())
	}

	other = SecondRegion(t)

	return FirstRegion(), other, true
}

// Lookup is one check of a catalog data source of a test: unikorn_<kind> "<Name>",
// configured with Body as its arguments where the name first appears, whose Attribute must
// hold Want.
type Lookup struct {
	Name, Body string
	Attribute  string
	Want       knownvalue.Check
}

// Lookups are the configuration and the state checks of the data sources of kind (flavors,
// flavor, images, image) that all make.
func Lookups(kind string, all []Lookup) (string, []statecheck.StateCheck) {
	var (
		config strings.Builder
		checks []statecheck.StateCheck
		seen   = map[string]bool{}
	)

	for _, l := range all {
		if !seen[l.Name] {
			seen[l.Name] = true
			fmt.Fprintf(&config, "\ndata %q %q {\n%s\n}\n", "unikorn_"+kind, l.Name, l.Body)
		}

		checks = append(checks, statecheck.ExpectKnownValue("data.unikorn_"+kind+"."+l.Name, tfjsonpath.New(l.Attribute), l.Want))
	}

	return config.String(), checks
}

// PlanError is a configuration whose plan must fail with an error that matches Error (a
// regular expression).
type PlanError struct {
	Config, Error string
}

// PlanErrors are plan-only steps, one per case: for mistakes that are plan-time diagnostics.
func PlanErrors(cases []PlanError) []resource.TestStep {
	steps := make([]resource.TestStep, len(cases))
	for i, c := range cases {
		steps[i] = resource.TestStep{Config: c.Config, PlanOnly: true, ExpectError: regexp.MustCompile(c.Error)}
	}

	return steps
}

// FlavorSpec is a public Nova flavor for a test.
type FlavorSpec struct {
	// Region is where the flavor is created ("" = the default region).
	Region string
	// Name defaults to RandomName().
	Name   string
	VCPUs  int
	RAMMiB int
	DiskGB int
	// ExtraSpecs are set after creation.
	ExtraSpecs map[string]string
}

// CreateFlavor creates the public flavor as the service user, sets its extra specs,
// registers its deletion with t.Cleanup and returns its ID.
func CreateFlavor(t *testing.T, spec FlavorSpec) string {
	t.Helper()

	ctx := t.Context()

	client := AdminCompute(t, spec.Region)

	if spec.Name == "" {
		spec.Name = RandomName()
	}

	public := true
	disk := spec.DiskGB

	f, err := flavors.Create(ctx, client, flavors.CreateOpts{
		Name:     spec.Name,
		VCPUs:    spec.VCPUs,
		RAM:      spec.RAMMiB,
		Disk:     &disk,
		IsPublic: &public,
	}).Extract()
	if err != nil {
		t.Fatalf("creating flavor %s: %v", spec.Name, err)
	}

	deleteOnCleanup(t, "flavor", spec.Name, f.ID, func(ctx context.Context) error {
		return flavors.Delete(ctx, client, f.ID).ExtractErr()
	})

	if len(spec.ExtraSpecs) > 0 {
		if _, err := flavors.CreateExtraSpecs(ctx, client, f.ID, flavors.ExtraSpecsOpts(spec.ExtraSpecs)).Extract(); err != nil {
			t.Fatalf("setting extra specs of flavor %s (%s): %v", spec.Name, f.ID, err)
		}
	}

	return f.ID
}

// deleteOnCleanup registers with t.Cleanup the deletion of the test's object (what, name and
// id name it in the error), bounded by cleanupTimeout; a 404 answer counts as done.
func deleteOnCleanup(t *testing.T, what, name, id string, del func(ctx context.Context) error) {
	t.Helper()

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()

		if err := del(ctx); err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			t.Errorf("deleting %s %s (%s): %v", what, name, id, err)
		}
	})
}

// NewSigningKey generates an image signing key on curve and returns it with its public
// half as the PEM the provider's image_signing_key takes.
func NewSigningKey(t *testing.T, curve elliptic.Curve) (*ecdsa.PrivateKey, string) {
	t.Helper()

	key, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}

	return key, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// SignImageID is the unikorn:digest of an image: the base64 ASN.1 ECDSA signature of the
// SHA-256 of its ID.
func SignImageID(t *testing.T, key *ecdsa.PrivateKey, id string) string {
	t.Helper()

	hash := sha256.Sum256([]byte(id))

	sig, err := ecdsa.SignASN1(rand.Reader, key, hash[:])
	if err != nil {
		t.Fatal(err)
	}

	return base64.StdEncoding.EncodeToString(sig)
}
