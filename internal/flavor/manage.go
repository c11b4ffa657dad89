package flavor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/hashicorp/terraform-plugin-log/tflog"

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

	// Adopted says that a create found the flavor already there (made by an interrupted apply,
	// or by hand) and took it over instead of making another.
	Adopted bool
	// PreviousID is, after a read, the recorded ID under which the flavor was gone before it
	// was found again by name; "" when it was found by its ID.
	PreviousID string
}

// MismatchError is a create that found a flavor of the name already there, but one that
// differs in what Nova cannot change: it is neither adopted nor touched.
type MismatchError struct {
	Name, ID string
	// Differences are "vcpus 2 (wanted 4)" and the like.
	Differences []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("a flavor named %q already exists (%s) and differs from this one in what Nova cannot change: %s; "+
		"import it with this configuration's values, give this flavor another name, or delete the existing one",
		e.Name, e.ID, strings.Join(e.Differences, ", "))
}

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

// Ensure makes the flavor of spec, or adopts the one of its name that an interrupted apply
// (or an operator) left with the same fixed attributes, and converges its extra specs and
// access. A flavor of the name that differs in a fixed attribute is a *MismatchError. The
// result is what exists, also when converging failed after the flavor was made (the error
// says what failed): the caller records it.
func (a *Admin) Ensure(ctx context.Context, spec ManagedSpec) (*Managed, error) {
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
		// No twin check: Nova refuses a second flavor of a name (409), so there can be none.
	})

	adopted := false

	if gophercloud.ResponseCodeIs(err, http.StatusConflict) {
		// The name (or the ID) is taken: a flavor of the name is adopted when it matches.
		found, ferr := a.findByName(ctx, spec.Name)
		switch {
		case ferr != nil:
			return nil, errors.Join(a.fail("creating flavor "+spec.Name, err), ferr)
		case found == nil:
			return nil, a.fail("creating flavor "+spec.Name, err)
		}

		if diffs := fixedDifferences(spec, found); len(diffs) > 0 {
			return nil, &MismatchError{Name: spec.Name, ID: found.ID, Differences: diffs}
		}

		tflog.Warn(ctx, "Adopting the existing flavor of this name", map[string]any{"flavor_id": found.ID})

		made, err, adopted = found, nil, true
	}

	if err != nil {
		return nil, a.fail("creating flavor "+spec.Name, err)
	}

	out := fromNova(*made)
	out.Adopted = adopted

	if !out.Public {
		if adopted {
			if out.Access, err = a.access(ctx, out.ID); err != nil {
				return out, err
			}
		} else {
			out.Access = []string{} // a new private flavor is given to no one
		}
	}

	return a.Converge(ctx, out, spec)
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

// Observe reads the flavor recorded as id with name: by ID, else (gone by ID) found again by
// its exact name, said in Managed.PreviousID. It returns nil when there is no such flavor.
func (a *Admin) Observe(ctx context.Context, id, name string) (*Managed, error) {
	f, err := a.get(ctx, id)
	if err != nil {
		return nil, err
	}

	previous := ""

	if f == nil {
		if f, err = a.findByName(ctx, name); f == nil {
			return nil, err
		}

		tflog.Warn(ctx, "The flavor is gone by its recorded ID; found again by name", map[string]any{"old_id": id, "new_id": f.ID})

		previous = id
	}

	return a.complete(ctx, f, previous)
}

// complete reads the access list of a private flavor f.
func (a *Admin) complete(ctx context.Context, f *flavors.Flavor, previous string) (*Managed, error) {
	out := fromNova(*f)
	out.PreviousID = previous

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
