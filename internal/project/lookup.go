package project

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The data source unikorn_project: the look-up of one project (adapter.Lookup) by its ID, or by
// its name in a domain (domain_id: Keystone keeps project names unique in a domain), read as the
// resource's Read reads an imported project (Observe, then flatten), so that it shows what the
// resource would show.

// NewProjectLookup is the constructor the provider lists.
func NewProjectLookup() datasource.DataSource {
	return adapter.NewLookup(adapter.Lookup[meta, projectModel]{
		Kind: adapter.Kind{TypeName: "project", Noun: "project"},
		Description: "Looks up one Keystone project for people, by `id`, or by `name` in the domain `domain_id`, and shows " +
			"what the resource `unikorn_project` shows of it: its domain, description, enabled flag, tags (besides the " +
			"provider's own mark `" + naming.HumanProjectTag + "`), group, quotas and role bindings. Its `id` is what " +
			"`project_id` of `unikorn_network` and `unikorn_security_group` takes. Keystone is read as the service user " +
			"with its cloud-admin grant (its own project's scope), as the resource's refresh reads it; the quotas in " +
			"every served region.\n\n" +
			"A project this provider did not make (without the tag `" + naming.HumanProjectTag + "`: made by hand or by " +
			"another tool) is found too, and shown as an import of it would show it: `role_bindings` lists every role " +
			"assignment on it but the service user's, and `quotas` is null (quotas are read only in the provider's " +
			"projects). Networks and security groups cannot be made in such a project until it is imported into a " +
			"`unikorn_project` and applied, which tags it. A project that can never be a `unikorn_project` is refused " +
			"with an error that says why: one in Keystone's `Default` domain, one named like an identity's project " +
			"(`" + naming.IdentityPrefix + "…`: look it up with `unikorn_identity`), or the service user's own.\n\n" +
			"It manages nothing: it only reads.",
		Resource: NewResource,
		Omit:     []string{"force_destroy"},
		Scope:    []string{"domain_id"},
		ByID:     lookupByID,
		ByName:   lookupByName,
	})
}

// lookupByID reads the project id.
func lookupByID(ctx context.Context, m meta, _, id string) (projectModel, error) {
	svc, err := NewService(m.Cloud(), m.IdentityConfig())
	if err != nil {
		return projectModel{}, err
	}

	out, notices, err := svc.Observe(ctx, Ref{ProjectID: id, Imported: true}, nil)

	switch {
	case err != nil:
		return projectModel{}, err
	case out == nil:
		return projectModel{}, fmt.Errorf("%w: no project has the ID %q", cloud.ErrNotLocated, id)
	}

	return lookedUp(ctx, svc, out, notices)
}

// lookupByName reads the project called name in the domain scope names: none or one.
func lookupByName(ctx context.Context, m meta, _ string, scope adapter.Scoped, name string) ([]projectModel, error) {
	svc, err := NewService(m.Cloud(), m.IdentityConfig())
	if err != nil {
		return nil, err
	}

	p, err := svc.findProject(ctx, scope.Value, name)
	if err != nil || p == nil {
		return nil, err
	}

	if err := svc.CheckManageable(p.DomainID, p.Name, p.ID); err != nil {
		return nil, err
	}

	out, notices, err := svc.Observe(ctx, Ref{ProjectID: p.ID, Imported: true}, nil)
	if err != nil || out == nil {
		return nil, err
	}

	found, err := lookedUp(ctx, svc, out, notices)
	if err != nil {
		return nil, err
	}

	return []projectModel{found}, nil
}

// lookedUp is the resource's model of out as its Read records an imported project (the state an
// import leaves, flattened), once out passed the import's check (CheckManageable). The
// notices, which the resource shows as warnings, are logged.
func lookedUp(ctx context.Context, svc *Service, out *Project, notices []Notice) (projectModel, error) {
	if err := svc.CheckManageable(out.DomainID, out.Name, out.ID); err != nil {
		return projectModel{}, err
	}

	for _, n := range append(notices, out.Notices()...) {
		tflog.Info(ctx, n.Summary, map[string]any{"project_id": out.ID, "detail": n.Detail})
	}

	var m projectModel

	m.flatten(out)

	return m, nil
}
