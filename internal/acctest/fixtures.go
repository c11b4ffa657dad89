package acctest

import (
	"os"
	"strings"
	"testing"
)

// This file holds what the acceptance tests expect to find in the cloud they run against, each
// named by a documented variable whose default is what tools/openstack-lite makes (README,
// "Running the acceptance tests against your own cloud").
//
// The suite runs against the local bed by default. With UNIKORN_ACC_EXTERNAL=1 (make
// testacc-external) it runs against whatever cloud the environment names: a test that needs
// something that cloud was not said to offer (a second region, a VLAN physical network, the
// bed's own machinery) skips, naming the variable that enables it. On the local bed nothing
// skips: a missing fixture there fails the test.

// Variables naming the fixtures.
const (
	// ExternalEnv set to 1 says the cloud is not the local bed.
	ExternalEnv = "UNIKORN_ACC_EXTERNAL"
	// ImageEnv names a public image that boots with the flavors below.
	ImageEnv = "UNIKORN_ACC_IMAGE"
	// FlavorEnv names a public flavor with a disk that boots ImageEnv.
	FlavorEnv = "UNIKORN_ACC_FLAVOR"
	// LargeFlavorEnv names a public flavor larger than FlavorEnv (resizes), with a disk.
	LargeFlavorEnv = "UNIKORN_ACC_FLAVOR_LARGE"
	// ExternalNetworkEnv names the external network, by the same name in every region.
	ExternalNetworkEnv = "UNIKORN_ACC_EXTERNAL_NETWORK"
	// PhysnetEnv names a physical network with VLAN ranges (tenant VLAN networks) that may also
	// take flat networks (provider networks); on an external cloud, unset skips those tests.
	PhysnetEnv = "UNIKORN_ACC_PHYSNET"
	// RegionsEnv lists the regions the tests use, the first being the provider's default.
	RegionsEnv = "UNIKORN_REGIONS"
	// InheritedCloudEnv names the clouds.yaml entry (of OS_CLIENT_CONFIG_FILE) of a second
	// service user whose admin role on the managed domain is inherited by its projects (the
	// domain-inherited grant model); on an external cloud, unset skips those tests.
	InheritedCloudEnv = "UNIKORN_ACC_INHERITED_CLOUD"
)

// The fixtures of the cloud under test, read once when the test binary starts.
var (
	// ServerImage is the public image the server tests boot (the local bed's fake virt driver
	// boots anything in a few seconds).
	ServerImage = fixture(ImageEnv, "cirros-tiny")
	// ServerFlavor is the public flavor the server tests boot.
	ServerFlavor = fixture(FlavorEnv, "m1.tiny")
	// ServerLargeFlavor is a larger public flavor (resize tests).
	ServerLargeFlavor = fixture(LargeFlavorEnv, "m1.small")
	// PublicNetworkName is the cloud's external network in every region.
	PublicNetworkName = fixture(ExternalNetworkEnv, "public")
	// Physnet is the physical network of the VLAN and flat network tests ("" on an external
	// cloud that names none: NeedPhysnet skips).
	Physnet = optionalFixture(PhysnetEnv, "physnet1")
	// InheritedCloud is the clouds.yaml entry of the service user of the domain-inherited
	// admin grant model ("" on an external cloud that names none: NeedInheritedCloud skips).
	InheritedCloud = optionalFixture(InheritedCloudEnv, "unikorn-inherited")
)

// External tells whether the suite runs against a cloud other than the local bed.
func External() bool {
	return os.Getenv(ExternalEnv) == "1"
}

// fixture is the value of variable env, or the local bed's value when it is unset.
func fixture(env, bed string) string {
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		return v
	}

	return bed
}

// optionalFixture is fixture, except that on an external cloud an unset variable means the
// cloud does not offer it ("").
func optionalFixture(env, bed string) string {
	if External() {
		return strings.TrimSpace(os.Getenv(env))
	}

	return fixture(env, bed)
}

// FirstRegion is the first region of UNIKORN_REGIONS: the provider's default in the tests.
func FirstRegion() string {
	if regions := Regions(); len(regions) > 0 {
		return regions[0]
	}

	return ""
}

// SecondRegion is the second region of UNIKORN_REGIONS, for the tests of more than one region.
// An external cloud that names one region skips the test; on the local bed, which serves two,
// a missing one fails it.
func SecondRegion(t *testing.T) string {
	t.Helper()

	regions := Regions()
	if len(regions) >= 2 {
		return regions[1]
	}

	unavailable(t, "second region", RegionsEnv+" names one region; name two served by the same Keystone to run it")

	return ""
}

// NeedPhysnet is Physnet, for a test of VLAN or flat networks: an external cloud that names no
// physical network skips the test.
func NeedPhysnet(t *testing.T) string {
	t.Helper()

	if Physnet == "" {
		unavailable(t, "physical network", "set "+PhysnetEnv+" to a physical network with VLAN ranges the service user may use")
	}

	return Physnet
}

// NeedInheritedCloud is InheritedCloud, for a test of the domain-inherited admin grant model:
// an external cloud that names no such clouds.yaml entry skips the test.
func NeedInheritedCloud(t *testing.T) string {
	t.Helper()

	if InheritedCloud == "" {
		unavailable(t, "service user with an inherited admin grant", "set "+InheritedCloudEnv+
			" to the clouds.yaml entry of a service user whose admin role on the managed domain its projects inherit")
	}

	return InheritedCloud
}

// LocalBedOnly skips the test on an external cloud: it needs the local bed itself (why says
// what of it), which no variable can stand for.
func LocalBedOnly(t *testing.T, why string) {
	t.Helper()

	if External() {
		t.Skipf("needs the local bed (tools/openstack-lite): %s", why)
	}
}

// unavailable skips the test on an external cloud, saying what it needs and how to give it,
// and fails it on the local bed, which offers everything.
func unavailable(t *testing.T, what, how string) {
	t.Helper()

	if External() {
		t.Skipf("the cloud under test offers no %s: %s", what, how)
	}

	t.Fatalf("the local bed should offer a %s (%s)", what, how)
}
