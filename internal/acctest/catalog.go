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
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	unikorn "github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
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

	client, err := Client(t).Base().Image(spec.Region)
	if err != nil {
		t.Fatalf("image client: %v", err)
	}

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
// (after its steps are validated); with TF_ACC it runs PreCheck and fails the test (what
// names it in the message) when the environment serves fewer than two regions.
func TwoRegions(t *testing.T, what string) (region, other string, ok bool) {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		return "", "", false
	}

	PreCheck(t)

	regions := Regions()
	if len(regions) < 2 {
		t.Fatalf("%s need two regions, UNIKORN_REGIONS has %v", what, regions)
	}

	return regions[0], regions[1], true
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

	client, err := Client(t).Base().Compute(spec.Region)
	if err != nil {
		t.Fatalf("compute client: %v", err)
	}

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

// RequestLog captures the OpenStack request log (the "openstack" tflog subsystem, where the
// cloud client logs every HTTP request with its method, service and path) of the provider
// under test, separately for each provider configuration, i.e. each provider process of a
// real run (terraform-plugin-testing configures the provider afresh for every CLI command).
// It serves the provider through ProviderFactories; the wrapper intercepts Configure and
// the data sources' Read to hand them a logger that writes into the log, and is otherwise
// transparent (it does not forward optional provider interfaces such as functions, which
// the catalog tests do not use).
//
// The subsystem must log at DEBUG: leave TF_LOG_PROVIDER_UNIKORN_OPENSTACK unset (or set it
// to DEBUG or TRACE).
type RequestLog struct {
	mu   sync.Mutex
	runs []*ProviderRun
	byPD map[any]*ProviderRun
}

// ProviderRun is the log of one provider configuration.
type ProviderRun struct {
	mu    sync.Mutex
	out   bytes.Buffer
	reads int
}

// Request is one entry of the request log.
type Request struct {
	Method  string
	Service string
	Path    string
	Status  int
}

// String is "GET image /v2/images".
func (r Request) String() string {
	return fmt.Sprintf("%s %s %s", r.Method, r.Service, r.Path)
}

// NewRequestLog returns an empty log.
func NewRequestLog() *RequestLog {
	return &RequestLog{byPD: map[any]*ProviderRun{}}
}

// ProviderFactories serve the provider under test with its request log captured here.
func (l *RequestLog) ProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"unikorn": providerserver.NewProtocol6WithError(&loggingProvider{Provider: unikorn.New("acctest")(), log: l}),
	}
}

// Runs are the provider configurations so far, in order.
func (l *RequestLog) Runs() []*ProviderRun {
	l.mu.Lock()
	defer l.mu.Unlock()

	return append([]*ProviderRun(nil), l.runs...)
}

// DataSourceReads is how many data sources were read in this run.
func (r *ProviderRun) DataSourceReads() int {
	r.mu.Lock()
	defer r.mu.Unlock()

	return r.reads
}

// Entries are the run's log entries with the given message, each as its JSON fields.
func (r *ProviderRun) Entries(message string) ([]map[string]any, error) {
	r.mu.Lock()
	raw := bytes.Clone(r.out.Bytes())
	r.mu.Unlock()

	entries, err := tflogtest.MultilineJSONDecode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decoding the provider log: %w", err)
	}

	var out []map[string]any

	for _, e := range entries {
		if e["@message"] == message {
			out = append(out, e)
		}
	}

	return out, nil
}

// Requests are the OpenStack requests of the run, in order.
func (r *ProviderRun) Requests() ([]Request, error) {
	entries, err := r.Entries("OpenStack API request")
	if err != nil {
		return nil, err
	}

	var out []Request

	for _, e := range entries {

		req := Request{}
		req.Method, _ = e["method"].(string)
		req.Service, _ = e["service"].(string)
		req.Path, _ = e["path"].(string)

		if status, ok := e["status"].(float64); ok {
			req.Status = int(status)
		}

		out = append(out, req)
	}

	return out, nil
}

// Count is how many requests of the run have method and a path ending in pathSuffix.
func (r *ProviderRun) Count(method, pathSuffix string) (int, error) {
	reqs, err := r.Requests()
	if err != nil {
		return 0, err
	}

	n := 0

	for _, req := range reqs {
		if req.Method == method && strings.HasSuffix(req.Path, pathSuffix) {
			n++
		}
	}

	return n, nil
}

func (r *ProviderRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()

	return r.out.Write(p)
}

// context returns ctx (deadline and cancellation) with a root provider logger that writes
// into the run instead of the logger terraform-plugin-testing installed.
func (r *ProviderRun) context(ctx context.Context) context.Context {
	return loggerContext{Context: ctx, values: tflogtest.RootLogger(context.Background(), r)}
}

// loggerContext takes its deadline and cancellation from the embedded context and its
// values (the logger) from values: terraform-plugin-testing registers a logging sink in the
// context that would otherwise take precedence over any new root logger.
type loggerContext struct {
	context.Context
	values context.Context
}

func (c loggerContext) Value(key any) any {
	return c.values.Value(key)
}

type loggingProvider struct {
	provider.Provider

	log *RequestLog
}

func (p *loggingProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	run := &ProviderRun{}

	p.Provider.Configure(run.context(ctx), req, resp)

	p.log.mu.Lock()
	defer p.log.mu.Unlock()

	p.log.runs = append(p.log.runs, run)

	if resp.DataSourceData != nil {
		p.log.byPD[resp.DataSourceData] = run
	}
}

func (p *loggingProvider) DataSources(ctx context.Context) []func() datasource.DataSource {
	inner := p.Provider.DataSources(ctx)
	out := make([]func() datasource.DataSource, len(inner))

	for i, newInner := range inner {
		out[i] = func() datasource.DataSource {
			return &loggingDataSource{DataSource: newInner(), log: p.log}
		}
	}

	return out
}

type loggingDataSource struct {
	datasource.DataSource

	log *RequestLog
	run *ProviderRun
}

var (
	_ datasource.DataSourceWithConfigure        = (*loggingDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*loggingDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*loggingDataSource)(nil)
)

func (d *loggingDataSource) Configure(ctx context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData != nil {
		d.log.mu.Lock()
		d.run = d.log.byPD[req.ProviderData]
		d.log.mu.Unlock()
	}

	if c, ok := d.DataSource.(datasource.DataSourceWithConfigure); ok {
		c.Configure(ctx, req, resp)
	}
}

func (d *loggingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.run != nil {
		d.run.mu.Lock()
		d.run.reads++
		d.run.mu.Unlock()

		ctx = d.run.context(ctx)
	}

	d.DataSource.Read(ctx, req, resp)
}

func (d *loggingDataSource) ConfigValidators(ctx context.Context) []datasource.ConfigValidator {
	if v, ok := d.DataSource.(datasource.DataSourceWithConfigValidators); ok {
		return v.ConfigValidators(ctx)
	}

	return nil
}

func (d *loggingDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if v, ok := d.DataSource.(datasource.DataSourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}
