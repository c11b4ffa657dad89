package flavor

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file is the core of unikorn_flavor: a Nova flavor of one region made, found again,
// converged and deleted as the service user (a cloud admin: flavors are admin objects of the
// region, not tenant objects). Nova keeps flavor names unique, so the exact name is the key a
// flavor is found again by; every other attribute but the extra specs and the access list is
// fixed once the flavor exists.

// kindFlavor names a flavor in messages and duplicate errors.
const kindFlavor = "flavor"

// ManagedSpec is what a unikorn_flavor asks of Nova.
type ManagedSpec struct {
	Name string
	// ID is the flavor ID to create the flavor with; "" lets Nova choose one (a UUID).
	ID                                          string
	VCPUs, RAMMiB, DiskGB, EphemeralGB, SwapMiB int
	Public                                      bool
	// ExtraSpecs are the flavor's extra specs, exactly: keys not listed are removed.
	ExtraSpecs map[string]string
	// Access are the projects a private flavor is given to, exactly (unused for a public one).
	Access []string
}

// Managed is one flavor as Nova holds it.
type Managed struct {
	ID, Name                                    string
	VCPUs, RAMMiB, DiskGB, EphemeralGB, SwapMiB int
	Public                                      bool
	// ExtraSpecs are never nil.
	ExtraSpecs map[string]string
	// Access are the projects given a private flavor, sorted; nil for a public flavor.
	Access []string
}

// TypeName is the resource type of a flavor, for its refusals.
const TypeName = "unikorn_flavor"

// MismatchError is a create that found a flavor of the name already there that differs from
// this one in what Nova cannot change: it is refused, untouched, like any flavor of the name
// (it is the *cloud.ExistsError it unwraps to), and says how it differs.
type MismatchError struct {
	Name, ID string
	// Differences are "vcpus 2 (wanted 4)" and the like.
	Differences []string
	// Exists is the refusal.
	Exists *cloud.ExistsError
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("a flavor named %q already exists (%s) and differs from this one in what Nova cannot change: %s. %s",
		e.Name, e.ID, strings.Join(e.Differences, ", "), e.Exists.WayOut())
}

// Unwrap is the refusal.
func (e *MismatchError) Unwrap() error { return e.Exists }

// Admin manages the flavors of one region as the service user.
type Admin struct {
	compute *gophercloud.ServiceClient
	region  string
	refused func(service, call string, err error) error
}

// NewAdmin is the flavor core of region (a resolved name) on compute, that region's Nova
// client in the service user's admin scope. refused turns a 403 of an admin-only call into an
// error that names the grant allowing it (cloud.Client.AdminRefusal); nil leaves errors as
// they are.
func NewAdmin(compute *gophercloud.ServiceClient, region string, refused func(service, call string, err error) error) *Admin {
	if refused == nil {
		refused = func(service, call string, err error) error {
			return fmt.Errorf("%s refused %s: %w", service, call, err)
		}
	}

	return &Admin{compute: compute, region: region, refused: refused}
}

// Region is the region the core manages flavors in.
func (a *Admin) Region() string { return a.region }

// fail wraps err of call; a 403 says what would allow it (flavors are admin objects).
func (a *Admin) fail(call string, err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return a.refused("Nova", call, err)
	}

	return fmt.Errorf("%s: %w", call, err)
}

