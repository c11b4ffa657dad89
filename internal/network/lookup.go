package network

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// This file is what the look-up data sources of this package (unikorn_network,
// unikorn_security_group: adapter.Lookup) share. The object is found by ID in any project (the
// kind's import locate, through the provider's configured admin scope) or by its exact Neutron
// name in one project (the run's listing of the kind: one listing per project and region); either
// way its tenant is bound in the privileged scope, as the resource binds it, and the resource's
// own observe and flatten fill the resource's model, exactly as its Read does.

// tenantLookup is the look-up of one resource of this package: its methods are the ByID and
// ByName of its adapter.Lookup.
type tenantLookup[M any, S any, O any, PM model[M]] struct {
	// noun names one object in messages.
	noun string
	// kind is the resource's (its locate, cloudName, observe, flatten and idOf).
	kind tenantKind[M, S, O]
	// named lists the IDs of the objects of svc's project called exactly cloudName, from the
	// run's listing of the kind (lookup.named).
	named func(ctx context.Context, svc *Service, cloudName string) ([]string, error)
}

// byID is adapter.Lookup.ByID: the object id in region, in whatever project it is; an error
// that is cloud.ErrNotLocated when region has none.
func (l tenantLookup[M, S, O, PM]) byID(ctx context.Context, m meta, region, id string) (M, error) {
	var none M

	loc, err := l.kind.locate(ctx, m.Cloud(), region, id)

	switch {
	case err != nil:
		return none, err
	case loc.ID != id:
		// The locate of an import takes a name too: an object called like the ID is not it.
		return none, cloud.NotLocated(l.noun, id, region)
	}

	var out M

	f := PM(&out).fields()
	f.ID, f.Name, f.Region = types.StringValue(loc.ID), types.StringValue(loc.Name), types.StringValue(region)

	if loc.InProject {
		f.ProjectID = types.StringValue(loc.ProjectID)
	} else {
		f.IdentityID = types.StringValue(loc.ProjectID)
	}

	found, err := l.observe(ctx, m, []M{out})
	if err == nil && len(found) == 0 {
		err = cloud.NotLocated(l.noun, id, region)
	}

	if err != nil {
		return none, err
	}

	return found[0], nil
}

// byName is adapter.Lookup.ByName: every object of the project scope names (identity_id or
// project_id) in region called exactly cloudName(name).
func (l tenantLookup[M, S, O, PM]) byName(ctx context.Context, m meta, region string, scope adapter.Scoped, name string) ([]M, error) {
	var want tenantFields

	switch scope.Attribute {
	case "identity_id":
		want.IdentityID = types.StringValue(scope.Value)
	case "project_id":
		want.ProjectID = types.StringValue(scope.Value)
	default:
		return nil, errors.New("a name is looked up in identity_id or project_id: give one")
	}

	want.Name, want.Region = types.StringValue(name), types.StringValue(region)

	svc, err := tenantService(ctx, m, &want)
	if err != nil {
		return nil, err
	}

	ids, err := l.named(ctx, svc, l.kind.cloudName(name))
	if err != nil {
		return nil, err
	}

	all := make([]M, len(ids))

	for i, id := range ids {
		f := PM(&all[i]).fields()
		*f = want
		f.ID = types.StringValue(id)
	}

	return l.observe(ctx, m, all)
}

// observe reads each model of all (its id, name, region and identity_id or project_id
// set, all in one tenant) as the resource's Read does; an object gone since it was found is left
// out.
func (l tenantLookup[M, S, O, PM]) observe(ctx context.Context, m meta, all []M) ([]M, error) {
	if len(all) == 0 {
		return nil, nil
	}

	svc, err := tenantService(ctx, m, PM(&all[0]).fields())
	if err != nil {
		return nil, err
	}

	out := make([]M, 0, len(all))

	for _, one := range all {
		o, err := l.kind.observe(ctx, svc, one)
		if err != nil {
			return nil, err
		}

		// Gone, or gone by its ID and another object of its name found instead: not this one.
		if o == nil || l.kind.idOf(o) != PM(&one).fields().ID.ValueString() {
			continue
		}

		l.kind.flatten(&one, o, false)
		out = append(out, one)
	}

	return out, nil
}

// tenantService binds the core to f's tenant in the privileged scope, for the resources
// (tenantResource.service) and the look-ups: the identity's project, or with project_id the
// unikorn_project's.
func tenantService(ctx context.Context, m meta, f *tenantFields) (*Service, error) {
	c := m.Cloud()
	if c == nil {
		return nil, errors.New("the provider is not configured")
	}

	bind, projectID := c.Tenant, f.IdentityID.ValueString()
	if f.inProject() {
		bind, projectID = c.ProjectTenant, f.ProjectID.ValueString()
	}

	t, err := bind(ctx, projectID, f.Region.ValueString(), cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return NewService(t, m.NetworkConfig())
}

// named is the IDs of the objects called exactly name (the Neutron name), from the run's listing
// of l's kind when it can answer (inRun), else from a listing by name.
func (l lookup[T]) named(ctx context.Context, name string) ([]string, error) {
	all, ok, err := l.listing.Find(ctx, l.tenant, name)
	if err == nil && !ok {
		all, err = l.exact(ctx, name)
	}

	if err != nil {
		return nil, err
	}

	ids := make([]string, len(all))
	for i, obj := range all {
		ids[i] = l.id(obj)
	}

	return ids, nil
}
