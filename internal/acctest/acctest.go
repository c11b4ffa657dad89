// Package acctest holds what every acceptance test shares: the provider factories, the
// environment check, random names with a sweepable prefix, and a direct OpenStack client for
// the checks (CheckDestroy and friends) that ask the cloud instead of the state.
//
// Acceptance tests run with TF_ACC=1 against the local cloud of tools/openstack-lite, whose
// `env` file sets OS_CLOUD, OS_CLIENT_CONFIG_FILE, UNIKORN_DOMAIN and UNIKORN_REGIONS, or, with
// UNIKORN_ACC_EXTERNAL=1 (make testacc-external), against any cloud those variables and the
// fixtures of fixtures.go name.
package acctest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// NamePrefix starts the name of every object an acceptance test creates, so that sweepers
// can find leftovers.
const NamePrefix = "tf-acc-"

// ProtoV6ProviderFactories serves the provider in-process to the CLI under test.
var ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"unikorn": providerserver.NewProtocol6WithError(provider.New("acctest")()),
}

// RandomName returns a fresh name with the sweepable prefix.
func RandomName() string {
	return sdkacctest.RandomWithPrefix(strings.TrimSuffix(NamePrefix, "-"))
}

// PreCheck skips the test only when TF_ACC is unset (a plain `go test`), and fails it (never
// skips it) when TF_ACC is set but the environment of the cloud is missing: an acceptance test
// that silently did nothing would be a lie.
func PreCheck(t *testing.T) {
	t.Helper()

	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc)")
	}

	for _, name := range []string{"OS_CLOUD", "OS_CLIENT_CONFIG_FILE", "UNIKORN_REGIONS"} {
		if os.Getenv(name) == "" {
			t.Fatalf("%s must be set for acceptance tests: source .cache/openstack-lite/env (make cloud-up writes it) for the local cloud, "+
				"or set it for another cloud and run make testacc-external", name)
		}
	}

	// The tests take the first region for the provider's default (FirstRegion), which the
	// provider takes from OS_REGION_NAME or else from the clouds.yaml entry.
	if def, first := Client(t).DefaultRegion(), FirstRegion(); def != first {
		t.Fatalf("the provider's default region %q (OS_REGION_NAME, else the clouds.yaml entry's region_name) must be the first of %s (%q)",
			def, RegionsEnv, first)
	}

	pinExternalNetworks(t)
}

// Regions returns the regions the test environment serves (UNIKORN_REGIONS). It may be
// called while building a test case, before PreCheck has checked the environment.
func Regions() []string {
	var regions []string

	for _, r := range strings.Split(os.Getenv("UNIKORN_REGIONS"), ",") {
		if r = strings.TrimSpace(r); r != "" {
			regions = append(regions, r)
		}
	}

	return regions
}

// LastRegion is the last of Regions, or "" when the environment serves none (a test case may
// be built before PreCheck has checked the environment).
func LastRegion() string {
	if regions := Regions(); len(regions) > 0 {
		return regions[len(regions)-1]
	}

	return ""
}

var (
	clientOnce sync.Once
	client     *cloud.Client
	clientErr  error
)

// Client is an OpenStack client configured from the same environment as the provider, shared
// by all tests of a package, for checks that ask the cloud directly.
func Client(t *testing.T) *cloud.Client {
	t.Helper()

	clientOnce.Do(func() {
		client, clientErr = NewClient(context.Background(), "terraform-provider-unikorn-acctest")
	})

	if clientErr != nil {
		t.Fatalf("cannot build the direct OpenStack client for checks: %v", clientErr)
	}

	return client
}

// NewClient is a fresh OpenStack client configured from the test environment, as the
// provider is (its default region OS_REGION_NAME, else the clouds.yaml entry's): for sweepers
// (which run without a test) and for tests that must not share the package's cached client.
func NewClient(ctx context.Context, userAgent string) (*cloud.Client, error) {
	return cloud.New(ctx, cloud.Config{
		Cloud:      os.Getenv("OS_CLOUD"),
		CloudsYAML: os.Getenv("OS_CLIENT_CONFIG_FILE"),
		Region:     os.Getenv("OS_REGION_NAME"),
		Regions:    Regions(),
		Domain:     os.Getenv("UNIKORN_DOMAIN"),
		UserAgent:  userAgent,
	})
}