// Ensure makes the flavor of spec and converges its extra specs and access. Nova keeps no mark
// of who made a flavor that is not the user's (its extra specs and description are), so a
// flavor is never adopted: Ensure looks first, and a flavor of the name (or of spec.ID) that
// exists is refused untouched, a *cloud.ExistsError (a *MismatchError that says how it differs
// when the fixed attributes do). An interrupted create thus leaves a flavor that the next apply
// refuses: import it. The POST goes through cloud.Create: after a lost answer the flavor of the
// name is taken when it has spec's fixed attributes (there was none before the POST, so it is
// the POST's own), refused otherwise. The result is what exists, also when converging failed
// after the flavor was made (the error says what failed): the caller records it.
func (a *Admin) Ensure(ctx context.Context, spec ManagedSpec) (*Managed, error) {
	if err := a.vacant(ctx, spec); err != nil {
		return nil, err
	}

	made, err := cloud.Create(ctx, cloud.CreateSpec[*flavors.Flavor]{
		Kind: kindFlavor,
		Name: spec.Name,
		Create: func(ctx context.Context) (*flavors.Flavor, error) {
			return flavors.Create(ctx, a.compute, createOpts(spec)).Extract()
		},
		Find: func(ctx context.Context) ([]*flavors.Flavor, error) {
			f, err := a.findByName(ctx, spec.Name)
			if f == nil {
				return nil, err
			}

			return []*flavors.Flavor{f}, err
		},
		ID: func(f *flavors.Flavor) string { return f.ID },
		Adopt: func(f *flavors.Flavor) error {
			if diffs := fixedDifferences(spec, f); len(diffs) > 0 {
				return a.refusal(f, diffs)
			}

			return nil
		},
		// No twin check: Nova refuses a second flavor of a name (409), so there can be none.
	})

	if gophercloud.ResponseCodeIs(err, http.StatusConflict) {
		// Taken between the look and the POST: refused like one found by the look.
		if verr := a.vacant(ctx, spec); verr != nil {
			return nil, verr
		}
	}

	if err != nil {
		return nil, a.fail("creating flavor "+spec.Name, err)
	}

	out := fromNova(*made)
	if !out.Public {
		out.Access = []string{} // a new private flavor is given to no one
	}

	return a.Converge(ctx, out, spec)
}

// vacant is nil when no flavor has spec's name or ID; otherwise the refusal of that flavor.
func (a *Admin) vacant(ctx context.Context, spec ManagedSpec) error {
	found, err := a.findByName(ctx, spec.Name)
	if err != nil {
		return err
	}

	if found == nil && spec.ID != "" {
		if found, err = a.get(ctx, spec.ID); err != nil {
			return err
		}
	}

	if found == nil {
		return nil
	}

	diffs := fixedDifferences(spec, found)
	if found.Name != spec.Name { // found by the ID: it takes the flavor_id
		diffs = append([]string{fmt.Sprintf("name %q (wanted %q, with the same flavor_id)", found.Name, spec.Name)}, diffs...)
	}

	return a.refusal(found, diffs)
}

// refusal refuses the existing flavor f for a create, saying how it differs (diffs) if it does.
func (a *Admin) refusal(f *flavors.Flavor, diffs []string) error {
	exists := &cloud.ExistsError{Existing: cloud.Existing{
		Type: TypeName, Kind: kindFlavor, Name: f.Name, ID: f.ID, Where: "in region " + a.region, ImportID: a.region + "/" + f.ID,
	}, Claim: cloud.ClaimUnknown}

	if len(diffs) == 0 {
		return exists
	}

	return &MismatchError{Name: f.Name, ID: f.ID, Differences: diffs, Exists: exists}
}

// createOpts is the POST of spec.
func createOpts(spec ManagedSpec) flavors.CreateOpts {
	disk, ephemeral, swap, public := spec.DiskGB, spec.EphemeralGB, spec.SwapMiB, spec.Public

	return flavors.CreateOpts{
		ID: spec.ID, Name: spec.Name, VCPUs: spec.VCPUs, RAM: spec.RAMMiB,
		Disk: &disk, Ephemeral: &ephemeral, Swap: &swap, IsPublic: &public,
	}
}

