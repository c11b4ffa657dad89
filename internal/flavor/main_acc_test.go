package flavor_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_flavor", nil, sweepFlavors)
}

// sweepFlavors deletes, in every region, the public and private flavors whose names carry the
// test prefix (those of unikorn_flavor and those the data source tests make). Run with
// `go test ./internal/flavor/ -sweep=all`.
var sweepFlavors = acctest.PagedSweep(acctest.Compute, "flavor", acctest.NamePrefix,
	func(sc *gophercloud.ServiceClient) pagination.Pager {
		return flavors.ListDetail(sc, flavors.ListOpts{AccessType: flavors.AllAccess})
	}, flavors.ExtractFlavors,
	func(f flavors.Flavor) (string, string) { return f.Name, f.ID },
	acctest.Deleted(flavors.Delete))

// novaFlavorsNamed lists the public and private flavors of region called exactly name.
func novaFlavorsNamed(t *testing.T, region, name string) ([]flavors.Flavor, error) {
	t.Helper()

	all, err := acctest.AllPages(context.Background(),
		flavors.ListDetail(acctest.AdminCompute(t, region), flavors.ListOpts{AccessType: flavors.AllAccess}), flavors.ExtractFlavors)

	return naming.Exact(all, name, func(f flavors.Flavor) string { return f.Name }), err
}

// novaAccess is the access list of the private flavor id in region, sorted.
func novaAccess(t *testing.T, region, id string) ([]string, error) {
	t.Helper()

	list, err := acctest.AllPages(context.Background(), flavors.ListAccesses(acctest.AdminCompute(t, region), id), flavors.ExtractAccesses)

	out := []string{}
	for _, a := range list {
		out = append(out, a.TenantID)
	}

	slices.Sort(out)

	return out, err
}

// checkNovaFlavor asks Nova, for the unikorn_flavor "test", that exactly one flavor of its
// name exists in its region, that it is the one in state, and that its sizes, publicity, extra
// specs and access list are what the state says.
func checkNovaFlavor(t *testing.T) resource.TestCheckFunc {
	return acctest.CheckAttributes(flavorAddress, func(a map[string]string) error {
		region, name := a["region"], a["name"]

		named, err := novaFlavorsNamed(t, region, name)
		if err != nil {
			return err
		}

		if len(named) != 1 || named[0].ID != a["id"] {
			return fmt.Errorf("flavors %s in %s: %v, want exactly %s", name, region, named, a["id"])
		}

		f := named[0]

		var problems acctest.Mismatches

		expect := problems.Expect

		expect("flavor_id", f.ID, a["flavor_id"])
		expect("vcpus", f.VCPUs, a["vcpus"])
		expect("ram", f.RAM, a["ram_mib"])
		expect("disk", f.Disk, a["disk_gb"])
		expect("ephemeral", f.Ephemeral, a["ephemeral_gb"])
		expect("swap", f.Swap, a["swap_mib"])
		expect("is_public", f.IsPublic, a["is_public"])

		expect("extra specs", fmt.Sprint(f.ExtraSpecs), fmt.Sprint(acctest.MapValues(a, "extra_specs")))

		if !f.IsPublic {
			access, err := novaAccess(t, region, f.ID)
			if err != nil {
				return err
			}

			expect("access", strings.Join(access, ","), strings.Join(acctest.SetValues(a, "access_project_ids"), ","))
		}

		return problems.Err(fmt.Sprintf("flavor %s in %s", name, region))
	})
}

// checkFlavorDestroy asks Nova that no flavor of the state is left, by ID or by name.
func checkFlavorDestroy(t *testing.T) func(*terraform.State) error {
	return acctest.CheckEach("unikorn_flavor", func(a map[string]string) error {
		_, err := flavors.Get(context.Background(), acctest.AdminCompute(t, a["region"]), a["id"]).Extract()
		if !gophercloud.ResponseCodeIs(err, 404) {
			return fmt.Errorf("flavor %s (%s) in %s still exists (%v)", a["name"], a["id"], a["region"], err)
		}

		named, err := novaFlavorsNamed(t, a["region"], a["name"])
		if err != nil || len(named) > 0 {
			return fmt.Errorf("flavors named %s left in %s: %v (%v)", a["name"], a["region"], named, err)
		}

		return nil
	})
}

// bareProject is a Keystone project of the managed domain, for access lists: deleted when the
// test ends (after the flavors, which the test case destroys first).
func bareProject(t *testing.T) string {
	t.Helper()

	sc, domainID := acctest.IdentityKeystone(t)

	p, err := projects.Create(context.Background(), sc, projects.CreateOpts{
		DomainID: domainID, Name: naming.IdentityProject(acctest.IdentityName()), Description: "flavor access acceptance test",
	}).Extract()
	if err != nil {
		t.Fatalf("creating a project: %v", err)
	}

	t.Cleanup(func() {
		if err := projects.Delete(context.Background(), sc, p.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting project %s: %v", p.ID, err)
		}
	})

	return p.ID
}

// changeOutOfBand changes the flavor id of region as an operator would: set adds or changes
// extra specs, drop removes them.
func changeOutOfBand(t *testing.T, region, id string, set map[string]string, drop ...string) {
	t.Helper()

	ctx, sc := context.Background(), acctest.AdminCompute(t, region)

	if len(set) > 0 {
		if _, err := flavors.CreateExtraSpecs(ctx, sc, id, flavors.ExtraSpecsOpts(maps.Clone(set))).Extract(); err != nil {
			t.Fatalf("setting extra specs of %s: %v", id, err)
		}
	}

	for _, k := range drop {
		if err := flavors.DeleteExtraSpec(ctx, sc, id, k).ExtractErr(); err != nil {
			t.Fatalf("removing extra spec %s of %s: %v", k, id, err)
		}
	}
}

// deleteOutOfBand deletes the flavor id of region.
func deleteOutOfBand(t *testing.T, region, id string) {
	t.Helper()

	if err := flavors.Delete(context.Background(), acctest.AdminCompute(t, region), id).ExtractErr(); err != nil {
		t.Fatalf("deleting flavor %s: %v", id, err)
	}
}