// fixedDifferences lists how f differs from spec in what Nova cannot change.
func fixedDifferences(spec ManagedSpec, f *flavors.Flavor) []string {
	var diffs []string

	differ := func(what string, got, want any) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s %v (wanted %v)", what, got, want))
		}
	}

	if spec.ID != "" {
		differ("flavor_id", f.ID, spec.ID)
	}

	differ("vcpus", f.VCPUs, spec.VCPUs)
	differ("ram_mib", f.RAM, spec.RAMMiB)
	differ("disk_gb", f.Disk, spec.DiskGB)
	differ("ephemeral_gb", f.Ephemeral, spec.EphemeralGB)
	differ("swap_mib", f.Swap, spec.SwapMiB)
	differ("is_public", f.IsPublic, spec.Public)

	return diffs
}

// fromNova is what Nova answered of a flavor, without its access list.
func fromNova(f flavors.Flavor) *Managed {
	specs := maps.Clone(f.ExtraSpecs)
	if specs == nil {
		specs = map[string]string{}
	}

	return &Managed{
		ID: f.ID, Name: f.Name, VCPUs: f.VCPUs, RAMMiB: f.RAM, DiskGB: f.Disk, EphemeralGB: f.Ephemeral, SwapMiB: f.Swap,
		Public: f.IsPublic, ExtraSpecs: specs,
	}
}

// Converge brings the extra specs and, for a private flavor, the access list of cur (what
// Nova holds) to spec's, and returns what Nova holds afterwards: on failure, what was done
// until then, with the error.
func (a *Admin) Converge(ctx context.Context, cur *Managed, spec ManagedSpec) (*Managed, error) {
	out := *cur
	out.ExtraSpecs = maps.Clone(cur.ExtraSpecs)

	set := map[string]string{}

	for k, v := range spec.ExtraSpecs {
		if old, ok := out.ExtraSpecs[k]; !ok || old != v {
			set[k] = v
		}
	}

	if len(set) > 0 {
		got, err := flavors.CreateExtraSpecs(ctx, a.compute, out.ID, flavors.ExtraSpecsOpts(set)).Extract()
		if err != nil {
			return &out, a.fail(fmt.Sprintf("setting extra specs %s of flavor %s", strings.Join(slices.Sorted(maps.Keys(set)), ", "), out.ID), err)
		}

		maps.Copy(out.ExtraSpecs, got)
	}

	for _, k := range slices.Sorted(maps.Keys(cur.ExtraSpecs)) {
		if _, keep := spec.ExtraSpecs[k]; keep {
			continue
		}

		err := flavors.DeleteExtraSpec(ctx, a.compute, out.ID, k).ExtractErr()
		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return &out, a.fail(fmt.Sprintf("removing extra spec %s of flavor %s", k, out.ID), err)
		}

		delete(out.ExtraSpecs, k)
	}

	if out.Public {
		return &out, nil
	}

	return a.convergeAccess(ctx, &out, spec.Access)
}

// convergeAccess gives the private flavor out to exactly the projects want.
func (a *Admin) convergeAccess(ctx context.Context, out *Managed, want []string) (*Managed, error) {
	have := slices.Clone(out.Access)

	for _, p := range want {
		if slices.Contains(have, p) {
			continue
		}

		got, err := flavors.AddAccess(ctx, a.compute, out.ID, flavors.AddAccessOpts{Tenant: p}).Extract()

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusConflict): // given already
			out.Access = cloud.SortedSet(append(out.Access, p))
		case err != nil:
			return out, a.fail(fmt.Sprintf("giving flavor %s to project %s", out.ID, p), err)
		default:
			out.Access = tenants(got)
		}
	}

	for _, p := range have {
		if slices.Contains(want, p) {
			continue
		}

		got, err := flavors.RemoveAccess(ctx, a.compute, out.ID, flavors.RemoveAccessOpts{Tenant: p}).Extract()

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound): // not given (any more)
			out.Access = slices.DeleteFunc(out.Access, func(s string) bool { return s == p })
		case err != nil:
			return out, a.fail(fmt.Sprintf("taking flavor %s from project %s", out.ID, p), err)
		default:
			out.Access = tenants(got)
		}
	}

	if out.Access == nil {
		out.Access = []string{}
	}

	return out, nil
}

// tenants are the projects of an access list, sorted.
func tenants(list []flavors.FlavorAccess) []string {
	out := make([]string, 0, len(list))
	for _, fa := range list {
		out = append(out, fa.TenantID)
	}

	return cloud.SortedSet(out)
}

// access is the access list of the private flavor id.
func (a *Admin) access(ctx context.Context, id string) ([]string, error) {
	list, err := cloud.ListAll(ctx, flavors.ListAccesses(a.compute, id), flavors.ExtractAccesses, "the access list of flavor "+id)
	if err != nil {
		return nil, a.fail("reading the access list of flavor "+id, err)
	}

	return tenants(list), nil
}

// Observe reads the flavor recorded as id; nil when it is gone. A flavor gone by its ID is not
// looked for by its name: one of the name has another ID, so it is not the one recorded, and a
// flavor carries no mark that could show it to be this resource's (the plan then shows a create,
// which refuses it: import it).
func (a *Admin) Observe(ctx context.Context, id string) (*Managed, error) {
	f, err := a.get(ctx, id)
	if f == nil || err != nil {
		return nil, err
	}

	return a.complete(ctx, f)
}

// complete reads the access list of a private flavor f.
func (a *Admin) complete(ctx context.Context, f *flavors.Flavor) (*Managed, error) {
	out := fromNova(*f)

	if !out.Public {
		access, err := a.access(ctx, out.ID)
		if err != nil {
			return nil, err
		}

		out.Access = access
	}

	return out, nil
}

// get reads flavor id; nil when Nova has none.
func (a *Admin) get(ctx context.Context, id string) (*flavors.Flavor, error) {
	f, err := flavors.Get(ctx, a.compute, id).Extract()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil, nil
	case err != nil:
		return nil, a.fail("reading flavor "+id, err)
	}

	return f, nil
}

// findByName finds the flavor of exactly name among the public and private flavors of the
// region; nil when there is none, a *naming.DuplicateError when there are several.
func (a *Admin) findByName(ctx context.Context, name string) (*flavors.Flavor, error) {
	all, err := a.listAll(ctx)
	if err != nil {
		return nil, err
	}

	f, ok, err := naming.One(kindFlavor, name, all, func(f flavors.Flavor) string { return f.Name },
		func(f flavors.Flavor) string { return f.ID })
	if !ok {
		return nil, err
	}

	return &f, nil
}

// listAll lists every flavor of the region, public and private (admin only).
func (a *Admin) listAll(ctx context.Context) ([]flavors.Flavor, error) {
	all, err := cloud.ListAll(ctx, flavors.ListDetail(a.compute, flavors.ListOpts{AccessType: flavors.AllAccess}),
		flavors.ExtractFlavors, "the flavors of region "+a.region)
	if err != nil {
		return nil, a.fail("listing the public and private flavors", err)
	}

	return all, nil
}

// Locate finds a flavor to import by its ID, else by its exact name; nil when there is none.
func (a *Admin) Locate(ctx context.Context, idOrName string) (*Managed, error) {
	f, err := a.get(ctx, idOrName)
	if err == nil && f == nil {
		f, err = a.findByName(ctx, idOrName)
	}

	if f == nil {
		return nil, err
	}

	return fromNova(*f), nil
}

// Delete deletes flavor id; a flavor already gone is success.
func (a *Admin) Delete(ctx context.Context, id string) error {
	err := flavors.Delete(ctx, a.compute, id).ExtractErr()
	if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return a.fail("deleting flavor "+id, err)
	}

	return nil
}

// forget drops what the run's listing holds of region and of flavor id there, so that a
// flavor data source read after a flavor was made, changed or deleted lists Nova again.
func (c *Cache) forget(region, id string) {
	if c == nil {
		return
	}

	c.lists.Forget(region)
	c.byID.Forget(region, id)
}
